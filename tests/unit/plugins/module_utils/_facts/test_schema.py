"""The one reader of facts schema v1 (_facts/schema.py): immutable values, every malformed field named, kubelet_node."""

import glob
import os

import pytest

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base.errors import NumaGateError
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts import gather
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts import schema
from ansible_collections.gpusmith.numa_gate.tests.unit import shared_paths

GI = 1 << 30


def facts(**keys):
    """Two NUMA nodes of two cores x SMT2 (CPU = core + thread x 4), 4Gi each."""
    value = {
        "schema_version": 1,
        "cpus": {"online": "0-7", "offline": "", "isolated": "6"},
        "cores": [{"package": c // 2, "core": c, "cpus": "%d,%d" % (c, c + 4), "numa_node": c // 2} for c in range(4)],
        "numa_nodes": [{"id": 0, "cpus": "0-1,4-5", "memory_bytes": 4 * GI, "hugepages": {"2048kB": {"total": 512, "free": 500}}},
                       {"id": 1, "cpus": "2-3,6-7", "memory_bytes": 4 * GI, "hugepages": {}}],
        "gpus": [{"index": 0, "uuid": "GPU-a", "pci_address": "0000:18:00.0", "name": "H200", "numa_node": 0, "numa_source": "nvml",
                  "sysfs_numa_node": None, "local_cpus": "0-1,4-5", "vendor_affinity": {"source": "nvml", "numa_node": 0, "cpus": "0-1,4-5"}}],
        "nics": [{"name": "ens1", "pci_address": "0000:1a:00.0", "numa_node": 1, "numa_source": "sysfs", "local_cpus": "2-3,6-7"}],
        "memory_bytes": 8 * GI - 4096,
    }
    value.update(keys)
    return value


def test_read_gives_the_planner_view():
    topology = schema.read(facts())
    assert topology.cpus == schema.Cpus(online=frozenset(range(8)), isolated=frozenset([6]), isolated_unknown=None,
                                        usable=frozenset([0, 1, 2, 3, 4, 5, 7]))
    assert topology.nodes[0] == schema.NumaNode(id=0, cpus=frozenset([0, 1, 4, 5]), memory_bytes=4 * GI,
                                                hugepages=(schema.HugepagePool(size_kb=2048, total=512, free=500),), hugepages_bytes=GI)
    assert topology.cores[2] == schema.Core(id=2, cpus=frozenset([2, 6]), numa=1, package=1, usable=False)
    assert topology.cores[3].usable
    assert topology.cpu_numa[6] == 1 and topology.cpu_core[6] == 2
    assert topology.gpus[0] == schema.Device(kind="gpu", name="H200", index=0, uuid="GPU-a", pci_address="0000:18:00.0", numa_node=0,
                                             numa_source="nvml", sysfs_numa_node=None, local_cpus="0-1,4-5",
                                             vendor_affinity=schema.VendorAffinity(source="nvml", numa_node=0, cpus="0-1,4-5"), warnings=())
    # No sysfs_numa_node key: the sysfs value is numa_node when numa_source says sysfs.
    assert topology.nics[0].sysfs_numa_node == 1 and topology.nics[0].index is None
    assert (topology.memory_bytes, topology.memory_source) == (8 * GI - 4096, "topology memory_bytes")
    assert topology.numa_first and topology.warnings == ()


def test_the_value_is_immutable():
    topology = schema.read(facts())
    with pytest.raises(TypeError):
        topology.nodes[2] = None
    with pytest.raises(AttributeError):
        topology.cpus.online.add(9)
    with pytest.raises(AttributeError):
        topology.memory_bytes = 1  # pylint: disable=assigning-non-slot


def test_an_impossible_hugepage_pool_is_data_here_and_refused_by_the_planner():
    # The facts step warns about it, the oracle and the kubelet validator's node view can still use the facts;
    # _plan/plan.py refuses to plan on it (tests/unit/plugins/module_utils/_plan/test_memory.py).
    value = facts()
    value["numa_nodes"][0]["hugepages"] = {"1048576kB": {"total": 5, "free": 5}}
    assert schema.read(value).nodes[0].hugepages_bytes == 5 * GI
    assert schema.kubelet_node(value)["numa_nodes"][0] == 4 * GI


def test_memory_falls_back_to_the_numa_sum_and_unknown_node_memory_is_kept_unknown():
    value = facts(memory_bytes=None)
    value["numa_nodes"][1]["memory_bytes"] = None
    topology = schema.read(value)
    assert (topology.memory_bytes, topology.memory_source) == (4 * GI, "the sum of NUMA node memory")
    assert topology.nodes[1].memory_bytes is None


def test_what_the_reader_cannot_know_is_a_warning():
    value = facts()
    value["cpus"]["isolated"] = None
    value["numa_nodes"][1]["hugepages"] = {"1048576kB": {"total": None, "free": None}}
    value["cores"] = value["cores"][:3]
    value["gpus"][0].update(numa_node=4, local_cpus="0-1\x005")
    topology = schema.read(value)
    assert topology.cpus.isolated_unknown == "null"
    assert topology.warnings == (
        "NUMA node 1 hugepages 1048576kB total is unknown; taken as 0 pages",
        "online CPUs 3,7 are in no core of the topology facts; each is treated as a core of its own",
        "gpu 0000:18:00.0: numa_node 4 is not a NUMA node of the facts (nodes: 0, 1); its locality is taken as unknown",
        "gpu 0000:18:00.0: local_cpus: cpulist '0-1\\x005' has a NUL byte at offset 3; only trailing NUL padding is ignored; taken as unknown",
    )
    assert topology.gpus[0].local_cpus is None and len(topology.gpus[0].warnings) == 2
    del value["cpus"]["isolated"]
    assert schema.read(value).cpus.isolated_unknown == "missing"


@pytest.mark.parametrize("change, message", [
    (lambda f: f.update(schema_version=2), "topology schema_version 2 is not supported; the planner reads schema_version 1"),
    (lambda f: f["cpus"].pop("online"), "topology cpus.online is missing"),
    (lambda f: f["cpus"].update(isolated="x"), "topology cpus.isolated: cpulist 'x': 'x' is not a CPU id or a range 'a-b'"),
    (lambda f: f["numa_nodes"][1].update(cpus="1-2"), "topology puts CPU 1 in NUMA nodes 0 and 1"),
    (lambda f: f["numa_nodes"][0].update(memory_bytes=True), "topology NUMA node 0 memory_bytes True is not a byte count"),
    (lambda f: f["numa_nodes"][0].update(hugepages={"2M": {}}), "topology NUMA node 0 hugepages size '2M' is not '<N>kB'"),
    (lambda f: f["numa_nodes"][0].update(hugepages={"2048kB": 5}),
     "topology NUMA node 0 hugepages 2048kB 5 is not a dict with a 'total' page count"),
    (lambda f: f["numa_nodes"][0]["hugepages"]["2048kB"].update(free=-1), "topology NUMA node 0 hugepages 2048kB free -1 is not a page count"),
    (lambda f: f["cores"].append({"cpus": "0", "numa_node": 0}), "topology puts CPU 0 in two cores"),
    (lambda f: f["gpus"][0].update(index="0"), "topology gpus entry %r: index '0' is not an integer or null"),
    (lambda f: f["gpus"][0].update(uuid=5), "topology gpus entry %r: uuid 5 is a int, expected a string or null"),
    (lambda f: f["gpus"][0].update(sysfs_numa_node="0"),
     "topology gpus entry %r: sysfs_numa_node '0' is not a NUMA node id (an integer, or null when unknown)"),
    (lambda f: f["gpus"][0].update(vendor_affinity=["nvml"]),
     "topology gpus entry 0000:18:00.0: vendor_affinity ['nvml'] is a list, expected a dict with source, numa_node and cpus, or null"),
    (lambda f: f["gpus"][0]["vendor_affinity"].update(source=1), "topology gpus entry 0000:18:00.0: vendor_affinity.source 1 is not a string"),
    (lambda f: f.update(memory_bytes=-1), "topology memory_bytes -1 is not a byte count (MemTotal in bytes, or null)"),
])
def test_every_malformed_field_is_named(change, message):
    value = facts()
    change(value)
    with pytest.raises(schema.SchemaError) as err:
        schema.read(value)
    if "%r" in message:
        message = message % (value["gpus"][0],)
    assert str(err.value) == message


def test_schema_error_is_a_numa_gate_error_and_a_value_error():
    assert issubclass(schema.SchemaError, NumaGateError) and issubclass(schema.SchemaError, ValueError)
    with pytest.raises(schema.SchemaError) as err:
        schema.read("facts", reader="the locality oracle")
    assert str(err.value) == "topology 'facts' is a str, expected numa_gate_topology facts (a dict with schema_version 1)"
    with pytest.raises(schema.SchemaError) as err:
        schema.read({}, reader="the locality oracle")
    assert str(err.value) == "topology schema_version None is not supported; the locality oracle reads schema_version 1"


def test_kubelet_node_from_facts_a_topology_or_a_summary():
    expected = {"online_cpus": "0-7", "numa_nodes": {0: 4 * GI, 1: 4 * GI}, "memory_bytes": 8 * GI - 4096}
    assert schema.kubelet_node(facts()) == expected
    assert schema.kubelet_node(schema.read(facts())) == expected
    assert schema.kubelet_node(expected) == expected
    # As it comes back from Ansible (JSON keys are strings), and without MemTotal: the NUMA sum.
    assert schema.kubelet_node({"online_cpus": "0-3,4-7", "numa_nodes": {"1": 2, "0": None}, "memory_bytes": None}) == {
        "online_cpus": "0-7", "numa_nodes": {0: 0, 1: 2}, "memory_bytes": 2}


@pytest.mark.parametrize("node, message", [
    ("0-7", "node '0-7' is a str, expected numa_gate_topology facts (schema_version 1) or a summary with online_cpus, numa_nodes, memory_bytes"),
    ({"online_cpus": "0-7", "numa_nodes": {0: 1}, "cpus": "0-7"}, "node summary keys cpus are unknown; known keys: online_cpus, numa_nodes, memory_bytes"),
    ({"online_cpus": "0-x", "numa_nodes": {0: 1}}, "node summary online_cpus: cpulist '0-x': '0-x' is not a CPU id or a range 'a-b'"),
    ({"online_cpus": "0-7", "numa_nodes": []}, "node summary numa_nodes [] is not a dict of NUMA node id: memory bytes"),
    ({"online_cpus": "0-7", "numa_nodes": {"a": 1}}, "node summary numa_nodes key 'a' is not a NUMA node id (a whole number >= 0)"),
    ({"online_cpus": "0-7", "numa_nodes": {0: 1, "0": 1}}, "node summary numa_nodes names NUMA node 0 twice"),
    ({"online_cpus": "0-7", "numa_nodes": {0: "1Gi"}}, "node summary numa_nodes[0] '1Gi' is not a byte count"),
    ({"online_cpus": "0-7", "numa_nodes": {0: 1}, "memory_bytes": 1.5},
     "node summary memory_bytes 1.5 is not a byte count (MemTotal in bytes, or null)"),
    ({"schema_version": 2}, "topology schema_version 2 is not supported; the kubelet validator reads schema_version 1"),
])
def test_kubelet_node_refusals(node, message):
    with pytest.raises(schema.SchemaError) as err:
        schema.kubelet_node(node)
    assert str(err.value) == message


@pytest.mark.parametrize("root", sorted(path[: -len(".truth.json")] for path in glob.glob(os.path.join(shared_paths.HWLOC, "*.truth.json")))
                         + [shared_paths.H200_VM], ids=os.path.basename)
def test_real_snapshots_read_and_summarise(root):
    value = gather.gather(root, gpu_source="sysfs")
    topology = schema.read(value)
    assert schema.kubelet_node(value) == {"online_cpus": value["cpus"]["online"],
                                          "numa_nodes": {node["id"]: node["memory_bytes"] or 0 for node in value["numa_nodes"]},
                                          "memory_bytes": value.get("memory_bytes") or sum(node["memory_bytes"] or 0 for node in value["numa_nodes"])}
    assert sorted(topology.nodes) == sorted(node["id"] for node in value["numa_nodes"])
    assert len(topology.gpus) == len(value["gpus"]) and len(topology.nics) == len(value["nics"])


def test_a_gpus_findings_are_its_warnings_and_malformed_findings_are_named():
    value = facts()
    value["gpus"][0]["findings"] = ["rocm-smi GPU[1] is printed at PCI 0000:01:00.1"]
    topology = schema.read(value)
    assert topology.gpus[0].warnings == ("gpu 0000:18:00.0: rocm-smi GPU[1] is printed at PCI 0000:01:00.1",)
    assert topology.warnings == ("gpu 0000:18:00.0: rocm-smi GPU[1] is printed at PCI 0000:01:00.1",)
    value["gpus"][0]["findings"] = "one"
    with pytest.raises(schema.SchemaError) as err:
        schema.read(value)
    assert str(err.value) == "topology gpus entry gpu 0000:18:00.0: findings 'one' is not a list of strings"
