# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The drain checked before the cordon, against the API server double: dry-run evictions, refused pods, pods summed per budget."""

import pytest

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._transition.api import drain, dry_run

OPTIONS = drain.DEFAULT_OPTIONS
NOTHING = "checked before the cordon by a server-side dry run; nothing was cordoned or evicted"


def writes(double):
    return [(method, path) for method, path in double.requests if method not in ("GET",)]


def seeded(double, replicas=2, min_available=1):
    """Node n1 with ``replicas`` db pods under one budget (the ReplicaSet's other pods on n2), and a DaemonSet pod."""
    double.add_node("n1")
    double.add_node("n2")
    for index in range(replicas):
        double.add_pod("db-%d" % index, "n1", owner_kind="ReplicaSet", owner_name="db", labels={"app": "db"})
    double.add_pod("db-9", "n2", owner_kind="ReplicaSet", owner_name="db", labels={"app": "db"})
    double.add_pod("agent-n1", "n1", namespace="kube-system", owner_kind="DaemonSet", owner_name="agent", labels={"app": "agent"})
    double.add_pdb("db-pdb", {"app": "db"}, min_available=min_available)


def test_a_drain_that_would_go_through_sends_only_dry_runs(double, kube):
    seeded(double, replicas=1)
    assert dry_run.check(kube, "n1", OPTIONS) == {
        "changed": False, "would_evict": ["default/db-0"],
        "skipped_pods": [{"pod": "kube-system/agent-n1", "reason": "DaemonSet-managed"}], "pod_warnings": [],
        "budgets": [{"budget": "default/db-pdb", "disruptions_allowed": 1, "pods": ["default/db-0"]}]}
    assert writes(double) == [("POST", "/api/v1/namespaces/default/pods/db-0/eviction")]
    assert double.pod_names("n1") == ["default/db-0", "kube-system/agent-n1"]
    assert double.node("n1")["spec"] == {}


def test_pods_that_pass_one_by_one_are_summed_per_budget(double, kube):
    # Three pods healthy, minAvailable 2: the budget allows 1; each dry run passes alone, the two on n1 together do not.
    seeded(double, replicas=2, min_available=2)
    with pytest.raises(dry_run.DryRunError) as caught:
        dry_run.check(kube, "n1", OPTIONS)
    assert str(caught.value) == (
        "the drain of n1 would not go through now: default/db-0, default/db-1 cannot all leave now: PodDisruptionBudget default/db-pdb "
        "allows 1 disruption and the drain would evict 2 of its pods (default/db-0, default/db-1); " + NOTHING)
    assert caught.value.details["budgets"] == [{"budget": "default/db-pdb", "disruptions_allowed": 1, "pods": ["default/db-0", "default/db-1"]}]
    assert [m for m, _p in writes(double)] == ["POST", "POST"]
    assert double.pod_names("n1") == ["default/db-0", "default/db-1", "kube-system/agent-n1"]


def test_a_pod_whose_budget_allows_nothing_refuses_naming_pod_budget_and_disruptions(double, kube):
    double.add_node("n1")
    double.add_pod("db-0", "n1", owner_kind="ReplicaSet", owner_name="db", labels={"app": "db"})
    double.add_pdb("db-pdb", {"app": "db"}, min_available=1)
    with pytest.raises(dry_run.DryRunError) as caught:
        dry_run.check(kube, "n1", OPTIONS)
    assert str(caught.value) == (
        "the drain of n1 would not go through now: default/db-0 cannot leave now: PodDisruptionBudget default/db-pdb allows 0 disruptions "
        "(Cannot evict pod as it would violate the pod's disruption budget); " + NOTHING)
    assert caught.value.details["refusals"] == [
        "default/db-0 cannot leave now: PodDisruptionBudget default/db-pdb allows 0 disruptions (Cannot evict pod as it would violate the pod's "
        "disruption budget)"]
    assert writes(double) == [("POST", "/api/v1/namespaces/default/pods/db-0/eviction")]
    assert double.pod_names("n1") == ["default/db-0"]


def test_pods_the_drain_would_refuse_refuse_first_and_nothing_is_sent(double, kube):
    double.add_node("n1")
    double.add_pod("debug", "n1")
    double.add_pod("web-1", "n1", owner_kind="ReplicaSet", owner_name="web", labels={"app": "web"})
    with pytest.raises(dry_run.DryRunError) as caught:
        dry_run.check(kube, "n1", OPTIONS)
    assert str(caught.value) == ("the drain of n1 would refuse: cannot delete Pods that declare no controller (use force=true to override): "
                                 "default/debug; " + NOTHING)
    assert caught.value.details["would_evict"] == ["default/web-1"]
    assert writes(double) == []


def test_force_lets_the_unmanaged_pod_through_with_its_warning(double, kube):
    double.add_node("n1")
    double.add_pod("debug", "n1")
    result = dry_run.check(kube, "n1", OPTIONS._replace(force=True))
    assert (result["would_evict"], result["pod_warnings"], result["budgets"]) == (
        ["default/debug"], ["deleting Pods that declare no controller: default/debug"], [])
    assert writes(double) == [("POST", "/api/v1/namespaces/default/pods/debug/eviction")]
    assert double.pod_names("n1") == ["default/debug"]


def test_finished_pods_are_not_counted_against_their_budget(double, kube):
    seeded(double, replicas=1, min_available=2)
    double.add_pod("db-old", "n1", owner_kind="ReplicaSet", owner_name="db", labels={"app": "db"}, phase="Succeeded")
    result = dry_run.check(kube, "n1", OPTIONS)
    assert result["would_evict"] == ["default/db-0", "default/db-old"]
    assert result["budgets"] == [{"budget": "default/db-pdb", "disruptions_allowed": 1, "pods": ["default/db-0"]}]
