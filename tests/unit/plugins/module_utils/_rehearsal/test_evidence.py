"""The rollback criterion's evidence from a node's transitions and the check kept after the rehearsal (exact values)."""

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
    kept = dict(KEPT, reconciled=False, came_back=False, missing=["ReplicaSet/default/cache"],
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
