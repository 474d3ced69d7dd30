# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Issue 16, rule 8 (measurements): a reading is plausible or it is refused, and a cgroup path never leaves the cgroup mount.

On recorded kubelet trees (real files, real symlinks), each implausible value is corrupted into a copy and
read through placement_info's reading (`placement.read_pods` / `read_pids`) and through the module itself: the
exact message names the file, the field and the value, and every file of the tree keeps its sha256.
"""

import hashlib
import json
import os

import pytest

from ansible.module_utils.testing import patch_module_args

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence import measures
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence import nodefs
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence.placement import numa_maps
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence.placement import read as placement
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence import slack
from ansible_collections.gpusmith.numa_gate.plugins.modules import placement_info
from ansible_collections.gpusmith.numa_gate.tests.unit.plugins.module_utils._evidence.evidence_trees import node_tree

UID = "3f2a9c1e-6b7d-4e8f-9a0b-1c2d3e4f5a6b"
CID = "0123456789abcdef" * 4
POD = "sys/fs/cgroup/kubepods/pod" + UID
MAPS = "7f0000000000 default anon=256 N0=200 N1=56 kernelpagesize_kB=4\n"


def tree_sums(top):
    found = {}
    for directory, dirnames, filenames in os.walk(str(top)):
        for name in dirnames + filenames:
            path = os.path.join(directory, name)
            if os.path.islink(path):
                found[path] = "link -> " + os.readlink(path)
            elif os.path.isfile(path):
                with open(path, "rb") as handle:
                    found[path] = hashlib.sha256(handle.read()).hexdigest()
    return found


def make(tmp_path, maps=MAPS, version=2):
    root = tmp_path / "node"
    node_tree(str(root), version, "cgroupfs", "guaranteed", UID, [{
        "id": CID, "prefix": "", "cpus": "2-5", "mems": "0", "usage_ns": 7500000000,
        "pids": {4242: {"threads": {4242: "2-5"}, "numa_maps": maps}}}])
    return root


def refused(root, call, message):
    before = tree_sums(root.parent)
    with pytest.raises(nodefs.EvidenceError) as caught:
        call()
    assert str(caught.value) == message
    assert tree_sums(root.parent) == before


@pytest.mark.parametrize("line,message", [
    ("7f00 default anon=5 N0=-5 kernelpagesize_kB=4",
     "/proc/4242/numa_maps line 1: N0 '-5' is not a page count (a decimal integer from 0 to 2**63-1); refused as a measurement"),
    ("7f00 default anon=5 N0=+5 kernelpagesize_kB=4",
     "/proc/4242/numa_maps line 1: N0 '+5' is not a page count (a decimal integer from 0 to 2**63-1); refused as a measurement"),
    ("7f00 default anon=5 N0=5_0 kernelpagesize_kB=4",
     "/proc/4242/numa_maps line 1: N0 '5_0' is not a page count (a decimal integer from 0 to 2**63-1); refused as a measurement"),
    ("7f00 default anon=5 N0=\u0665 kernelpagesize_kB=4",
     "/proc/4242/numa_maps line 1: N0 '\u0665' is not a page count (a decimal integer from 0 to 2**63-1); refused as a measurement"),
    ("7f00 default anon=5 N0=99999999999999999999 kernelpagesize_kB=4",
     "/proc/4242/numa_maps line 1: N0 '99999999999999999999' is not a page count (a decimal integer from 0 to 2**63-1); refused as a measurement"),
    ("7f00 default anon=5 N-1=5 kernelpagesize_kB=4",
     "/proc/4242/numa_maps line 1: 'N-1' is not a NUMA node field (N<node id>); refused as a measurement"),
    ("7f00 default anon=5 N0=5 kernelpagesize_kB=-4",
     "/proc/4242/numa_maps line 1: kernelpagesize_kB '-4' is not a page size in kB (a decimal integer from 1 to 2**63-1); refused as a measurement"),
    ("7f00 default anon=5 N0=5 kernelpagesize_kB=0",
     "/proc/4242/numa_maps line 1: kernelpagesize_kB '0' is not a page size in kB (a decimal integer from 1 to 2**63-1); refused as a measurement"),
    ("7f00 default anon=5 N0=5 kernelpagesize_kB=3",
     "/proc/4242/numa_maps line 1: kernelpagesize_kB '3' is not a page size (a power of two); refused as a measurement"),
])
def test_implausible_numa_maps_are_refused(tmp_path, line, message):
    root = make(tmp_path, maps=line + "\n")
    refused(root, lambda: placement.read_pods(str(root), [UID]), message)
    refused(root, lambda: placement.read_pids(str(root), [4242]), message)


def test_a_plausible_numa_maps_still_reads():
    assert numa_maps.parse("7f00 default N0=0 N1=3 kernelpagesize_kB=64\n7f01 default N12=1\n")["normal_bytes"] == {
        "0": 0, "1": 3 * 65536, "12": 4096}


@pytest.mark.parametrize("version,name,text,field,what", [
    (2, "cpu.stat", "usage_usec -5\n", "usage_usec", "a CPU usage counter in microseconds"),
    (2, "cpu.stat", "usage_usec 1e9\n", "usage_usec", "a CPU usage counter in microseconds"),
    (2, "cpu.stat", "usage_usec 9223372036854776\n", "usage_usec", "a CPU usage counter in nanoseconds"),
    (1, "cpuacct.usage", "-7500000000\n", "cpuacct.usage", "a CPU usage counter in nanoseconds"),
])
def test_implausible_usage_counters_are_refused(tmp_path, version, name, text, field, what):
    root = make(tmp_path, version=version)
    mount = "sys/fs/cgroup" if version == 2 else "sys/fs/cgroup/cpuacct"
    path = "%s/kubepods/pod%s/%s" % (mount, UID, name)
    (root / path).write_text(text)
    value = text.split()[-1]
    if field == "usage_usec" and what.endswith("nanoseconds"):
        value = int(value) * 1000
    refused(root, lambda: placement.read_pods(str(root), [UID]),
            "/%s: %s %r is not %s (a decimal integer from 0 to 2**63-1); refused as a measurement" % (path, field, value, what))


@pytest.mark.parametrize("word", ["-5", "0", "+4242", "42x"])
def test_implausible_pids_in_cgroup_procs_are_refused(tmp_path, word):
    root = make(tmp_path)
    path = "sys/fs/cgroup/kubepods/pod%s/%s/cgroup.procs" % (UID, CID)
    (root / path).write_text("4242\n%s\n" % word)
    refused(root, lambda: placement.read_pods(str(root), [UID]),
            "/%s: entry 2 %r is not a PID (a decimal integer from 1 to 2**63-1); refused as a measurement" % (path, word))


@pytest.mark.parametrize("line", ["0::/../../../etc", "0::/kubepods/../../../etc", "0::/../x"])
def test_a_cgroup_path_with_dotdot_in_proc_is_refused(tmp_path, line):
    root = make(tmp_path)
    (root / "etc").mkdir()
    (root / "etc" / "cpuset.cpus.effective").write_text("0-63\n")  # what a read outside the mount would find
    (root / "proc/4242/cgroup").write_text(line + "\n")
    refused(root, lambda: placement.read_pids(str(root), [4242]),
            "/proc/4242/cgroup: cgroup path %r has a '..' component: it leads outside the cgroup mount /sys/fs/cgroup "
            "(a process in another cgroup namespace shows such a path); not read" % line[3:])


def test_a_cgroup_root_with_dotdot_is_refused(tmp_path):
    root = make(tmp_path)
    refused(root, lambda: placement.read_pods(str(root), [UID], cgroup_root="/../../etc"),
            "cgroup_root: cgroup path '/../../etc' has a '..' component: it leads outside the cgroup mount /sys/fs/cgroup "
            "(a process in another cgroup namespace shows such a path); not read")


def test_a_symlink_out_of_the_cgroup_mount_is_refused(tmp_path):
    root = make(tmp_path)
    (root / "etc").mkdir()
    (root / "etc" / "cpuset.cpus.effective").write_text("0-63\n")
    effective = root / POD / CID / "cpuset.cpus.effective"
    effective.unlink()
    os.symlink("../../../../../../etc/cpuset.cpus.effective", str(effective))  # a real link from a cgroup file to <root>/etc
    refused(root, lambda: placement.read_pods(str(root), [UID]),
            "/%s/%s/cpuset.cpus.effective resolves to %s, outside the cgroup mount %s: not read (cgroup files are read only inside it)"
            % (POD, CID, os.path.realpath(str(root / "etc" / "cpuset.cpus.effective")), os.path.realpath(str(root / "sys/fs/cgroup"))))
    # A container folder that is a link is not a container cgroup at all: listed nowhere, read nowhere.
    effective.unlink()
    effective.write_text("2-5\n")
    os.rename(str(root / POD / CID), str(root / "etc" / CID))
    os.symlink("../../../../../etc/" + CID, str(root / POD / CID))
    _tree, (pod,) = placement.read_pods(str(root), [UID])
    assert pod["containers"] == []


@pytest.mark.parametrize("pids,message", [
    ([-1], "pid -1 is not a process id (an integer from 1 to 4194304)"),
    ([0], "pid 0 is not a process id (an integer from 1 to 4194304)"),
    ([4194305], "pid 4194305 is not a process id (an integer from 1 to 4194304)"),
])
def test_pids_given_are_checked(tmp_path, pids, message):
    root = make(tmp_path)
    refused(root, lambda: placement.read_pids(str(root), pids), message)


def test_expected_nodes_are_checked(tmp_path):
    root = make(tmp_path)
    refused(root, lambda: placement.read_pods(str(root), [UID], expected_nodes=[-1]),
            "expected NUMA node -1 is not a NUMA node id (an integer from 0 to 1023)")


def test_the_module_fails_with_the_same_message(tmp_path, capsys):
    root = make(tmp_path, maps="7f00 default anon=5 N0=-5 kernelpagesize_kB=4\n")
    before = tree_sums(tmp_path)
    with patch_module_args({"root": str(root), "pod_uids": [UID]}):
        with pytest.raises(SystemExit) as exit_info:
            placement_info.main()
    result = json.loads(capsys.readouterr().out)
    assert (exit_info.value.code, result["failed"]) == (1, True)
    assert result["msg"] == "/proc/4242/numa_maps line 1: N0 '-5' is not a page count (a decimal integer from 0 to 2**63-1); refused as a measurement"
    assert "exception" not in result
    assert tree_sums(tmp_path) == before


@pytest.mark.parametrize("first,second,message", [
    ({"usage_ns": -1, "monotonic_ns": 0}, {"usage_ns": 5, "monotonic_ns": 10},
     "the first usage sample: usage_ns -1 is not a CPU usage counter in nanoseconds (a decimal integer from 0 to 2**63-1); refused as a measurement"),
    ({"usage_ns": 9, "monotonic_ns": 0, "source": "/sys/fs/cgroup/x/cpu.stat:usage_usec"},
     {"usage_ns": 5, "monotonic_ns": 10, "source": "/sys/fs/cgroup/x/cpu.stat:usage_usec"},
     "CPU usage counter went down from 9 to 5 ns (/sys/fs/cgroup/x/cpu.stat:usage_usec): the cgroup was recreated between the samples"),
    ({"usage_ns": 1, "monotonic_ns": 0}, {"usage_ns": "5", "monotonic_ns": 10},
     "the second usage sample: usage_ns '5' is not a CPU usage counter in nanoseconds (a decimal integer from 0 to 2**63-1); refused as a measurement"),
    ({"usage_ns": 1, "monotonic_ns": True}, {"usage_ns": 5, "monotonic_ns": 10},
     "the first usage sample: monotonic_ns True is not a CLOCK_MONOTONIC reading in nanoseconds (a decimal integer from 0 to 2**63-1); "
     "refused as a measurement"),
])
def test_implausible_usage_samples_are_refused(first, second, message):
    with pytest.raises(nodefs.EvidenceError) as caught:
        slack.average_use(first, second)
    assert str(caught.value) == message


def test_count_takes_only_the_kernels_digits():
    assert measures.count("0", "f", "x", "a count") == 0
    assert measures.count(str(measures.INT64_MAX), "f", "x", "a count") == measures.INT64_MAX
    for text in ("9223372036854775808", " 1", "1 ", "", "0x10", "1.0", None):
        with pytest.raises(nodefs.EvidenceError):
            measures.count(text, "f", "x", "a count")
