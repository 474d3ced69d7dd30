"""The transport check (_evidence/transport/check.py) on the real 8x H100, 10 NIC matrix (../shared/fixtures/nvidia-smi)."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence.transport import check as _check
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence.transport import environ
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts import gpu_links
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts import notes as _notes
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts import nvidia_smi
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts import sysfs
from ansible_collections.gpusmith.numa_gate.tests.unit import shared_paths

TOPO = Path(shared_paths.FIXTURES) / "nvidia-smi" / "h100-8gpu-10nic-topo-m.txt"
KEYS = ("UCX_NET_DEVICES", "NCCL_IB_HCA", "NCCL_SOCKET_IFNAME")


@pytest.fixture(scope="module")
def facts(tmp_path_factory):
    """The facts' GPUs and NICs of that host: each mlx5_n a NIC ibpN on the NUMA node of its GPUs (NODE rows 0-5, 6-9)."""
    with open(str(TOPO), encoding="utf-8") as handle:
        topo = nvidia_smi.parse_topo_m(handle.read())
    nics = [{"name": "ibp%d" % n, "pci_address": None, "numa_node": 0 if n < 6 else 1, "rdma_devices": ["mlx5_%d" % n]} for n in range(10)]
    gpus = [{"index": row["index"], "uuid": "GPU-%d" % row["index"], "pci_address": None, "numa_node": int(row["numa_affinity"]),
             "topo_links": gpu_links.topo_row(topo, row["index"])} for row in topo["gpus"]]
    with sysfs.Root(str(tmp_path_factory.mktemp("empty"))) as root:
        gpu_links.attach(root, _notes.Notes(), gpus, nics)
    return gpus, nics


def results(found):
    return [(f["check"], f["result"]) for f in found["findings"]]


def test_ucx_mlx5_0_port_1_is_gpu3s_nearest(facts):
    gpus, nics = facts
    found = _check.check({"UCX_NET_DEVICES": "mlx5_0:1"}, None, [gpus[3]], nics, pod="p", container="main")
    assert (found["pinned"], found["status"]) == (True, "pinned")
    assert found["variables"]["UCX_NET_DEVICES"] == {"value": "mlx5_0:1", "from": "the container spec (env)", "selected": ["mlx5_0:1"],
                                                     "unmatched": [], "exclude": False, "exact": True}
    assert found["findings"] == [
        {"pod": "p", "container": "main", "check": "transport_nearest_nic", "result": "agree", "expected": ["mlx5_0", "mlx5_1", "mlx5_2"],
         "observed": {"mlx5_0": "PIX"}, "sources": {"links": "facts gpus[].links (nvidia-smi topo -m)"},
         "message": "transport: UCX_NET_DEVICES selects mlx5_0 (PIX) for gpu GPU-3; its nearest are mlx5_0, mlx5_1, mlx5_2"},
        {"pod": "p", "container": "main", "check": "transport_numa", "result": "agree", "expected": 0, "observed": {"mlx5_0": 0},
         "sources": {}, "message": "transport: UCX_NET_DEVICES selects mlx5_0 on NUMA node(s) 0; gpu GPU-3 is on NUMA node 0"},
    ]


def test_ucx_mlx5_0_port_1_is_not_gpu0s_nearest(facts):
    gpus, nics = facts
    found = _check.check({"UCX_NET_DEVICES": "mlx5_0:1"}, None, [gpus[0]], nics)
    assert results(found) == [("transport_nearest_nic", "disagree"), ("transport_numa", "agree")]
    assert found["findings"][0]["message"] == "transport: UCX_NET_DEVICES selects mlx5_0 (NODE) for gpu GPU-0; its nearest is mlx5_3"


def test_nccl_ib_hca_exclusion_keeps_the_nearest(facts):
    gpus, nics = facts
    found = _check.check({"NCCL_IB_HCA": "^mlx5_1"}, None, [gpus[0]], nics)
    assert found["variables"]["NCCL_IB_HCA"]["selected"] == ["mlx5_0", "mlx5_2", "mlx5_3", "mlx5_4", "mlx5_5", "mlx5_6", "mlx5_7",
                                                             "mlx5_8", "mlx5_9"]
    assert found["variables"]["NCCL_IB_HCA"]["exclude"] is True
    assert results(found) == [("transport_nearest_nic", "agree"), ("transport_numa", "agree")]


def test_nccl_ib_hca_exclusion_of_the_nearest(facts):
    gpus, nics = facts
    found = _check.check({"NCCL_IB_HCA": "^mlx5_5"}, None, [gpus[1]], nics)
    assert results(found) == [("transport_nearest_nic", "disagree"), ("transport_numa", "agree")]
    assert found["findings"][0]["expected"] == ["mlx5_5"]


def test_nccl_ib_hca_exact_on_the_other_socket(facts):
    gpus, nics = facts
    found = _check.check({"NCCL_IB_HCA": "=mlx5_2"}, None, [gpus[4]], nics)
    assert found["variables"]["NCCL_IB_HCA"]["selected"] == ["mlx5_2"]
    assert results(found) == [("transport_nearest_nic", "disagree"), ("transport_numa", "disagree")]
    assert [f["message"] for f in found["findings"]] == [
        "transport: NCCL_IB_HCA selects mlx5_2 (SYS) for gpu GPU-4; its nearest is mlx5_7",
        "transport: NCCL_IB_HCA selects mlx5_2 on NUMA node(s) 0; gpu GPU-4 is on NUMA node 1",
    ]


def test_nccl_ib_hca_exact_is_gpu3s(facts):
    gpus, nics = facts
    assert results(_check.check({"NCCL_IB_HCA": "=mlx5_2"}, None, [gpus[3]], nics)) == [
        ("transport_nearest_nic", "agree"), ("transport_numa", "agree")]


def test_not_pinned_is_shown_not_a_finding(facts):
    gpus, nics = facts
    found = _check.check({}, None, gpus, nics)
    assert (found["pinned"], found["status"], found["findings"]) == (False, "not pinned", [])
    assert found["variables"]["NCCL_IB_HCA"] == {"value": None, "from": "the container spec (env)", "selected": None, "unmatched": []}
    assert _check.check({"UCX_NET_DEVICES": "all"}, None, gpus, nics)["status"] == "not pinned"


def test_not_pinned_with_required_is_a_finding(facts):
    gpus, nics = facts
    found = _check.check({}, None, gpus, nics, required=True)
    assert results(found) == [("transport_pinned", "disagree")]
    assert found["findings"][0]["message"] == ("transport: the main container selects no NIC (UCX_NET_DEVICES, NCCL_IB_HCA, NCCL_SOCKET_IFNAME "
                                               "unset or all) and evidence_transport_required is set")


def test_the_running_process_wins_and_a_difference_is_named(facts):
    gpus, nics = facts
    proc = {"pid": 7, "read": True, "values": {"NCCL_IB_HCA": "=mlx5_3"}, "problem": None, "bytes": 100}
    found = _check.check({"NCCL_IB_HCA": "=mlx5_2"}, proc, [gpus[0]], nics)
    assert found["variables"]["NCCL_IB_HCA"]["from"] == "the main process's /proc/<pid>/environ"
    assert results(found) == [("transport_environ_differs", "disagree"), ("transport_nearest_nic", "agree"), ("transport_numa", "agree")]
    assert found["findings"][0]["message"] == "transport: NCCL_IB_HCA is '=mlx5_2' in the container spec but '=mlx5_3' in the running process"


def test_an_unusable_environ_is_a_finding_and_the_spec_is_used(facts, tmp_path):
    gpus, nics = facts
    where = tmp_path / "proc" / "9"
    where.mkdir(parents=True)
    os.mkfifo(str(where / "environ"))
    proc = environ.read_keys(str(tmp_path), 9, KEYS)
    found = _check.check({"NCCL_IB_HCA": "=mlx5_2"}, proc, [gpus[3]], nics)
    assert results(found) == [("transport_environ", "unknown"), ("transport_nearest_nic", "agree"), ("transport_numa", "agree")]
    assert found["findings"][0]["message"] == ("transport: %s is a FIFO, not the kernel's environ file; not read; the container spec's "
                                               "values are used" % (where / "environ"))


def test_a_value_from_a_reference_unread_is_unknown(facts):
    gpus, nics = facts
    found = _check.check({"NCCL_IB_HCA": None}, None, gpus, nics)
    assert found["variables"]["NCCL_IB_HCA"]["from"] == ("the container spec (env) (valueFrom, not resolved: the process environment was "
                                                         "not read)")
    assert (found["pinned"], found["status"], found["findings"]) == (False, "unknown", [])


def test_an_entry_selecting_nothing_is_named(facts):
    gpus, nics = facts
    found = _check.check({"NCCL_SOCKET_IFNAME": "=eth9"}, None, [gpus[0]], nics)
    assert results(found) == [("transport_selection", "disagree")]
    assert found["findings"][0]["message"] == ("transport: NCCL_SOCKET_IFNAME entry 'eth9' matches no interface on the node "
                                               "(ibp0, ibp1, ibp2, ibp3, ibp4, ibp5, ibp6, ibp7, ibp8, ibp9)")


def test_other_variables_are_never_shown(facts):
    """A real process's environment, read and checked: only the three names appear anywhere in the result."""
    gpus, nics = facts
    env = {"NCCL_IB_HCA": "=mlx5_3", "AWS_SECRET_ACCESS_KEY": "hunter2", "PATH": os.environ.get("PATH", "")}
    # the child says when it runs: before its exec, /proc/<pid>/environ would still be this process's
    proc = subprocess.Popen([sys.executable, "-c", "import time; print('up', flush=True); time.sleep(30)"], env=env, stdout=subprocess.PIPE)
    try:
        assert proc.stdout.readline() == b"up\n"
        read = environ.read_keys("/", proc.pid, KEYS)
    finally:
        proc.kill()
        proc.wait()
    found = _check.check({"NCCL_IB_HCA": "=mlx5_3", "AWS_SECRET_ACCESS_KEY": "hunter2"}, read, [gpus[0]], nics)
    assert results(found) == [("transport_nearest_nic", "agree"), ("transport_numa", "agree")]
    assert "hunter2" not in repr(found) and "AWS_SECRET" not in repr(found) and "PATH" not in repr(found)
