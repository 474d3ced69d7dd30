"""The transport_info module run through AnsibleModule on a recorded kubelet tree: only the named keys come back."""

import json
import os

import pytest

from ansible.module_utils.testing import patch_module_args

from ansible_collections.gpusmith.numa_gate.plugins.modules import transport_info
from ansible_collections.gpusmith.numa_gate.tests.unit.plugins.module_utils._evidence.evidence_trees import node_tree

UID = "3f2a9c1e-6b7d-4e8f-9a0b-1c2d3e4f5a6b"
CID = "c" * 64


def run(args, capsys):
    with patch_module_args(args):
        with pytest.raises(SystemExit) as exit_info:
            transport_info.main()
    return exit_info.value.code, json.loads(capsys.readouterr().out)


def test_recorded_tree(tmp_path, capsys):
    node_tree(str(tmp_path), 1, "cgroupfs", "burstable", UID, [{
        "id": CID, "prefix": "", "cpus": "0-3", "mems": "0", "usage_ns": 5,
        "pids": {41: {"threads": {41: "0-3"}, "numa_maps": "7f00 default anon=1 N0=1 kernelpagesize_kB=4\n"}}}])
    with open(os.path.join(str(tmp_path), "proc", "41", "environ"), "wb") as handle:
        handle.write(b"UCX_NET_DEVICES=mlx5_0:1\0NCCL_SOCKET_IFNAME==eth0\0API_KEY=k\0")
    code, result = run({"root": str(tmp_path), "pods": [{"uid": UID, "container_ids": {"main": "containerd://" + CID}}]}, capsys)
    assert code == 0 and result["changed"] is False
    assert result["containers"] == [{"uid": UID, "container": "main", "container_id": CID, "pid": 41, "problem": None, "environ": {
        "pid": 41, "read": True, "values": {"UCX_NET_DEVICES": "mlx5_0:1", "NCCL_SOCKET_IFNAME": "=eth0"}, "problem": None, "bytes": 60}}]
    assert "API_KEY" not in json.dumps(result)


def test_a_pod_that_is_not_a_mapping_of_uid_is_refused(tmp_path, capsys):
    node_tree(str(tmp_path), 2, "systemd", "guaranteed", UID, [])
    code, result = run({"root": str(tmp_path), "pods": [{"container_ids": {"main": CID}}]}, capsys)
    assert code == 1 and result["failed"] is True
    assert result["msg"] == "pods[0] {'container_ids': {'main': '%s'}}: expected uid (a string) and container_ids (container name: ID)" % CID
