# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The drain after an eviction error, its two cadences and what its progress lines call a blocker (kubectl's pkg/drain)."""

import pytest

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kube_api import api as kube_api
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._transition.api import budgets, drain

OPTIONS = drain.DEFAULT_OPTIONS._replace(timeout=20, poll=5)
STAYS = "; node n1 stays cordoned (this task cordoned it)"


def web_pods(double, names, grace=0, node="n1"):
    for name in names:
        double.add_pod(name, node, owner_kind="ReplicaSet", owner_name="web", labels={"app": "web"}, grace=grace)


def posts(double, pod):
    return [p for m, p in double.requests if m == "POST" and p == "/api/v1/namespaces/default/pods/%s/eviction" % pod]


def test_an_eviction_error_ends_that_pod_only_every_other_pod_is_evicted_then_the_drain_fails_naming_it(double, kube, clock):
    double.add_node("n1")
    web_pods(double, ["web-1", "web-2", "web-3"])
    double.fail_eviction("web-2", 500, "Internal error occurred: etcdserver: request timed out")
    lines = []
    with pytest.raises(drain.DrainError) as caught:
        drain.drain(kube, "n1", OPTIONS, display=lines.append, clock=clock, sleep=clock.sleep)
    assert str(caught.value) == (
        'drain n1: 1 pod left after an error: default/web-2 (error when evicting pods/"web-2" -n "default": Internal error occurred: '
        "etcdserver: request timed out); evicted 2 (default/web-1, default/web-3)" + STAYS)
    details = caught.value.details
    assert details["pending"] == ["default/web-2"]
    assert details["failed_pods"] == [{"pod": "default/web-2", "code": 500, "message": "Internal error occurred: etcdserver: request timed out"}]
    assert details["evicted"] == ["default/web-1", "default/web-3"]
    assert (details["changed"], details["cordoned"], details["was_unschedulable"]) == (True, True, False)
    assert "blocked" not in details
    assert double.pod_names("n1") == ["default/web-2"]
    assert [len(posts(double, p)) for p in ("web-1", "web-2", "web-3")] == [1, 1, 1]  # an error is not retried, as kubectl
    assert clock.sleeps == []
    assert lines == ["drain n1: evicting 3 pods (default/web-1, default/web-2, default/web-3)"]


def test_every_pod_an_error_ended_is_named_with_its_own_error(double, kube, clock):
    double.add_node("n1")
    web_pods(double, ["web-1", "web-2", "web-3"])
    double.fail_eviction("web-1", 403, 'pods "web-1" is forbidden: eviction denied by the policy webhook')
    double.fail_eviction("web-3", 500, "boom")
    with pytest.raises(drain.DrainError) as caught:
        drain.drain(kube, "n1", OPTIONS, clock=clock, sleep=clock.sleep)
    assert str(caught.value) == (
        'drain n1: 2 pods left after errors: default/web-1 (error when evicting pods/"web-1" -n "default": pods "web-1" is forbidden: '
        'eviction denied by the policy webhook); default/web-3 (error when evicting pods/"web-3" -n "default": boom); evicted 1 (default/web-2)'
        + STAYS)
    assert caught.value.details["pending"] == ["default/web-1", "default/web-3"]
    assert [f["code"] for f in caught.value.details["failed_pods"]] == [403, 500]


def test_an_error_while_others_wait_for_a_budget_is_named_with_them_at_the_bound(double, kube, clock):
    double.add_node("n1")
    double.add_pod("db-0", "n1", owner_kind="ReplicaSet", owner_name="db", labels={"app": "db"})
    double.add_pdb("db-pdb", {"app": "db"}, min_available=1)
    web_pods(double, ["web-1"])
    double.fail_eviction("web-1", 500, "boom")
    lines = []
    with pytest.raises(drain.DrainError) as caught:
        drain.drain(kube, "n1", OPTIONS._replace(timeout=10), display=lines.append, clock=clock, sleep=clock.sleep)
    assert str(caught.value) == (
        "drain n1: timed out after 10s (timeout 10s) with 2 pods left: default/db-0 (eviction refused: Cannot evict pod as it would violate "
        "the pod's disruption budget; PodDisruptionBudget db-pdb (minAvailable 1, 0 disruptions allowed, 1 healthy of 1 desired)); "
        'default/web-1 (error when evicting pods/"web-1" -n "default": boom)' + STAYS)
    assert caught.value.details["pending"] == ["default/db-0", "default/web-1"]
    assert caught.value.details["failed_pods"] == [{"pod": "default/web-1", "code": 500, "message": "boom"}]
    assert [b["pod"] for b in caught.value.details["blocked"]] == ["default/db-0"]
    assert lines[1:] == ["drain n1: 2 pods left (db-0, web-1), %ds of 10s; blocked by PDB db-pdb (allows 0 disruptions); failed: web-1" % t
                         for t in (0, 5)]
    assert len(posts(double, "web-1")) == 1


def test_deletion_is_checked_every_second_and_a_refused_eviction_retried_every_poll(double, kube, clock):
    double.add_node("n1")
    web_pods(double, ["web-1"], grace=3600)
    double.add_pod("db-0", "n1", owner_kind="ReplicaSet", owner_name="db", labels={"app": "db"})
    double.add_pdb("db-pdb", {"app": "db"}, min_available=1)
    lines = []
    with pytest.raises(drain.DrainError):
        drain.drain(kube, "n1", OPTIONS._replace(timeout=10), display=lines.append, clock=clock, sleep=clock.sleep)
    assert clock.sleeps == [1] * 10
    assert len(posts(double, "db-0")) == 3  # at 0, 5 and 10 s
    assert len(posts(double, "web-1")) == 1
    assert sum(1 for m, p in double.requests if (m, p) == ("GET", "/api/v1/namespaces/default/pods/web-1")) == 11  # at once, then every second
    assert lines[1:] == ["drain n1: 2 pods left (db-0, web-1), %ds of 10s; blocked by PDB db-pdb (allows 0 disruptions)" % t for t in (0, 5)]


def test_kubectl_cadence_is_the_default():
    assert (drain.DEFAULT_OPTIONS.poll, drain.DEFAULT_OPTIONS.wait_poll) == (5, 1.0)
    assert drain.DrainOptions(300, 5, True, False, False, None, False).wait_poll == 1.0


def test_a_budget_that_allows_a_disruption_is_not_called_the_blocker(double, kube, clock):
    double.add_node("n1")
    double.add_node("n2")
    web_pods(double, ["web-1"])
    web_pods(double, ["web-2"], node="n2")
    double.add_pdb("web-pdb", {"app": "web"}, min_available=1)
    double.fail_eviction("web-1", 429, "Too many requests, please try again later.")
    lines = []
    with pytest.raises(drain.DrainError) as caught:
        drain.drain(kube, "n1", OPTIONS._replace(timeout=5), display=lines.append, clock=clock, sleep=clock.sleep)
    assert lines[1:] == ["drain n1: 1 pod left (web-1), 0s of 5s; retrying default/web-1 (Too many requests, please try again later.)"]
    assert str(caught.value) == ("drain n1: timed out after 5s (timeout 5s) with 1 pod left: default/web-1 (eviction refused: Too many "
                                 "requests, please try again later)" + STAYS)
    # The result still lists the budget that covers the pod, with its status: it allows one disruption.
    assert caught.value.details["blocked"][0]["budgets"][0]["status"]["disruptionsAllowed"] == 1


class _FreedBeforeRead:
    """An api.Api whose first ``pdbs()`` read first runs ``hook`` (the budget frees up between the 429 and the progress line)."""

    def __init__(self, api, hook):
        self.api, self.hook = api, hook

    def __getattr__(self, name):
        return getattr(self.api, name)

    def pdbs(self, namespace):
        """Run the hook once, then read."""
        if self.hook is not None:
            self.hook, hook = None, self.hook
            hook()
        return self.api.pdbs(namespace)


def test_a_budget_that_refused_and_allows_a_disruption_now_is_retried_not_called_the_blocker(double, kube, clock):
    double.add_node("n1")
    double.add_node("n2")
    double.add_pod("db-0", "n1", owner_kind="ReplicaSet", owner_name="db", labels={"app": "db"}, grace=0)
    double.add_pdb("db-pdb", {"app": "db"}, min_available=1)
    api = _FreedBeforeRead(kube, lambda: double.add_pod("db-1", "n2", owner_kind="ReplicaSet", owner_name="db", labels={"app": "db"}))
    lines = []
    result = drain.drain(api, "n1", OPTIONS, display=lines.append, clock=clock, sleep=clock.sleep)
    assert lines[1:] == ["drain n1: 1 pod left (db-0), 0s of 20s; retrying default/db-0 (PDB db-pdb refused it, allows 1 disruption now)"]
    assert (result["evicted"], clock.sleeps) == (["default/db-0"], [5])


def test_blocking_budgets_are_those_allowing_none_or_still_being_processed():
    def pdb(name, allowed):
        return {"metadata": {"name": name}, "status": {"disruptionsAllowed": allowed}}

    full, free, lagging = pdb("full", 0), pdb("free", 1), pdb("lagging", 1)
    processing = [{"reason": "DisruptionBudget", "message": "The disruption budget lagging is still being processed by the server."}]
    assert budgets.blocking([full, free]) == [full]
    assert budgets.blocking([free]) == []
    assert budgets.blocking([free, lagging], processing) == [lagging]
    assert budgets.short(lagging, processing) == "PDB lagging (still being processed by the server)"
    assert budgets.short(free, processing) == "PDB free (allows 1 disruption)"
    assert budgets.short(full) == "PDB full (allows 0 disruptions)"
    refused = [{"reason": "DisruptionBudget", "message": "The disruption budget free needs 1 healthy pods and has 1 currently"}]
    assert budgets.named_in([full, free], refused) == [free]
    assert budgets.named_in([full, free], processing) == []
    assert budgets.blocking([free], refused) == []
    assert budgets.allows(free) == "allows 1 disruption"


class _Failing:
    """An api.Api whose ``method`` raises a KubeApiError for pod ``pod`` (``times`` times, or always)."""

    def __init__(self, api, method, pod, code=500, message="boom", times=None):
        self.api, self.method, self.pod, self.code, self.message, self.times = api, method, pod, code, message, times

    def __getattr__(self, name):
        real = getattr(self.api, name)
        if name != self.method:
            return real

        def call(namespace, pod, *args, **kwargs):
            if pod == self.pod and self.times != 0:
                self.times = None if self.times is None else self.times - 1
                raise kube_api.KubeApiError(self.message, code=self.code)
            return real(namespace, pod, *args, **kwargs)

        return call


def test_with_disable_eviction_the_first_delete_error_stops_the_drain_as_kubectls_delete_pods(double, kube, clock):
    double.add_node("n1")
    web_pods(double, ["web-1", "web-2", "web-3"])
    with pytest.raises(drain.DrainError) as caught:
        drain.drain(_Failing(kube, "delete_pod", "web-2"), "n1", OPTIONS._replace(disable_eviction=True), clock=clock, sleep=clock.sleep)
    assert str(caught.value) == (
        'drain n1: error when deleting pods/"web-2" -n "default": boom; the drain stopped there, as kubectl\'s deletePods does, with 2 pods '
        "left (default/web-2, default/web-3); deleted 1 (default/web-1)" + STAYS)
    assert caught.value.details["pending"] == ["default/web-2", "default/web-3"]
    assert caught.value.details["failed_pods"] == [{"pod": "default/web-2", "code": 500, "message": "boom"}]
    assert [p for m, p in double.requests if m == "DELETE"] == ["/api/v1/namespaces/default/pods/web-1"]
    assert double.pod_names("n1") == ["default/web-2", "default/web-3"]


def test_an_error_reading_an_evicted_pod_ends_that_pod_and_the_others_are_still_awaited(double, kube, clock):
    double.add_node("n1")
    web_pods(double, ["web-1", "web-2"])
    with pytest.raises(drain.DrainError) as caught:
        drain.drain(_Failing(kube, "get_pod", "web-1", code=503, message="the server is currently unable to handle the request"), "n1",
                    OPTIONS, clock=clock, sleep=clock.sleep)
    assert str(caught.value) == (
        'drain n1: 1 pod left after an error: default/web-1 (error when waiting for pod "web-1" in namespace "default" to terminate: '
        "the server is currently unable to handle the request); evicted 2 (default/web-1, default/web-2)" + STAYS)
    assert caught.value.details["failed_pods"] == [{"pod": "default/web-1", "code": 503, "message": "the server is currently unable to handle the request"}]


def test_a_failed_re_read_after_a_refusal_is_ignored_and_the_eviction_retried(double, kube, clock):
    double.add_node("n1")
    double.add_pod("db-0", "n1", owner_kind="ReplicaSet", owner_name="db", labels={"app": "db"}, grace=0)
    double.add_pdb("db-pdb", {"app": "db"}, min_available=1)
    clock.hooks.append(lambda: double.store.remove("poddisruptionbudgets", "default", "db-pdb"))
    result = drain.drain(_Failing(kube, "get_pod", "db-0", times=1), "n1", OPTIONS, clock=clock, sleep=clock.sleep)
    assert (result["evicted"], result["waited_s"], clock.sleeps) == (["default/db-0"], 5.0, [5])
    assert double.pod_names("n1") == []
