"""The topology gather against hwloc's ground truth on 16 real sysfs snapshots.

Each ``fixtures/hwloc/<name>.truth.json`` comes from hwloc 2.14's own expected
output for that snapshot (see fixtures/hwloc/README.md). hwloc's default view is
not raw sysfs, so every comparison below is made against the right view, and
CASES says, per snapshot, which differences apply and why.
"""

import collections
import glob
import json
import os

import pytest

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import cpulist as _cpulist
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts.gather import gather
from ansible_collections.gpusmith.numa_gate.tests.unit import shared_paths


HWLOC = shared_paths.HWLOC

# Why each snapshot's truth differs from raw sysfs, and so what the test compares.
CASES = {
    "128arm-2pa2n8cluster4co": "plain view; package ids are ACPI ids (36, 8442), cluster_cpus ignored (clusters are not cores)",
    "16amd64-8n2c-cpusets": "cgroup v1 cpuset /dummy (cpus 0-6,12-15, mems 1-4) restricts the truth: compared with online & allowed; "
                            "cpu 4 is offline; also compared unrestricted with hwloc's --disallowed view",
    "16em64t-4s2c2t": "old sysfs: no cpu/online, no *_list files, node cpumap only; SMT siblings n and n+8",
    "16em64t-4s2c2t-offlines": "offline cpus 2,5,13,14 (per-cpu online files only): not in cores, packages or node cpus",
    "256ia64-64n2s2c": "old sysfs (masks only) on 256 cpus, 128 packages, 64 nodes",
    "2i386-2t-hugepagesizecount": "no sys/devices/system/node: one node 0 from /proc/meminfo; huge pages from sys/kernel/mm/hugepages",
    "32amd64-4s2n4c-cgroup2": "cgroup v2 (cpuset.cpus.effective 0-5) restricts the truth: compared with online & allowed; "
                              "allowed nodes 2-5 have no allowed cpu, so only their memory is compared",
    "32intel64-2p8co2t+8ve": "plain view; SMT siblings n and n+16",
    "40intel64-2g2n4c+pci": "plain view (its cgroup allows everything); round-robin cpu numbering",
    "48amd64-4d2n6c-sparse": "core_id repeats across the two dies of a package: cores come from thread siblings; sparse node ids",
    "64intel64-fakeKNL-SNC4-hybrid": "MCDRAM nodes 4-7 have no cpus in sysfs; hwloc gives them their parent's locality, "
                                     "so only their memory is compared",
    "fakeheteromemtiers": "CPU-less HBM/NVM nodes 4,6,8,9 get hwloc's parent locality: only their memory is compared",
    "fakememinitiators-1np2c+1npp+gi": "hwloc hides the memory-less nodes 0-4 (0 kB): they must report 0 bytes and are left out; "
                                       "memory-only nodes 5-10 get hwloc's initiator locality: only memory compared; "
                                       "core_id repeats inside a package (Qemu): cores come from core_cpus",
    "memorysidecaches": "plain view; SNC2 with interleaved node cpus",
    "nvidiagpunumanodes": "truth keeps the NVIDIA GPU memory nodes 250-255 (HWLOC_KEEP_NVIDIA_GPU_NUMA_NODES=1); they are CPU-less, "
                          "so only their memory is compared; node cpulists 0-87/88-175 name cpus absent from the snapshot",
    "offline-cpu0-node0": "node 0 offline, cpus 0-3,21-23 offline: node 1's sysfs cpulist holds offline cpus, compared after "
                          "dropping them; the online cpus of package 0 have no NUMA node",
}


def _truth_files():
    return sorted(glob.glob(os.path.join(HWLOC, "*.truth.json")))


def _name(path):
    return os.path.basename(path)[: -len(".truth.json")]


def test_every_snapshot_has_a_case_note():
    assert sorted(_name(p) for p in _truth_files()) == sorted(CASES)


def _view(facts, restricted):
    """hwloc's view of our facts: online cpus, & allowed cpus and nodes when restricted."""
    cpus = set(_cpulist.parse(facts["cpus"]["online"]))
    nodes = {node["id"] for node in facts["numa_nodes"]}
    if restricted:
        cpus &= set(_cpulist.parse(facts["allowed"]["cpus"]))
        nodes &= set(_cpulist.parse(facts["allowed"]["mems"]))
    return cpus, nodes


def _compare(name, facts, truth, restricted):
    why = "%s: %s" % (name, CASES[name])
    cpus, allowed_nodes = _view(facts, restricted)

    assert sorted(cpus) == truth["pus"], why
    not_represented = _cpulist.format(set(_cpulist.parse(facts["cpus"]["present"])) - cpus)
    assert not_represented == (truth["pus_not_represented"] or ""), why

    # hwloc keeps a package whose cpus are all disallowed when an allowed memory node hangs under it
    # (16amd64-8n2c-cpusets package 4 for node 4, 32amd64-4s2n4c-cgroup2 packages 1-2 for nodes 2-5).
    node_cpus = [set(_cpulist.parse(n["cpus"])) for n in facts["numa_nodes"] if n["id"] in allowed_nodes and n["memory_bytes"]]
    packages = [p for p in facts["packages"]
                if cpus & set(_cpulist.parse(p["cpus"])) or any(c & set(_cpulist.parse(p["cpus"])) for c in node_cpus)]
    assert len(packages) == truth["packages"], why
    per_core = collections.Counter()
    for core in facts["cores"]:
        threads = cpus & set(_cpulist.parse(core["cpus"]))
        if threads:
            per_core[str(len(threads))] += 1
    assert sum(per_core.values()) == truth["cores"], why
    assert dict(per_core) == truth["pus_per_core"], why

    ours = {node["id"]: node for node in facts["numa_nodes"] if node["id"] in allowed_nodes}
    hidden = sorted(node_id for node_id, node in ours.items() if node["memory_bytes"] == 0)
    assert sorted(set(ours) - set(hidden)) == [node["id"] for node in truth["numa_nodes"]], why
    assert set(hidden).isdisjoint(node["id"] for node in truth["numa_nodes"]), why
    for expected in truth["numa_nodes"]:
        node = ours[expected["id"]]
        assert node["memory_bytes"] == expected["memory_bytes"], "%s, node %d" % (why, expected["id"])
        node_cpus = set(_cpulist.parse(node["cpus"])) & cpus
        if node_cpus:
            assert _cpulist.format(node_cpus) == expected["cpus"], "%s, node %d" % (why, expected["id"])
        elif expected["cpus"]:
            # CPU-less in sysfs: hwloc prints its parent's locality, which sysfs does not have.
            assert node["cpus"] == "", "%s, node %d" % (why, expected["id"])
        else:
            # CPU-less only in the restricted view: its cpus are all disallowed, hwloc prints "" too.
            assert node["cpus"] and restricted, "%s, node %d" % (why, expected["id"])
        if expected["hugepages"] is not None:
            totals = {size: entry["total"] for size, entry in node["hugepages"].items()}
            assert totals == expected["hugepages"], "%s, node %d" % (why, expected["id"])


@pytest.mark.parametrize("truth_path", _truth_files(), ids=_name)
def test_gather_matches_hwloc_truth(truth_path):
    name = _name(truth_path)
    with open(truth_path) as handle:
        truth = json.load(handle)
    facts = gather(os.path.join(HWLOC, name), gpu_source="none")
    assert facts["schema_version"] == 1
    _compare(name, facts, truth, restricted=True)
    # The restriction is reported, never applied to cpus.online (the kubelet sees the whole host).
    assert facts["cpus"]["logical"] == len(_cpulist.parse(facts["cpus"]["online"]))
    assert facts["cpus"]["cores"] == len(facts["cores"])
    assert facts["cpus"]["packages"] == len(facts["packages"])


def test_cpuset_snapshot_against_the_disallowed_view():
    """16amd64-8n2c-cpusets unrestricted equals hwloc's --disallowed output (all online cpus, all 8 nodes)."""
    name = "16amd64-8n2c-cpusets"
    with open(os.path.join(HWLOC, name + ".truth.json")) as handle:
        truth = json.load(handle)
    facts = gather(os.path.join(HWLOC, name), gpu_source="none")
    _compare(name, facts, truth["disallowed_view"], restricted=False)


@pytest.mark.parametrize(
    "name, allowed",
    [
        # the cpuset is intersected with the online cpus, as hwloc does: cpu 4 is offline (cpus file 0-6,12-15)
        ("16amd64-8n2c-cpusets", {"cpus": "0-3,5-6,12-15", "mems": "1-4", "source": "cpuset:/dev/cpuset/dummy"}),
        ("32amd64-4s2n4c-cgroup2", {"cpus": "0-5", "mems": "0-5", "source": "cgroup2:/cgroup/unified/uid_2008/job_15389/step_0"}),
        ("40intel64-2g2n4c+pci", {"cpus": "0-39", "mems": "0-3", "source": "cpuset:/dev/cpuset/torque/513099.master.cm.cluster"}),
        # cpuset.cpus says 0-175, but only 0-15,88-103 are online (and in the snapshot)
        ("nvidiagpunumanodes", {"cpus": "0-15,88-103", "mems": "0,8,250-255", "source": "cpuset:/sys/fs/cgroup/cpuset/jjh"}),
        ("fakeheteromemtiers", {"cpus": "0-5", "mems": "0-2,4,6,8-9", "source": "cgroup2:/sys/fs/cgroup"}),
        # no cgroup or cpuset at all: everything online is allowed, no source
        ("16em64t-4s2c2t", {"cpus": "0-15", "mems": "0", "source": None}),
    ],
)
def test_allowed_is_read_like_hwloc(name, allowed):
    facts = gather(os.path.join(HWLOC, name), gpu_source="none")
    assert facts["allowed"] == allowed


def test_disallowed_cpus_stay_online():
    facts = gather(os.path.join(HWLOC, "32amd64-4s2n4c-cgroup2"), gpu_source="none")
    assert facts["cpus"]["online"] == "0-31"
    assert facts["cpus"]["cores"] == 32
    assert facts["allowed"]["cpus"] == "0-5"


@pytest.mark.parametrize("truth_path", _truth_files(), ids=_name)
def test_allowed_is_within_online(truth_path):
    """As hwloc: the allowed set is the cgroup's & the online cpus and NUMA nodes (a v1 cpuset.cpus may name absent cpus)."""
    facts = gather(os.path.join(HWLOC, _name(truth_path)), gpu_source="none")
    assert set(_cpulist.parse(facts["allowed"]["cpus"])) <= set(_cpulist.parse(facts["cpus"]["online"]))
    assert set(_cpulist.parse(facts["allowed"]["mems"])) <= {node["id"] for node in facts["numa_nodes"]}
