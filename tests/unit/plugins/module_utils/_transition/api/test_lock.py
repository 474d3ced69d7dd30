# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The node's maintenance lock, a coordination.k8s.io/v1 Lease, against the API server double."""

import pytest

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._transition.api import lock

T1, T2 = "20261204T090000Z", "20261204T100000Z"
NOON = 1796385600.0  # 2026-12-04T12:00:00Z


def at(seconds):
    return lambda: NOON + seconds


def lease(double, name="gpusmith-numa-gate-n1", namespace="kube-system"):
    return double.store.get("leases", namespace, name)


def test_a_free_node_is_locked_renewed_and_released(double, kube):
    held = lock.hold(kube, "kube-system", "n1", T1, 600, clock=at(0))
    assert held == {"changed": True, "lock_action": "created", "lease": "kube-system/gpusmith-numa-gate-n1", "holder": "gpusmith.numa_gate/n1/" + T1,
                    "acquired": "2026-12-04T12:00:00.000000Z", "renewed": "2026-12-04T12:00:00.000000Z", "duration_s": 600, "transitions": 0,
                    "previous_holder": None}
    renewed = lock.hold(kube, "kube-system", "n1", T1, 600, clock=at(30.5))
    assert (renewed["lock_action"], renewed["acquired"], renewed["renewed"], renewed["transitions"]) == (
        "renewed", "2026-12-04T12:00:00.000000Z", "2026-12-04T12:00:30.500000Z", 0)
    assert lock.release(kube, "kube-system", "n1", T1)["lock_action"] == "released"
    assert double.store.list("leases", "kube-system")[0] == []
    assert lock.release(kube, "kube-system", "n1", T1) == {
        "changed": False, "lock_action": "absent", "lease": "kube-system/gpusmith-numa-gate-n1", "holder": None, "acquired": None, "renewed": None,
        "duration_s": None, "transitions": None}


def test_a_lease_another_holder_keeps_refuses_naming_holder_and_since_when(double, kube):
    lock.hold(kube, "kube-system", "n1", T1, 600, clock=at(0))
    before = lease(double)
    with pytest.raises(lock.LockError) as caught:
        lock.hold(kube, "kube-system", "n1", T2, 600, clock=at(599))
    assert str(caught.value) == (
        "node n1 is held for maintenance by gpusmith.numa_gate/n1/20261204T090000Z since 2026-12-04T12:00:00.000000Z (Lease "
        "kube-system/gpusmith-numa-gate-n1, renewed 2026-12-04T12:00:00.000000Z, until 2026-12-04T12:10:00.000000Z unless renewed); nothing "
        "was changed. Wait for it to be released or to expire")
    assert lease(double) == before
    # Not its own: the other holder's lease is not released either.
    assert lock.release(kube, "kube-system", "n1", T2)["lock_action"] == "held_by_another"
    assert lease(double) == before


def test_a_killed_runs_lease_is_taken_over_only_after_it_expires(double, kube):
    lock.hold(kube, "kube-system", "n1", T1, 60, clock=at(0))
    with pytest.raises(lock.LockError):
        lock.hold(kube, "kube-system", "n1", T2, 600, clock=at(59))
    taken = lock.hold(kube, "kube-system", "n1", T2, 600, clock=at(60))
    assert {k: taken[k] for k in ("lock_action", "holder", "acquired", "transitions", "previous_holder", "duration_s")} == {
        "lock_action": "taken_over", "holder": "gpusmith.numa_gate/n1/" + T2, "acquired": "2026-12-04T12:01:00.000000Z", "transitions": 1,
        "previous_holder": "gpusmith.numa_gate/n1/" + T1, "duration_s": 600}


def test_the_same_transition_resumed_takes_its_own_lease_back(double, kube):
    lock.hold(kube, "kube-system", "n1", T1, 600, clock=at(0))
    assert lock.hold(kube, "kube-system", "n1", T1, 600, clock=at(10))["lock_action"] == "renewed"


def test_a_released_lease_with_no_holder_is_taken(double, kube):
    double.store.create("leases", {"metadata": {"name": "gpusmith-numa-gate-n1", "namespace": "kube-system"},
                                   "spec": {"leaseDurationSeconds": 600, "leaseTransitions": 3}})
    taken = lock.hold(kube, "kube-system", "n1", T1, 600, clock=at(0))
    assert (taken["lock_action"], taken["previous_holder"], taken["transitions"]) == ("taken_over", None, 4)


def test_a_bad_duration_is_refused_before_any_request(double, kube):
    with pytest.raises(lock.NumaGateError) as caught:
        lock.hold(kube, "kube-system", "n1", T1, 0)
    assert str(caught.value) == "the lock's duration must be a whole number of seconds above 0, not 0"
    assert not [r for r in double.requests if "leases" in r[1]]
