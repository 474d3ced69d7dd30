"""Placement findings (_evidence/reconcile.py): agreement on the H200 host's real facts, and a planted mismatch named exactly."""

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence.podresources import allocations
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence.placement import read as placement
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence.reconcile import findings as reconcile
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._plan import locality
from ansible_collections.gpusmith.numa_gate.tests.unit.plugins.module_utils._evidence.evidence_trees import node_tree

UID = "3f2a9c1e-6b7d-4e8f-9a0b-1c2d3e4f5a6b"
MAIN = "a" * 64
SIDE = "b" * 64
GPU_UUID = "GPU-0b8f3d2e-1111-2222-3333-444455556666"


def two_node_facts():
    """Two NUMA nodes, the GPU on node 1 (sysfs says so): the planted machine."""
    return {"schema_version": 1, "cpus": {"online": "0-15", "isolated": ""},
            "numa_nodes": [{"id": 0, "cpus": "0-7"}, {"id": 1, "cpus": "8-15"}],
            "gpus": [{"index": 0, "uuid": GPU_UUID, "pci_address": "0000:9a:00.0", "name": "NVIDIA H200", "sysfs_numa_node": 1,
                      "numa_node": 1, "numa_source": "sysfs", "local_cpus": "8-15", "vendor_affinity": None}],
            "nics": []}


def podresources(cpus, main, side_gpu=GPU_UUID):
    return [{"name": "inference", "namespace": "canary", "cpu_ids": cpus, "memory": [],
             "containers": [{"name": "server", "cpu_ids": main, "memory": [], "dynamic_resources": [],
                             "devices": [{"resource_name": "nvidia.com/gpu", "device_ids": [side_gpu], "numa_nodes": [1]}]},
                            {"name": "sidecar", "cpu_ids": "", "memory": [], "devices": [], "dynamic_resources": []}]}]


def tree(root, main_cpus, side_cpus, mems, maps):
    node_tree(root, 2, "systemd", "guaranteed", UID, [
        {"id": MAIN, "prefix": "cri-containerd-", "cpus": main_cpus, "mems": mems, "usage_ns": 10,
         "pids": {100: {"threads": {100: main_cpus, 101: main_cpus}, "numa_maps": maps}}},
        {"id": SIDE, "prefix": "cri-containerd-", "cpus": side_cpus, "mems": mems, "usage_ns": 10,
         "pids": {200: {"threads": {200: side_cpus}, "numa_maps": ""}}}])
    return placement.read_pods(root, [UID])[1][0]


IDS = {"server": "containerd://" + MAIN, "sidecar": "containerd://" + SIDE}


def test_agreement_pod_scope(tmp_path):
    oracle = locality.build(two_node_facts())
    allocation = allocations.reconcile_allocations(podresources("8-13", "8-11"), "pod", "0-15", None, oracle)["pods"][0]
    placed = tree(str(tmp_path), "8-11", "12-13", "1", "7f00 default anon=100 N1=100 kernelpagesize_kB=4\n")
    findings = reconcile.reconcile_pod(allocation, placed, IDS, oracle)
    assert [(f["check"], f["container"], f["result"]) for f in findings] == [
        ("cpuset", "server", "agree"), ("thread_masks", "server", "agree"),
        ("cpuset", "sidecar", "agree"), ("thread_masks", "sidecar", "agree"),
        ("device_locality", "server", "agree"), ("memory_nodes", None, "agree"), ("resident_memory", None, "agree")]
    assert findings[2]["message"] == "pod canary/inference container sidecar: the pod's shared pool (pod scope) 12-13, the cgroup's effective CPUs are 12-13"


def test_planted_mismatch_gpu_on_node_1_cpus_and_pages_on_node_0(tmp_path):
    oracle = locality.build(two_node_facts())
    allocation = allocations.reconcile_allocations(podresources("2-7", "2-5"), "pod", "0-15", None, oracle)["pods"][0]
    placed = tree(str(tmp_path), "2-5", "6-7", "0", "7f00 default anon=512 N0=512 kernelpagesize_kB=4\n")
    findings = {(f["check"], f["container"]): f for f in reconcile.reconcile_pod(allocation, placed, IDS, oracle)}
    assert findings[("cpuset", "server")]["result"] == "agree"
    assert findings[("device_locality", "server")] == {
        "pod": "canary/inference", "container": "server", "check": "device_locality", "result": "disagree",
        "expected": [1], "observed": [0], "sources": {"expected": "locality oracle (sysfs)", "observed": "PodResources cpu_ids"},
        "message": "pod canary/inference container server: GPU %s (0000:9a:00.0) is local to NUMA node 1 (oracle, sysfs); "
                   "the pod's CPUs 2-7 are on NUMA node(s) 0" % GPU_UUID}
    assert findings[("memory_nodes", None)] == {
        "pod": "canary/inference", "container": None, "check": "memory_nodes", "result": "disagree", "expected": "1", "observed": "0",
        "sources": {"expected": "the pod's devices (locality oracle)", "observed": "cpuset.mems.effective"},
        "message": "pod canary/inference: containers may allocate on NUMA node(s) 0; expected 1 from the pod's devices (locality oracle)"}
    resident = findings[("resident_memory", None)]
    assert resident["result"] == "disagree"
    assert resident["observed"] == {"local_bytes": 0, "total_bytes": 512 * 4096, "fraction": 0.0, "normal_bytes": {"0": 512 * 4096}, "huge_bytes": {}}
    assert resident["message"] == ("pod canary/inference: 0 of 2097152 resident bytes (0.000000) on NUMA node(s) 1, at least 0.95 wanted")


def test_thread_outside_and_cgroup_wider_than_the_slice(tmp_path):
    oracle = locality.build(two_node_facts())
    allocation = allocations.reconcile_allocations(podresources("8-13", "8-11"), "pod", "0-15", None, oracle)["pods"][0]
    root = str(tmp_path)
    placed = tree(root, "8-13", "12-13", "1", "")
    findings = {(f["check"], f["container"]): f for f in reconcile.reconcile_pod(allocation, placed, IDS, oracle)}
    assert findings[("cpuset", "server")]["message"] == (
        "pod canary/inference container server: the kubelet's exclusive CPUs (PodResources cpu_ids) 8-11, the cgroup's effective CPUs are 8-13")
    assert findings[("thread_masks", "server")]["observed"] == {"100": "8-13", "101": "8-13"}
    assert findings[("resident_memory", None)]["message"] == "pod canary/inference: 0 of 0 resident bytes (no pages) on NUMA node(s) 1, at least 0.95 wanted"


def test_unknown_device_and_missing_cgroup_are_unknown_not_agreement(tmp_path):
    oracle = locality.build(two_node_facts())
    allocation = allocations.reconcile_allocations(podresources("8-13", "8-11", side_gpu="GPU-not-here"), "pod", "0-15", None, oracle)["pods"][0]
    findings = reconcile.reconcile_pod(allocation, {"uid": UID, "found": False}, IDS, oracle)
    assert [(f["check"], f["result"], f["message"]) for f in findings] == [
        ("cpuset", "unknown", "pod canary/inference container server: no cgroup for container %s under the pod's cgroup" % MAIN),
        ("cpuset", "unknown", "pod canary/inference container sidecar: no cgroup for container %s under the pod's cgroup" % SIDE),
        ("device_locality", "unknown", "pod canary/inference container server: DEVICE GPU-not-here (nvidia.com/gpu) is not in the facts: "
                                       "its locality is unknown, not agreement"),
        ("pod_cgroup", "unknown", "pod canary/inference: its cgroup was not found on the node")]
