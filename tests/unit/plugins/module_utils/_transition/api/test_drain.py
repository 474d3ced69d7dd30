# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The drain against the API server double: kubectl's semantics, the bound, the progress lines."""

import time

import pytest

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._transition.api import cordon, drain

FAST = drain.DEFAULT_OPTIONS._replace(timeout=20, poll=0.2, wait_poll=0.2)


def seeded(double):
    """Node n1 with two ReplicaSet pods (1 s grace), a DaemonSet pod and a mirror pod; n2 with a pod of its own."""
    double.add_node("n1")
    double.add_node("n2")
    double.add_pod("web-1", "n1", owner_kind="ReplicaSet", owner_name="web", labels={"app": "web"}, grace=1)
    double.add_pod("web-2", "n1", owner_kind="ReplicaSet", owner_name="web", labels={"app": "web"}, grace=1)
    double.add_pod("agent-n1", "n1", namespace="kube-system", owner_kind="DaemonSet", owner_name="agent", labels={"app": "agent"})
    double.add_pod("etcd-n1", "n1", namespace="kube-system", mirror=True)
    double.add_pod("web-3", "n2", owner_kind="ReplicaSet", owner_name="web", labels={"app": "web"})


def evictions(double):
    return [path for method, path in double.requests if method == "POST" and path.endswith("/eviction")]


def writes(double):
    return [(method, path) for method, path in double.requests if method != "GET"]


def test_drain_evicts_replicaset_pods_leaves_daemonset_and_mirror_pods_and_waits_for_deletion(double, kube):
    seeded(double)
    lines = []
    started = time.monotonic()
    result = drain.drain(kube, "n1", FAST, display=lines.append)
    assert time.monotonic() - started >= 1.0  # the double deletes after the 1 s grace period
    assert result["waited_s"] >= 1.0
    assert result == {
        "changed": True, "was_unschedulable": False, "cordoned": True,
        "evicted": ["default/web-1", "default/web-2"],
        "skipped_pods": [{"pod": "kube-system/agent-n1", "reason": "DaemonSet-managed"},
                         {"pod": "kube-system/etcd-n1", "reason": "mirror pod (a static pod the kubelet runs from a file)"}],
        "pod_warnings": [], "waited_s": result["waited_s"],
    }
    assert double.pod_names("n1") == ["kube-system/agent-n1", "kube-system/etcd-n1"]
    assert double.pod_names("n2") == ["default/web-3"]
    assert double.node("n1")["spec"] == {"unschedulable": True}
    assert evictions(double) == ["/api/v1/namespaces/default/pods/web-1/eviction", "/api/v1/namespaces/default/pods/web-2/eviction"]
    assert writes(double)[0] == ("PATCH", "/api/v1/nodes/n1")  # cordon first
    assert lines[0] == "drain n1: evicting 2 pods (default/web-1, default/web-2)"
    assert lines[1] == "drain n1: 2 pods left (web-1, web-2), 0s of 20s"
    assert len(lines) >= 5
    assert all(line.startswith("drain n1: 2 pods left (web-1, web-2), ") and line.endswith(" of 20s") for line in lines[1:])


def test_a_drained_node_with_nothing_left_reports_no_change(double, kube):
    seeded(double)
    drain.drain(kube, "n1", FAST)
    before = len(writes(double))
    again = drain.drain(kube, "n1", FAST)
    assert again["changed"] is False
    assert again["cordoned"] is False
    assert again["was_unschedulable"] is True
    assert again["evicted"] == []
    assert len(writes(double)) == before


def test_a_node_cordoned_by_someone_else_is_reported_so(double, kube):
    double.add_node("n1", unschedulable=True)
    double.add_pod("web-1", "n1", owner_kind="ReplicaSet", owner_name="web", labels={"app": "web"}, grace=0)
    result = drain.drain(kube, "n1", FAST)
    assert (result["changed"], result["cordoned"], result["was_unschedulable"], result["evicted"]) == (True, False, True, ["default/web-1"])
    assert [m for m, _p in writes(double)] == ["POST"]


def test_pdb_blocked_drain_retries_every_poll_then_fails_naming_pod_and_budget(double, kube, clock):
    double.add_node("n1")
    double.add_pod("db-0", "n1", owner_kind="ReplicaSet", owner_name="db", labels={"app": "db"})
    double.add_pdb("db-pdb", {"app": "db"}, min_available=1)
    lines = []
    options = drain.DEFAULT_OPTIONS._replace(timeout=20, poll=5)
    with pytest.raises(drain.DrainError) as caught:
        drain.drain(kube, "n1", options, display=lines.append, clock=clock, sleep=clock.sleep)
    assert str(caught.value) == (
        "drain n1: timed out after 20s (timeout 20s) with 1 pod left: default/db-0 (eviction refused: Cannot evict pod as it would "
        "violate the pod's disruption budget; PodDisruptionBudget db-pdb (minAvailable 1, 0 disruptions allowed, 1 healthy of 1 desired)); "
        "node n1 stays cordoned (this task cordoned it)")
    assert lines == ["drain n1: evicting 1 pod (default/db-0)"] + [
        "drain n1: 1 pod left (db-0), %ds of 20s; blocked by PDB db-pdb (allows 0 disruptions)" % t for t in (0, 5, 10, 15)]
    assert clock.sleeps == [5, 5, 5, 5]
    assert len(evictions(double)) == 5
    details = caught.value.details
    assert details["cordoned"] is True
    assert details["was_unschedulable"] is False
    assert details["evicted"] == []
    assert details["pending"] == ["default/db-0"]
    assert details["waited_s"] == 20.0
    assert details["blocked"] == [{"pod": "default/db-0", "message": "Cannot evict pod as it would violate the pod's disruption budget.",
                                   "budgets": [{"name": "db-pdb", "spec": {"selector": {"matchLabels": {"app": "db"}}, "minAvailable": 1},
                                                "status": {"disruptionsAllowed": 0, "currentHealthy": 1, "desiredHealthy": 1, "expectedPods": 1}}]}]
    assert double.pod_names("n1") == ["default/db-0"]
    assert double.node("n1")["spec"] == {"unschedulable": True}


def test_a_budget_that_frees_up_lets_the_retry_through(double, kube, clock):
    double.add_node("n1")
    double.add_pod("db-0", "n1", owner_kind="ReplicaSet", owner_name="db", labels={"app": "db"}, grace=0)
    double.add_pdb("db-pdb", {"app": "db"}, max_unavailable=0)
    clock.hooks.append(lambda: double.store.remove("poddisruptionbudgets", "default", "db-pdb"))
    lines = []
    result = drain.drain(kube, "n1", drain.DEFAULT_OPTIONS._replace(timeout=20, poll=5), display=lines.append, clock=clock, sleep=clock.sleep)
    assert result["evicted"] == ["default/db-0"]
    assert result["waited_s"] == 5.0
    assert lines == ["drain n1: evicting 1 pod (default/db-0)",
                     "drain n1: 1 pod left (db-0), 0s of 20s; blocked by PDB db-pdb (allows 0 disruptions)"]
    assert double.pod_names("n1") == []


def test_deletion_is_awaited_by_uid_a_new_pod_of_the_same_name_counts_as_gone(double, kube, clock):
    double.add_node("n1")
    first = double.add_pod("db-0", "n1", owner_kind="ReplicaSet", owner_name="db", labels={"app": "db"}, grace=3600)

    def recreate():
        double.store.remove("pods", "default", "db-0")
        double.add_pod("db-0", "n1", owner_kind="ReplicaSet", owner_name="db", labels={"app": "db"})

    clock.hooks.append(lambda: None)
    clock.hooks.append(recreate)
    lines = []
    result = drain.drain(kube, "n1", drain.DEFAULT_OPTIONS._replace(timeout=60, poll=1), display=lines.append, clock=clock, sleep=clock.sleep)
    assert result["evicted"] == ["default/db-0"]
    assert lines[1:] == ["drain n1: 1 pod left (db-0), 0s of 60s", "drain n1: 1 pod left (db-0), 1s of 60s"]
    assert double.pod("db-0")["metadata"]["uid"] != first["metadata"]["uid"]


def test_a_pod_still_terminating_at_the_bound_is_named_so(double, kube, clock):
    double.add_node("n1")
    double.add_pod("web-1", "n1", owner_kind="ReplicaSet", owner_name="web", labels={"app": "web"}, grace=3600)
    with pytest.raises(drain.DrainError) as caught:
        drain.drain(kube, "n1", drain.DEFAULT_OPTIONS._replace(timeout=4, poll=3), clock=clock, sleep=clock.sleep)
    assert str(caught.value) == ("drain n1: timed out after 4s (timeout 4s) with 1 pod left: default/web-1 (evicted, still terminating); "
                                 "node n1 stays cordoned (this task cordoned it)")
    assert clock.sleeps == [1, 1, 1, 1]  # deletion is checked every second (kubectl's waitForDelete), not every poll
    assert caught.value.details["evicted"] == ["default/web-1"]


def test_unmanaged_and_emptydir_pods_refuse_without_force_and_nothing_is_evicted(double, kube):
    double.add_node("n1")
    double.add_pod("lonely", "n1", grace=0)
    double.add_pod("scratch", "n1", owner_kind="ReplicaSet", owner_name="scratch", labels={"app": "scratch"}, emptydir=True, grace=0)
    double.add_pod("web-1", "n1", owner_kind="ReplicaSet", owner_name="web", labels={"app": "web"}, grace=0)
    with pytest.raises(drain.DrainError) as caught:
        drain.drain(kube, "n1", FAST)
    assert str(caught.value) == (
        "drain n1 refused: cannot delete Pods that declare no controller (use force=true to override): default/lonely; "
        "cannot delete Pods with local storage (use delete_emptydir_data=true to override): default/scratch; "
        "nothing was evicted; node n1 stays cordoned (this task cordoned it)")
    assert caught.value.details["would_evict"] == ["default/web-1"]
    assert caught.value.details["cordoned"] is True
    assert evictions(double) == []
    assert double.pod_names("n1") == ["default/lonely", "default/scratch", "default/web-1"]
    forced = drain.drain(kube, "n1", FAST._replace(force=True, delete_emptydir_data=True))
    assert forced["evicted"] == ["default/lonely", "default/scratch", "default/web-1"]
    # kubectl keeps the last filter's status: the managed emptyDir pod's warning is dropped, as there.
    assert forced["pod_warnings"] == ["deleting Pods that declare no controller: default/lonely"]
    assert forced["cordoned"] is False
    assert double.pod_names("n1") == []


def test_daemonset_pods_refuse_without_ignore_daemonsets_and_orphans_need_force(double, kube):
    double.add_node("n1")
    double.add_pod("agent-n1", "n1", owner_kind="DaemonSet", owner_name="agent", labels={"app": "agent"}, grace=0)
    double.add_pod("ghost-n1", "n1", owner_kind="DaemonSet", owner_name="ghost", labels={"app": "ghost"}, create_owner=False, grace=0)
    with pytest.raises(drain.DrainError) as caught:
        drain.drain(kube, "n1", FAST._replace(ignore_daemonsets=False))
    assert str(caught.value) == (
        "drain n1 refused: cannot delete DaemonSet-managed Pods (use ignore_daemonsets=true to ignore): default/agent-n1; "
        "cannot delete daemonsets.apps \"ghost\" not found: default/ghost-n1; nothing was evicted; node n1 stays cordoned (this task cordoned it)")
    forced = drain.drain(kube, "n1", FAST._replace(force=True))
    assert forced["evicted"] == ["default/ghost-n1"]
    assert forced["skipped_pods"] == [{"pod": "default/agent-n1", "reason": "DaemonSet-managed"}]
    # As in kubectl, a later filter's "ok" replaces the orphan's warning (filters.go keeps the last status).
    assert forced["pod_warnings"] == []
    assert forced["cordoned"] is False and forced["was_unschedulable"] is True


def test_finished_pods_are_evicted_without_force_as_kubectl_does(double, kube):
    double.add_node("n1")
    double.add_pod("job-done", "n1", phase="Succeeded", ready=False, emptydir=True)
    double.add_pod("job-failed", "n1", phase="Failed", ready=False, owner_kind="DaemonSet", owner_name="agent", labels={"a": "b"})
    result = drain.drain(kube, "n1", FAST)
    assert result["evicted"] == ["default/job-done", "default/job-failed"]
    assert result["skipped_pods"] == []
    assert double.pod_names("n1") == []


def test_check_mode_reports_what_would_happen_and_changes_nothing(double, kube):
    seeded(double)
    lines = []
    result = drain.drain(kube, "n1", FAST, check_mode=True, display=lines.append)
    assert result == {
        "changed": True, "was_unschedulable": False, "cordoned": True, "evicted": ["default/web-1", "default/web-2"],
        "skipped_pods": [{"pod": "kube-system/agent-n1", "reason": "DaemonSet-managed"},
                         {"pod": "kube-system/etcd-n1", "reason": "mirror pod (a static pod the kubelet runs from a file)"}],
        "pod_warnings": [], "waited_s": 0.0}
    assert writes(double) == []
    assert lines == []
    assert double.node("n1")["spec"] == {}
    assert double.pod_names("n1") == ["default/web-1", "default/web-2", "kube-system/agent-n1", "kube-system/etcd-n1"]


def test_disable_eviction_deletes_without_asking_the_budget(double, kube):
    double.add_node("n1")
    double.add_pod("db-0", "n1", owner_kind="ReplicaSet", owner_name="db", labels={"app": "db"})
    double.add_pdb("db-pdb", {"app": "db"}, min_available=1)
    result = drain.drain(kube, "n1", FAST._replace(disable_eviction=True, grace_period=0))
    assert result["evicted"] == ["default/db-0"]
    assert evictions(double) == []
    assert ("DELETE", "/api/v1/namespaces/default/pods/db-0") in writes(double)
    assert double.pod_names("n1") == []


def test_grace_period_is_sent_in_the_eviction_delete_options(double, kube):
    double.add_node("n1")
    double.add_pod("web-1", "n1", owner_kind="ReplicaSet", owner_name="web", labels={"app": "web"}, grace=3600)
    result = drain.drain(kube, "n1", FAST._replace(grace_period=0))
    assert result["evicted"] == ["default/web-1"]
    assert double.pod_names("n1") == []


def test_cordon_and_uncordon_are_idempotent(double, kube):
    double.add_node("n1")
    assert cordon.set_unschedulable(kube, "n1", True, check_mode=True) == (True, False)
    assert double.node("n1")["spec"] == {}
    assert cordon.set_unschedulable(kube, "n1", True) == (True, False)
    assert cordon.set_unschedulable(kube, "n1", True) == (False, True)
    assert double.node("n1")["spec"] == {"unschedulable": True}
    assert cordon.set_unschedulable(kube, "n1", False) == (True, True)
    assert cordon.set_unschedulable(kube, "n1", False) == (False, False)
    assert double.node("n1")["spec"] == {}
    assert [m for m, _p in writes(double)] == ["PATCH", "PATCH"]


def test_an_unknown_node_is_named(double, kube):
    with pytest.raises(cordon.NumaGateError) as caught:
        drain.drain(kube, "nope", FAST)
    assert str(caught.value) == "node nope is not registered in the cluster (%s)" % double.url
