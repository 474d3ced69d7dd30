"""reconcile.recheck: the pods a rehearsed rollback recreated get the canary's checks (the recorded H200 tree, read with the real
placement reader), exact values."""

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence.placement import read as placement
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence.podresources import allocations
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence.reconcile import recheck
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._plan import locality
from ansible_collections.gpusmith.numa_gate.tests.unit.plugins.module_utils._record import record_inputs as ri

IDS = {"main": "containerd://" + ri.MAIN, "metrics": "containerd://" + ri.METRICS_ID, "logging": "containerd://" + ri.LOGGING_ID}
OWNER = "ReplicaSet/canary/pod-numa-allocation-canary-rs"


def _after(ready=True, ids=None):
    return {"workloads": [{"owner": OWNER, "namespace": "canary", "now": [
        {"name": "pod-numa-allocation-canary", "uid": ri.UID, "ready": ready, "kept": False, "container_ids": IDS if ids is None else ids}]}]}


def _reads(root, scope, pods=None):
    facts = ri.h200_facts()
    ri.full_inputs(root, facts)  # writes the canary's cgroup tree (main on 2-3, metrics and logging on 4-5, memory on node 0)
    pods = ri.canary_pods() if pods is None else pods
    reconciled = allocations.reconcile_allocations(pods, scope, facts["cpus"]["online"], None, locality.build(facts))
    tree, placed = placement.read_pods(root, [ri.UID])
    return facts, {"reachable": True, "pods": pods, "reconciled": reconciled}, {"cgroup": tree, "pods": placed, "processes": []}


def test_a_recreated_pod_placed_as_the_kubelet_says_agrees_on_every_check(tmp_path):
    facts, resources, placed = _reads(str(tmp_path), "pod")
    result = recheck.recheck(resources, placed, _after(), facts)
    assert (result["checked"], result["problems"]) == (1, [])
    (pod,) = result["pods"]
    assert (pod["pod"], pod["uid"], pod["owner"], pod["main"]) == (ri.CANARY, ri.UID, OWNER, None)
    assert [(f["check"], f["container"], f["result"]) for f in pod["findings"]] == [
        ("cpuset", "logging", "agree"), ("thread_masks", "logging", "agree"), ("cpuset", "main", "agree"), ("thread_masks", "main", "agree"),
        ("cpuset", "metrics", "agree"), ("thread_masks", "metrics", "agree"), ("device_locality", "main", "agree"), ("memory_nodes", None, "agree"),
        ("resident_memory", None, "agree")]


def test_a_recreated_pod_whose_cgroups_disagree_with_the_kubelet_is_a_problem_not_only_ready(tmp_path):
    """The kubelet now says main has CPUs 6-7 exclusive (container scope after the rollback); the cgroups still show 2-3."""
    pods = ri.canary_pods(pod_cpus="", main_cpus="6-7")
    facts, resources, placed = _reads(str(tmp_path), "container", pods)
    result = recheck.recheck(resources, placed, _after(), facts)
    main = [f for f in result["pods"][0]["findings"] if f["container"] == "main" and f["check"] == "cpuset"]
    assert [f["result"] for f in main] == ["disagree"]
    assert "%s: cpuset disagree: %s" % (ri.CANARY, main[0]["message"]) in result["problems"]


def test_unknown_is_never_agreement(tmp_path):
    facts, resources, placed = _reads(str(tmp_path), "pod")
    assert recheck.recheck(None, placed, _after(), facts)["problems"] == [
        "%s: recheck_read unknown: pod %s: PodResources (pod_resources_info) was not read, so its placement after the rollback is unknown"
        % (ri.CANARY, ri.CANARY)]
    failed = {"msg": "cgroup root /sys/fs/cgroup is not readable"}
    assert recheck.recheck(resources, failed, _after(), facts)["problems"] == [
        "%s: recheck_read unknown: pod %s: placement_info failed: cgroup root /sys/fs/cgroup is not readable, so its placement after the "
        "rollback is unknown" % (ri.CANARY, ri.CANARY)]
    assert recheck.recheck(dict(resources, reconciled={"pods": []}), placed, _after(), facts)["problems"] == [
        "%s: recheck_allocation unknown: pod %s is not listed by PodResources after the rollback" % (ri.CANARY, ri.CANARY)]
    gone = {"pods": [{"uid": ri.UID, "found": False}]}
    assert recheck.recheck(resources, gone, _after(), facts)["problems"] == [
        "%s: recheck_cgroup unknown: pod %s (uid %s): placement_info found no cgroup for it after the rollback" % (ri.CANARY, ri.CANARY, ri.UID)]
    # a pod not Ready is the workload check's problem (not back), not checked here
    assert recheck.recheck(resources, placed, _after(ready=False), facts) == {"pods": [], "problems": [], "checked": 0}


def test_the_main_container_is_named_with_its_cgroup_and_processes_for_the_restart(tmp_path):
    facts, resources, placed = _reads(str(tmp_path), "pod")
    (pod,) = recheck.recheck(resources, placed, _after(), facts, main_container="main")["pods"]
    assert pod["main"] == {"container": "main", "id": ri.MAIN, "cgroup": placed["pods"][0]["containers"][0]["cgroup"], "pids": [100]}
    assert recheck.recheck(resources, placed, _after(), facts, main_container="trainer")["pods"][0]["main"] is None


def test_a_pod_on_the_shared_pool_without_devices_is_not_held_to_memory_locality(tmp_path):
    """The kubelet gives such a pod no NUMA node: memory_nodes and resident_memory have nothing to hold it to; its CPU checks stay."""
    pods = ri.canary_pods(pod_cpus="", main_cpus="")
    for container in pods[0]["containers"]:
        container["devices"] = []
    facts, resources, placed = _reads(str(tmp_path), "container", pods)
    (pod,) = recheck.recheck(resources, placed, _after(), facts)["pods"]
    assert sorted({f["check"] for f in pod["findings"]}) == ["cpuset", "thread_masks"]
