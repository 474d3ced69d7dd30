"""placement (_evidence/placement.py) on recorded kubelet trees: cgroup v1 and v2, cgroupfs and systemd, every QoS class."""

import os

import pytest

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import fileio as _fileio
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence import nodefs
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence.placement import numa_maps
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence.placement import read as placement
from ansible_collections.gpusmith.numa_gate.tests.unit.plugins.module_utils._evidence.evidence_trees import node_tree

UID = "3f2a9c1e-6b7d-4e8f-9a0b-1c2d3e4f5a6b"
CID = "0123456789abcdef" * 4
NUMA_MAPS = (
    "7f0000000000 default anon=256 dirty=256 active=0 N0=200 N1=56 kernelpagesize_kB=4\n"
    "7f1000000000 default file=/usr/lib/libc.so.6 mapped=10 mapmax=40 N1=10 kernelpagesize_kB=4\n"
    "7f4000000000 bind:0 file=/dev/hugepages/buf huge dirty=2 N0=2 kernelpagesize_kB=2048\n"
    "7f8000000000 default file=/anon_hugepage\\040(deleted) huge anon=1 dirty=1 N1=1 kernelpagesize_kB=1048576\n"
    "7ffd00000000 default stack anon=3 dirty=3 N0=3 kernelpagesize_kB=4\n"
)
CONTAINER = {"id": CID, "cpus": "2-5", "mems": "0", "usage_ns": 7500000000,
             "pids": {4242: {"threads": {4242: "2-5", 4243: "2", 4250: "5"}, "numa_maps": NUMA_MAPS}}}

PREFIXES = {"cgroupfs": "", "systemd": "cri-containerd-"}
EXPECTED_PATH = {
    ("cgroupfs", "guaranteed"): "/kubepods/pod" + UID,
    ("cgroupfs", "burstable"): "/kubepods/burstable/pod" + UID,
    ("cgroupfs", "besteffort"): "/kubepods/besteffort/pod" + UID,
    ("systemd", "guaranteed"): "/kubepods.slice/kubepods-pod3f2a9c1e_6b7d_4e8f_9a0b_1c2d3e4f5a6b.slice",
    ("systemd", "burstable"): "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod3f2a9c1e_6b7d_4e8f_9a0b_1c2d3e4f5a6b.slice",
    ("systemd", "besteffort"): "/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod3f2a9c1e_6b7d_4e8f_9a0b_1c2d3e4f5a6b.slice",
}


def test_numa_maps_bytes_per_node_huge_pages_apart():
    assert numa_maps.parse(NUMA_MAPS) == {
        "normal_bytes": {"0": 203 * 4096, "1": 66 * 4096},
        "huge_bytes": {"1048576kB": {"1": 1 << 30}, "2048kB": {"0": 2 * 2 * 1024 * 1024}},
        "mappings": 5,
    }


@pytest.mark.parametrize("version", [1, 2])
@pytest.mark.parametrize("driver,qos", sorted(EXPECTED_PATH))
def test_every_layout(tmp_path, version, driver, qos):
    root = str(tmp_path)
    path = node_tree(root, version, driver, qos, UID, [dict(CONTAINER, prefix=PREFIXES[driver])])
    assert path == EXPECTED_PATH[(driver, qos)]
    tree, (pod,) = placement.read_pods(root, [UID], expected_nodes=[0])
    assert tree["version"] == version
    assert (pod["found"], pod["driver"], pod["qos"], pod["cgroup"]) == (True, driver, qos, path)
    (view,) = pod["containers"]
    assert (view["id"], view["runtime"], view["cpus"], view["mems"]) == (CID, "containerd" if driver == "systemd" else None, "2-5", "0")
    assert view["usage"]["usage_ns"] == 7500000000
    assert pod["usage"]["usage_ns"] == 7500000000
    (proc,) = view["processes"]
    assert [(t["tid"], t["cpus"], t["mems"]) for t in proc["threads"]] == [(4242, "2-5", "0"), (4243, "2", "0"), (4250, "5", "0")]
    # 203 pages of 4 KiB + 2 x 2 MiB on node 0; 66 x 4 KiB + 1 GiB on node 1
    local = 203 * 4096 + 4 * 1024 * 1024
    total = local + 66 * 4096 + (1 << 30)
    assert view["local"] == {"local_bytes": local, "total_bytes": total, "fraction": round(local / total, 6)}


def test_pod_not_on_the_node_and_pid_gone(tmp_path):
    root = str(tmp_path)
    node_tree(root, 2, "systemd", "burstable", UID, [dict(CONTAINER, prefix="crio-")])
    other = "11111111-2222-3333-4444-555555555555"
    assert placement.read_pods(root, [other])[1] == [{"uid": other, "found": False}]
    assert placement.read_pids(root, [999999])[1] == [{"pid": 999999, "found": False}]


def test_bad_uid_and_no_cgroup_mount(tmp_path):
    with pytest.raises(nodefs.EvidenceError, match=r"no cgroup hierarchy under .*: neither sys/fs/cgroup/cgroup.controllers"):
        placement.read_pods(str(tmp_path), [UID])
    node_tree(str(tmp_path), 1, "cgroupfs", "guaranteed", UID, [dict(CONTAINER, prefix="")])
    with pytest.raises(nodefs.EvidenceError, match=r"pod uid '../../etc' is not a UID"):
        placement.read_pods(str(tmp_path), ["../../etc"])


def test_fifo_where_a_status_file_is_expected_is_named_never_read(tmp_path):
    root = str(tmp_path)
    node_tree(root, 2, "cgroupfs", "guaranteed", UID, [dict(CONTAINER, prefix="")])
    status = os.path.join(root, "proc/4242/task/4243/status")
    os.unlink(status)
    os.mkfifo(status)
    with pytest.raises(_fileio.FileIOError, match="proc/4242/task/4243/status is a FIFO, not a regular file; not read"):
        placement.read_pods(root, [UID])
