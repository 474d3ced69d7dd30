"""The rollback criterion's evidence from a node's transitions and the check kept after the rehearsal (exact values)."""

import datetime

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._rehearsal import evidence as rehearsal

NODE = "gpu-node-1"


def summary(transition, target, outcome="converged", opened="2026-12-01T09:00:00Z", closed="2026-12-01T09:00:20Z", duration_s=20.0,
            failed_steps=(), is_open=False):
    return {"transition": transition, "target": target, "outcome": outcome, "open": is_open, "opened": opened, "closed": closed,
            "duration_s": duration_s, "failed_steps": list(failed_steps)}


ENABLE = summary("20261201T090000Z", "enable", opened="2026-12-01T09:00:00Z", closed="2026-12-01T09:00:22.5Z", duration_s=22.5)
ROLLBACK = summary("20261201T091000Z", "rollback", opened="2026-12-01T09:10:00Z", closed="2026-12-01T09:10:21.6Z", duration_s=21.6)
AGAIN = summary("20261201T092000Z", "enable", opened="2026-12-01T09:20:00Z", closed="2026-12-01T09:20:19Z", duration_s=19.0)
KEPT = {"schema_version": 1, "rollback": ROLLBACK["transition"], "node": NODE, "observed_at": "2026-12-01T09:10:30.000000Z", "waited_s": 6.1,
        "timeout_s": 120, "workloads": [{"owner": "ReplicaSet/default/web", "state": "back", "expected": 1, "ready": 1, "before": ["web-a"],
                                         "now": ["web-b"]}],
        "unowned": [], "came_back": True, "missing": [], "pod_resources": {"read": True, "problems": []}, "problems": [], "reconciled": True}
SHOWN = ("transition", "target", "outcome", "opened", "closed", "duration_s", "failed_steps")


def shown(item):
    return {key: item[key] for key in SHOWN}


def test_rehearsed_names_the_enable_the_rollback_and_the_re_enable():
    found = rehearsal.evidence(NODE, [AGAIN, ROLLBACK, ENABLE], {ROLLBACK["transition"]: KEPT}, notes=["a note"])
    assert found == {
        "schema_version": 1, "node": NODE, "state": "rehearsed", "rehearsed": True,
        "enable": shown(ENABLE), "rollback": shown(ROLLBACK), "re_enable": shown(AGAIN),
        "check": {key: KEPT[key] for key in ("observed_at", "waited_s", "timeout_s", "workloads", "unowned", "came_back", "missing",
                                             "pod_resources", "reconciled")},
        "missing": [], "problems": [], "transitions": ["20261201T090000Z", "20261201T091000Z", "20261201T092000Z"], "notes": ["a note"]}


def test_workloads_that_did_not_come_back_are_named():
    cache = {"owner": "ReplicaSet/default/cache", "state": "missing", "expected": 1, "ready": 0, "before": ["cache-a"], "now": []}
    kept = dict(KEPT, reconciled=False, came_back=False, missing=["ReplicaSet/default/cache"], workloads=KEPT["workloads"] + [cache],
                problems=["ReplicaSet/default/cache: missing, 0 of 1 pods Ready on the node (before: cache-a)"])
    found = rehearsal.evidence(NODE, [ENABLE, ROLLBACK, AGAIN], {ROLLBACK["transition"]: kept})
    assert (found["state"], found["rehearsed"], found["missing"], found["problems"]) == (
        "not reconciled", False, ["ReplicaSet/default/cache"], ["ReplicaSet/default/cache: missing, 0 of 1 pods Ready on the node (before: cache-a)"])


def test_a_rollback_without_a_kept_check_is_unchecked():
    found = rehearsal.evidence(NODE, [ENABLE, ROLLBACK], {})
    assert (found["state"], found["rehearsed"], found["rollback"]["transition"], found["re_enable"], found["check"]) == (
        "unchecked", False, "20261201T091000Z", None, None)


def test_a_restored_rollback_did_not_converge_and_says_which_steps_failed():
    restored = dict(ROLLBACK, outcome="restored", failed_steps=["start"])
    found = rehearsal.evidence(NODE, [ENABLE, restored], {ROLLBACK["transition"]: KEPT})
    assert (found["state"], found["problems"]) == ("not converged", ["rollback 20261201T091000Z ended restored (failed: start)"])


def test_no_rollback_after_a_converged_enable_is_not_rehearsed():
    first_rollback = summary("20261130T080000Z", "rollback", opened="2026-11-30T08:00:00Z")
    failed_enable = dict(ENABLE, outcome="restored")
    for transitions in ([], [ENABLE], [first_rollback, ENABLE], [failed_enable, ROLLBACK]):
        found = rehearsal.evidence(NODE, transitions, {"20261130T080000Z": KEPT, ROLLBACK["transition"]: KEPT})
        assert (found["state"], found["rehearsed"], found["enable"], found["rollback"]) == ("not rehearsed", False, None, None), transitions


def test_the_last_rollback_after_an_enable_decides():
    later_enable = summary("20261202T090000Z", "enable", opened="2026-12-02T09:00:00Z")
    later_rollback = summary("20261202T091000Z", "rollback", opened="2026-12-02T09:10:00Z")
    found = rehearsal.evidence(NODE, [ENABLE, ROLLBACK, AGAIN, later_enable, later_rollback], {ROLLBACK["transition"]: KEPT})
    assert (found["state"], found["enable"]["transition"], found["rollback"]["transition"]) == (
        "unchecked", "20261202T090000Z", "20261202T091000Z")


NOW = datetime.datetime(2026, 12, 1, 10, 0, tzinfo=datetime.timezone.utc)
REFUSED = "the check kept after rollback 20261201T091000Z is refused: "


def refused(kept, **extra):
    found = rehearsal.evidence(NODE, [ENABLE, ROLLBACK], {ROLLBACK["transition"]: kept}, now=NOW, **extra)
    assert (found["state"], found["rehearsed"], found["check"], found["missing"]) == ("refused", False, None, [])
    return found["problems"]


def test_a_two_key_check_is_refused_naming_the_observations_it_lacks():
    assert refused({"rollback": ROLLBACK["transition"], "reconciled": True}) == [
        REFUSED + "its observations are missing: observed_at, workloads, pod_resources, came_back, missing (a check's states are "
        "recomputed from what it observed, never taken as stated)"]


def test_a_check_whose_statements_its_observations_do_not_give_is_refused():
    gone = {"owner": "ReplicaSet/default/cache", "state": "back", "expected": 1, "ready": 0, "before": ["cache-a"], "now": []}
    assert refused(dict(KEPT, workloads=KEPT["workloads"] + [gone])) == [
        REFUSED + "workloads[1] ('ReplicaSet/default/cache') states 'back', but its observations (0 of 1 pods Ready, 0 on the node) give "
        "missing"]
    unread = dict(KEPT, pod_resources={"read": False, "problems": ["PodResources was not read on the node after the rollback: x"]})
    assert refused(unread) == [REFUSED + "reconciled is True, but its observations give False"]
    silent = dict(KEPT, pod_resources={"read": False, "problems": []}, reconciled=False)
    assert refused(silent) == [REFUSED + "pod_resources says it was not read and names no problem: a PodResources not read is never "
                               "container scope"]


def test_impossible_observations_are_refused_naming_each():
    more_ready = dict(KEPT["workloads"][0], ready=2)
    fewer_before = dict(KEPT["workloads"][0], expected=2)
    kept = dict(KEPT, workloads=[more_ready, fewer_before, "web"], observed_at="2026-12-01T09:00:00Z", waited_s=float("nan"))
    assert refused(kept) == [REFUSED + "; ".join([
        "workloads[0] ('ReplicaSet/default/web') counts 2 pods Ready but names 1 on the node after the rollback (web-b): it cannot "
        "count more pods than it saw",
        "workloads[1] ('ReplicaSet/default/web') expects 2 pods but names 1 before the rollback (web-a): a workload is the pods its "
        "controller had on the node",
        "workloads[2] is 'web', not a workload's observations (a mapping)",
        "observed_at 2026-12-01T09:00:00Z is before rollback 20261201T091000Z closed (2026-12-01T09:10:21.6Z): a check after the "
        "rollback cannot look before it ended",
        "waited_s nan must be a finite number of 0 or more seconds"])]
    assert refused(dict(KEPT, observed_at="2026-12-02T09:00:00Z")) == [
        REFUSED + "observed_at 2026-12-02T09:00:00Z is later than now (2026-12-01T10:00:00Z): a check cannot have looked in the future"]
    assert refused(dict(KEPT, observed_at="yesterday")) == [
        REFUSED + "observed_at 'yesterday' is not a time such as 2026-12-01T09:00:00.000000Z: when the pods were looked at is an observation"]


def test_a_check_whose_file_is_not_private_is_refused_before_it_is_read():
    line = "state file /var/lib/numa-gate/transitions/20261201T091000Z/rehearsal.json is writable by others (mode 0602)"
    assert refused(KEPT, refused={ROLLBACK["transition"]: [line]}) == [REFUSED + line]


def test_a_true_check_is_rehearsed_within_the_clock_skew():
    early = dict(KEPT, observed_at="2026-12-01T09:06:00Z")
    found = rehearsal.evidence(NODE, [ENABLE, ROLLBACK], {ROLLBACK["transition"]: early}, now=NOW)
    assert (found["state"], found["problems"]) == ("rehearsed", [])


def test_a_placement_recheck_or_restart_that_says_otherwise_than_its_checks_is_refused():
    """The re-checks after the rollback (the recreated pods' placement, the opt-in restart) count in reconciled, and are believed only
    when their problems follow from their checks."""
    disagreeing = {"checked": 1, "problems": [], "pods": [{"pod": "default/web-b", "owner": "ReplicaSet/default/web",
                                                           "checks": [["cpuset", "c", "disagree"]]}]}
    assert refused(dict(KEPT, placement=disagreeing)) == [REFUSED + "placement names no problem, but its checks do not all agree"]
    moved = {"pod": "default/web-b", "container": "main", "restarted": True, "restart_count": 1, "error": None,
             "changes": ["pod default/web-b container main: its exclusive CPUs changed with the restart: 2 before, 3 after"], "problems": []}
    assert refused(dict(KEPT, restarts=[moved])) == [REFUSED + "a restart of 'default/web-b' names no problem, but it was not seen or moved it"]
    said = dict(disagreeing, problems=["default/web-b: cpuset disagree: x"])
    assert refused(dict(KEPT, placement=said)) == [REFUSED + "reconciled is True, but its observations give False"]
    found = rehearsal.evidence(NODE, [ENABLE, ROLLBACK], {ROLLBACK["transition"]: dict(KEPT, placement=said, reconciled=False,
                                                                                       problems=said["problems"])}, now=NOW)
    assert (found["state"], found["rehearsed"]) == ("not reconciled", False)
