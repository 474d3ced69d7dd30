"""The transport reading on a recorded kubelet tree (_evidence/transport/read.py): the main process found, only the named keys read."""

import os

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence.transport import read as transport
from ansible_collections.gpusmith.numa_gate.tests.unit.plugins.module_utils._evidence.evidence_trees import node_tree

UID = "3f2a9c1e-6b7d-4e8f-9a0b-1c2d3e4f5a6b"
CID = "a" * 64
MAPS = "7f00 default anon=1 N0=1 kernelpagesize_kB=4\n"


def _tree(root, environs, parents):
    """A v2 systemd Guaranteed pod whose container runs pids 300 (a child of the shim, 12) and 301 (a child of 300)."""
    node_tree(str(root), 2, "systemd", "guaranteed", UID, [{
        "id": CID, "prefix": "cri-containerd-", "cpus": "2-3", "mems": "0", "usage_ns": 1,
        "pids": dict((pid, {"threads": {pid: "2-3"}, "numa_maps": MAPS}) for pid in parents)}])
    for pid, parent in parents.items():
        with open(os.path.join(str(root), "proc", str(pid), "status"), "w") as handle:
            handle.write("Name:\tpython3\nTgid:\t%d\nPid:\t%d\nPPid:\t%d\n" % (pid, pid, parent))
        with open(os.path.join(str(root), "proc", str(pid), "environ"), "wb") as handle:
            handle.write(environs[pid])


def test_main_process_and_only_the_named_keys(tmp_path):
    # the child (301) sorts after its parent here, but even a lower child PID is never the main process
    _tree(tmp_path, {300: b"HOME=/\0NCCL_IB_HCA=^mlx5_1\0SECRET=s3\0", 301: b"NCCL_IB_HCA==mlx5_9\0"}, {300: 12, 301: 300})
    (found,) = transport.read_pods(str(tmp_path), [{"uid": UID, "container_ids": {"main": "containerd://" + CID}}], "main")
    assert found == {"uid": UID, "container": "main", "container_id": CID, "pid": 300, "problem": None,
                     "environ": {"pid": 300, "read": True, "values": {"NCCL_IB_HCA": "^mlx5_1"}, "problem": None, "bytes": 37}}


def test_main_process_is_the_one_whose_parent_is_outside(tmp_path):
    _tree(tmp_path, {200: b"NCCL_IB_HCA=child\0", 250: b"UCX_NET_DEVICES=mlx5_0:1\0"}, {200: 250, 250: 9})
    (found,) = transport.read_pods(str(tmp_path), [{"uid": UID, "container_ids": {"main": CID}}], "main")
    assert (found["pid"], found["environ"]["values"]) == (250, {"UCX_NET_DEVICES": "mlx5_0:1"})


def test_a_fifo_environ_is_the_entrys_problem(tmp_path):
    _tree(tmp_path, {300: b""}, {300: 12})
    path = os.path.join(str(tmp_path), "proc", "300", "environ")
    os.remove(path)
    os.mkfifo(path)
    (found,) = transport.read_pods(str(tmp_path), [{"uid": UID, "container_ids": {"main": CID}}], "main")
    assert found["environ"]["problem"] == "%s is a FIFO, not the kernel's environ file; not read" % path


def test_no_container_id_and_no_cgroup_are_named(tmp_path):
    _tree(tmp_path, {300: b""}, {300: 12})
    pods = [{"uid": UID, "container_ids": {"sidecar": CID}}, {"uid": UID, "pod": "gpu/trainer-0", "container_ids": {"main": "b" * 64}}]
    first, second = transport.read_pods(str(tmp_path), pods, "main")
    assert first["problem"] == "pod %s: the API reports no container ID for container 'main' (container_ids: sidecar)" % UID
    assert second["problem"] == "pod gpu/trainer-0: no cgroup of container main (%s) on the node" % ("b" * 64)
    assert (first["environ"], second["environ"]) == (None, None)
