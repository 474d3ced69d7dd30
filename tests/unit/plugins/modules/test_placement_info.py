"""The placement_info module run through AnsibleModule: on a recorded kubelet tree and on this machine's own processes."""

import json
import os

import pytest

from ansible.module_utils.testing import patch_module_args

from ansible_collections.gpusmith.numa_gate.plugins.modules import placement_info
from ansible_collections.gpusmith.numa_gate.tests.unit.plugins.module_utils._evidence.evidence_trees import node_tree

UID = "3f2a9c1e-6b7d-4e8f-9a0b-1c2d3e4f5a6b"
CID = "f" * 64


def run(args, capsys):
    with patch_module_args(args):
        with pytest.raises(SystemExit) as exit_info:
            placement_info.main()
    return exit_info.value.code, json.loads(capsys.readouterr().out)


def test_recorded_tree_v1_systemd_besteffort(tmp_path, capsys):
    node_tree(str(tmp_path), 1, "systemd", "besteffort", UID, [{
        "id": CID, "prefix": "crio-", "cpus": "0-1,12-15", "mems": "0-1", "usage_ns": 123456789,
        "pids": {77: {"threads": {77: "0-1,12-15"}, "numa_maps": "7f00 default anon=4 N0=3 N1=1 kernelpagesize_kB=4\n"}}}])
    code, result = run({"root": str(tmp_path), "pod_uids": [UID], "expected_numa_nodes": [0]}, capsys)
    assert code == 0 and result["changed"] is False
    assert result["cgroup"] == {"version": 1, "cpuset": "sys/fs/cgroup/cpuset", "cpuacct": "sys/fs/cgroup/cpuacct"}
    (pod,) = result["pods"]
    assert (pod["driver"], pod["qos"]) == ("systemd", "besteffort")
    (view,) = pod["containers"]
    assert (view["runtime"], view["cpus"], view["mems"], view["usage"]["usage_ns"]) == ("cri-o", "0-1,12-15", "0-1", 123456789)
    assert view["local"] == {"local_bytes": 12288, "total_bytes": 16384, "fraction": 0.75}


def test_this_process(capsys):
    code, result = run({"pids": [os.getpid()]}, capsys)
    assert code == 0
    (proc,) = result["processes"]
    assert proc["found"] is True
    assert {t["tid"] for t in proc["threads"]} == {int(t) for t in os.listdir("/proc/%d/task" % os.getpid())}
    assert proc["cpus"] is not None


def test_nothing_asked_and_no_cgroups_fail_cleanly(tmp_path, capsys):
    code, result = run({"root": str(tmp_path)}, capsys)
    assert (code, result["failed"], result["msg"]) == (1, True, "give pod_uids or pids: there is nothing to read")
    code, result = run({"root": str(tmp_path), "pod_uids": [UID]}, capsys)
    assert code == 1
    assert result["msg"].startswith("no cgroup hierarchy under %s" % tmp_path)
    assert "exception" not in result
