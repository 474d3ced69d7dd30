"""The check after a rehearsed rollback: workloads named, their return, PodResources at container scope (exact values)."""

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._rehearsal import workloads as rw

from ansible_collections.gpusmith.numa_gate.tests.unit.plugins.module_utils._rehearsal.rehearsal_pods import (
    AGENT, BEFORE, CACHE, CACHE_UID, DS_UID, NODE, RS_UID, WEB, pod)

BEFORE_WORKLOADS = {
    "workloads": [
        {"owner": "DaemonSet/kube-system/node-agent", "kind": "DaemonSet", "namespace": "kube-system", "name": "node-agent", "uid": DS_UID,
         "pods": [{"name": "node-agent-hx4tq", "uid": "u-agent-1", "ready": True, "container_ids": {}}]},
        {"owner": "ReplicaSet/default/cache-5b8d4c", "kind": "ReplicaSet", "namespace": "default", "name": "cache-5b8d4c", "uid": CACHE_UID,
         "pods": [{"name": "cache-5b8d4c-w7rtl", "uid": "u-cache-1", "ready": True, "container_ids": {}}]},
        {"owner": "ReplicaSet/default/web-7c9f5d", "kind": "ReplicaSet", "namespace": "default", "name": "web-7c9f5d", "uid": RS_UID,
         "pods": [{"name": "web-7c9f5d-m8z4n", "uid": "u-web-2", "ready": True, "container_ids": {}},
                  {"name": "web-7c9f5d-q2xkp", "uid": "u-web-1", "ready": True, "container_ids": {}}]},
    ],
    "unowned": ["default/debug-shell", "kube-system/kube-proxy-gpu-node-1"],
}

ALL_BACK = [
    pod("node-agent-hx4tq", "u-agent-1", AGENT, namespace="kube-system"),
    pod("web-7c9f5d-bz4kq", "u-web-3", WEB),
    pod("web-7c9f5d-x9lmp", "u-web-4", WEB),
    pod("cache-5b8d4c-pq7rs", "u-cache-2", CACHE),
]


def test_the_nodes_workloads_are_its_controllers_active_pods_grouped_by_owner():
    assert rw.workloads(BEFORE, NODE) == BEFORE_WORKLOADS


def test_every_workload_back_with_new_pods_and_the_daemonsets_pod_kept():
    result = rw.came_back(BEFORE_WORKLOADS, ALL_BACK, NODE)
    assert result["back"] is True and result["missing"] == []
    assert [(w["owner"], w["state"], w["expected"], w["ready"]) for w in result["workloads"]] == [
        ("DaemonSet/kube-system/node-agent", "back", 1, 1), ("ReplicaSet/default/cache-5b8d4c", "back", 1, 1),
        ("ReplicaSet/default/web-7c9f5d", "back", 2, 2)]
    assert result["workloads"][0]["now"] == [{"name": "node-agent-hx4tq", "uid": "u-agent-1", "ready": True, "kept": True, "container_ids": {}}]
    assert result["workloads"][2]["before"] == ["web-7c9f5d-m8z4n", "web-7c9f5d-q2xkp"]


def test_a_replicaset_pod_that_is_the_old_one_does_not_count_and_a_gone_controller_is_missing():
    now = [pod("node-agent-hx4tq", "u-agent-1", AGENT, namespace="kube-system"),
           pod("web-7c9f5d-q2xkp", "u-web-1", WEB),  # the old pod: never evicted, not recreated
           pod("web-7c9f5d-x9lmp", "u-web-4", WEB, ready=False)]
    result = rw.came_back(BEFORE_WORKLOADS, now, NODE)
    assert result["back"] is False
    assert result["missing"] == ["ReplicaSet/default/cache-5b8d4c", "ReplicaSet/default/web-7c9f5d"]
    web = result["workloads"][2]
    assert (web["state"], web["ready"]) == ("not ready", 0)
    assert web["now"] == [{"name": "web-7c9f5d-q2xkp", "uid": "u-web-1", "ready": True, "kept": True, "container_ids": {}},
                          {"name": "web-7c9f5d-x9lmp", "uid": "u-web-4", "ready": False, "kept": False, "container_ids": {}}]
    assert rw.describe(result["workloads"][1]) == ("ReplicaSet/default/cache-5b8d4c: missing, 0 of 1 pods Ready on the node "
                                                   "(before: cache-5b8d4c-w7rtl)")
    assert rw.describe(web) == "ReplicaSet/default/web-7c9f5d: not ready, 0 of 2 pods Ready on the node (before: web-7c9f5d-m8z4n, web-7c9f5d-q2xkp)"


def test_a_pod_recreated_on_another_node_is_missing_from_this_one():
    now = [pod("cache-5b8d4c-pq7rs", "u-cache-2", CACHE, node="gpu-node-2")]
    result = rw.came_back({"workloads": BEFORE_WORKLOADS["workloads"][1:2]}, now, NODE)
    assert (result["workloads"][0]["state"], result["missing"]) == ("missing", ["ReplicaSet/default/cache-5b8d4c"])


def listed(name, namespace="default", cpu_ids="", memory=()):
    return {"name": name, "namespace": namespace, "cpu_ids": cpu_ids, "memory": list(memory), "containers": [{"name": "c", "cpu_ids": ""}]}


PR_PODS = [listed("node-agent-hx4tq", "kube-system"), listed("web-7c9f5d-bz4kq"), listed("web-7c9f5d-x9lmp"), listed("cache-5b8d4c-pq7rs")]
PR_OK = {"reachable": True, "findings": [], "pods": PR_PODS}


def test_podresources_at_container_scope_leaves_nothing():
    assert rw.pod_level_left(rw.came_back(BEFORE_WORKLOADS, ALL_BACK, NODE), PR_OK) == []


def test_pod_level_sets_left_and_a_pod_podresources_does_not_list_are_named():
    pods = [listed("node-agent-hx4tq", "kube-system"), listed("web-7c9f5d-bz4kq", cpu_ids="2-3"),
            listed("web-7c9f5d-x9lmp", memory=[{"memory_type": "memory", "size": 1073741824, "numa_nodes": [0]}])]
    assert rw.pod_level_left(rw.came_back(BEFORE_WORKLOADS, ALL_BACK, NODE), dict(PR_OK, pods=pods)) == [
        "default/cache-5b8d4c-pq7rs (ReplicaSet/default/cache-5b8d4c) is not listed by PodResources",
        "default/web-7c9f5d-bz4kq still has a pod-level CPU set 2-3 in PodResources",
        "default/web-7c9f5d-x9lmp still has pod-level memory memory on NUMA 0 in PodResources"]


def test_podresources_not_read_is_never_agreement():
    said = {"reachable": False, "pods": [], "findings": [{"check": "podresources_socket", "result": "unknown",
                                                          "message": "no socket at /var/lib/kubelet/pod-resources/kubelet.sock"}]}
    back = rw.came_back(BEFORE_WORKLOADS, ALL_BACK, NODE)
    assert rw.pod_level_left(back, said) == ["PodResources was not read on the node after the rollback: no socket at "
                                             "/var/lib/kubelet/pod-resources/kubelet.sock: container scope is unknown"]
    assert rw.pod_level_left(back, None) == ["PodResources was not read on the node after the rollback: container scope is unknown"]


def observed(now):
    return dict(rw.came_back(BEFORE_WORKLOADS, now, NODE), unowned=["default/debug-shell"], observed_at="2026-12-01T09:05:00.000000Z",
                waited_s=4.5, timeout_s=120)


def test_the_kept_check_when_everything_reconciled():
    assert rw.check("20261201T090300Z", NODE, observed(ALL_BACK), PR_OK) == {
        "schema_version": 1, "rollback": "20261201T090300Z", "node": NODE, "observed_at": "2026-12-01T09:05:00.000000Z",
        "waited_s": 4.5, "timeout_s": 120,
        "workloads": [
            {"owner": "DaemonSet/kube-system/node-agent", "state": "back", "expected": 1, "ready": 1, "before": ["node-agent-hx4tq"],
             "now": ["node-agent-hx4tq"]},
            {"owner": "ReplicaSet/default/cache-5b8d4c", "state": "back", "expected": 1, "ready": 1, "before": ["cache-5b8d4c-w7rtl"],
             "now": ["cache-5b8d4c-pq7rs"]},
            {"owner": "ReplicaSet/default/web-7c9f5d", "state": "back", "expected": 2, "ready": 2, "before": ["web-7c9f5d-m8z4n", "web-7c9f5d-q2xkp"],
             "now": ["web-7c9f5d-bz4kq", "web-7c9f5d-x9lmp"]}],
        "unowned": ["default/debug-shell"], "came_back": True, "missing": [],
        "pod_resources": {"read": True, "problems": []}, "placement": None, "restarts": None, "problems": [], "reconciled": True}


RECHECK = {"checked": 2, "pods": [
    {"pod": "default/web-7c9f5d-bz4kq", "uid": "u-web-3", "owner": "ReplicaSet/default/web-7c9f5d", "findings": [
        {"check": "cpuset", "container": "c", "result": "agree", "message": "ok"}]},
    {"pod": "default/web-7c9f5d-x9lmp", "uid": "u-web-4", "owner": "ReplicaSet/default/web-7c9f5d", "findings": [
        {"check": "cpuset", "container": "c", "result": "disagree", "message": "pod default/web-7c9f5d-x9lmp container c runs on CPUs 0-7, not 2-3"}]}],
    "problems": ["default/web-7c9f5d-x9lmp: cpuset disagree: pod default/web-7c9f5d-x9lmp container c runs on CPUs 0-7, not 2-3"]}


def test_a_recreated_pod_placed_elsewhere_than_podresources_says_is_not_reconciled_though_ready():
    kept = rw.check("r1", NODE, observed(ALL_BACK), PR_OK, placement=RECHECK)
    assert (kept["came_back"], kept["reconciled"]) == (True, False)
    assert kept["placement"] == {"checked": 2, "problems": RECHECK["problems"], "pods": [
        {"pod": "default/web-7c9f5d-bz4kq", "owner": "ReplicaSet/default/web-7c9f5d", "checks": [["cpuset", "c", "agree"]]},
        {"pod": "default/web-7c9f5d-x9lmp", "owner": "ReplicaSet/default/web-7c9f5d", "checks": [["cpuset", "c", "disagree"]]}]}
    assert kept["problems"] == RECHECK["problems"]
    agreeing = dict(RECHECK, problems=[], pods=RECHECK["pods"][:1], checked=1)
    assert rw.check("r1", NODE, observed(ALL_BACK), PR_OK, placement=agreeing)["reconciled"] is True


def test_a_restarted_main_container_must_keep_its_allocation():
    held = {"pod": "default/web-7c9f5d-bz4kq", "container": "main", "restarted": True, "restart_count": 1, "changes": [], "error": None}
    kept = rw.check("r1", NODE, observed(ALL_BACK), PR_OK, restarts=[held])
    assert kept["reconciled"] is True
    assert kept["restarts"] == [dict(held, problems=[])]
    moved = dict(held, changes=["pod default/web-7c9f5d-bz4kq container main: its exclusive CPUs changed with the restart: 2-3 before, 6-7 after"])
    kept = rw.check("r1", NODE, observed(ALL_BACK), PR_OK, restarts=[moved])
    assert (kept["reconciled"], kept["problems"]) == (False, [
        "after the restart of default/web-7c9f5d-bz4kq's container main: pod default/web-7c9f5d-bz4kq container main: its exclusive CPUs changed "
        "with the restart: 2-3 before, 6-7 after"])
    unseen = dict(held, restarted=False, restart_count=0, error="the container's restart count stayed 0 within 60 s")
    assert rw.check("r1", NODE, observed(ALL_BACK), PR_OK, restarts=[unseen])["problems"] == [
        "the restart of default/web-7c9f5d-bz4kq's container main was asked but not seen: the container's restart count stayed 0 within 60 s"]


def test_the_kept_check_names_what_did_not_come_back():
    now = [pod("node-agent-hx4tq", "u-agent-1", AGENT, namespace="kube-system"), pod("web-7c9f5d-bz4kq", "u-web-3", WEB),
           pod("web-7c9f5d-x9lmp", "u-web-4", WEB)]
    kept = rw.check("r1", NODE, observed(now), PR_OK)
    assert (kept["came_back"], kept["reconciled"], kept["missing"]) == (False, False, ["ReplicaSet/default/cache-5b8d4c"])
    assert kept["problems"] == ["ReplicaSet/default/cache-5b8d4c: missing, 0 of 1 pods Ready on the node (before: cache-5b8d4c-w7rtl)"]


def test_progress_lines():
    waiting = rw.came_back(BEFORE_WORKLOADS, ALL_BACK[:2], NODE)
    assert rw.progress_line(NODE, waiting, 6.7, 120) == (
        "rehearsal gpu-node-1: 1 of 3 workloads back after the rollback, 6s of 120s; waiting for "
        "ReplicaSet/default/cache-5b8d4c (missing, 0 of 1 Ready), ReplicaSet/default/web-7c9f5d (not ready, 1 of 2 Ready)")
    assert rw.progress_line(NODE, rw.came_back(BEFORE_WORKLOADS, ALL_BACK, NODE), 9, 120) == (
        "rehearsal gpu-node-1: 3 of 3 workloads back after the rollback, 9s of 120s")


def test_each_pod_names_its_containers_ids_for_the_placement_recheck():
    """containerStatuses and restartable init containers' initContainerStatuses name the cgroups; a container not started has no ID yet."""
    made = pod("web-7c9f5d-zz9kq", "u-web-3", WEB)
    made["status"]["containerStatuses"] = [{"name": "main", "containerID": "containerd://" + "a" * 64}, {"name": "waiting", "containerID": ""}]
    made["status"]["initContainerStatuses"] = [{"name": "sidecar", "containerID": "containerd://" + "b" * 64}]
    (found,) = rw.workloads([made], NODE)["workloads"]
    assert found["pods"][0]["container_ids"] == {"main": "containerd://" + "a" * 64, "sidecar": "containerd://" + "b" * 64}
