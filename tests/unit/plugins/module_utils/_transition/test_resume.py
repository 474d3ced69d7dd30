# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What a resumed transition skips and whose cordon it is, from journals the real journal writer wrote.

The killed run is played with the real pieces: the real journal (fsynced lines in a temp folder),
the real cordon against the API server double, and a "kill" that is the run stopping between the
PATCH and the journal line that would have recorded it.
"""

import os

import pytest

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base.errors import NumaGateError
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._transition.journal import journal, transitions
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._transition.api import cordon
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._transition import record, resume

ID = "20261201T090000Z"


def opened(tmp_path, resumed=None):
    """Open (or resume) the enable transition as transition_journal does: (journal path, resumed)."""
    state_dir = str(tmp_path / "state")
    pointer, was_open = transitions.open_transition("/", state_dir, "enable", ID if resumed is None else "20261201T100000Z")
    return transitions.journal_path("/", state_dir, pointer["id"]), was_open


def summary(path):
    entries, _notes = journal.read(path)
    return journal.summary(entries)


def decide(path, before, resumed=False):
    """The decide event as steps.yml records it: the intent and spec.unschedulable before, before any PATCH."""
    journal.append(path, "decide", "finished", outcome="changed",
                   changed={"target": "enable", "render_changed": True, "resumed": resumed, "unschedulable_before": before,
                            "cordons": not before})


def cordon_patches(double):
    return [(method, path) for method, path in double.requests if method == "PATCH"]


def test_a_run_killed_right_after_the_cordon_patch_owns_the_cordon_when_resumed(tmp_path, double, kube):
    double.add_node("n1")
    path, resumed = opened(tmp_path)
    assert resumed is False
    # The first run: it reads the node, keeps the intent, sends the PATCH, and is killed before it records the cordon.
    first = resume.plan(summary(path), False, cordon.is_unschedulable(kube.get_node("n1")), False)
    assert first == {"unschedulable_before": False, "cordons": True, "cordoned": False, "ended": None, "done": False, "skip_drain": False,
                     "skip_kubelet": False, "reasons": []}
    decide(path, first["unschedulable_before"])
    assert cordon.set_unschedulable(kube, "n1", True) == (True, False)
    assert cordon_patches(double) == [("PATCH", "/api/v1/nodes/n1")]
    # The re-run: the transition is still open, the node is cordoned, and its own cordon finds nothing to do.
    path, resumed = opened(tmp_path, resumed=True)
    assert resumed is True
    now = cordon.is_unschedulable(kube.get_node("n1"))
    assert now is True
    again = resume.plan(summary(path), resumed, now, False)
    assert again == {
        "unschedulable_before": False, "cordons": True, "cordoned": True, "ended": None, "done": False, "skip_drain": False, "skip_kubelet": False,
        "reasons": ["the node is cordoned and the journal says it was schedulable before this transition, which set out to cordon it (the run "
                    "that sent the cordon was killed before it recorded it): the cordon is this transition's"]}
    assert cordon.set_unschedulable(kube, "n1", True) == (False, True)
    assert cordon_patches(double) == [("PATCH", "/api/v1/nodes/n1")]
    # What steps.yml records then: the cordon is the transition's, so the end of the run uncordons it.
    decide(path, again["unschedulable_before"], resumed=True)
    journal.append(path, "cordon", "finished", outcome="ok", changed={"cordoned": again["cordoned"], "was_unschedulable": True})
    third = resume.plan(summary(path), True, True, False)
    assert (third["unschedulable_before"], third["cordoned"], third["reasons"]) == (False, True, [])
    assert cordon.set_unschedulable(kube, "n1", False) == (True, True)
    assert cordon.is_unschedulable(kube.get_node("n1")) is False


def test_a_node_cordoned_before_the_transition_stays_someone_elses(tmp_path, double, kube):
    double.add_node("n1")
    cordon.set_unschedulable(kube, "n1", True)  # someone else's cordon, before the transition
    path, _resumed = opened(tmp_path)
    first = resume.plan(summary(path), False, True, False)
    assert (first["unschedulable_before"], first["cordons"], first["cordoned"]) == (True, False, False)
    decide(path, True)
    # Killed before the cordon (which would not have sent anything): the re-run still finds it someone else's.
    path, resumed = opened(tmp_path, resumed=True)
    again = resume.plan(summary(path), resumed, True, False)
    assert (again["unschedulable_before"], again["cordons"], again["cordoned"], again["reasons"]) == (True, False, False, [])


def test_a_journal_without_the_intent_reads_as_before(tmp_path):
    """A journal an older release wrote (decide without unschedulable_before): only a recorded cordon is the transition's."""
    path, _resumed = opened(tmp_path)
    journal.append(path, "decide", "finished", outcome="changed", changed={"target": "enable", "render_changed": True, "resumed": False})
    assert resume.plan(summary(path), True, True, False)["cordoned"] is False
    journal.append(path, "cordon", "finished", outcome="changed", changed={"cordoned": True, "was_unschedulable": False})
    assert resume.plan(summary(path), True, True, False)["cordoned"] is True
    # Killed before the decide was kept: nothing was sent, the node's state now is its state before.
    empty = tmp_path / "empty.jsonl"
    assert resume.plan(summary(str(empty)), True, False, False) == {
        "unschedulable_before": False, "cordons": True, "cordoned": False, "ended": None, "done": False, "skip_drain": False,
        "skip_kubelet": False, "reasons": []}


def enable_until(path, last):
    """The events steps.yml records for an enable that goes through, up to and with ``last`` (step, event)."""
    events = [("decide", "finished", "changed", {"target": "enable", "unschedulable_before": False, "cordons": True}),
              ("cordon", "finished", "changed", {"cordoned": True, "was_unschedulable": False}),
              ("drain", "started", None, None), ("drain", "finished", "changed", {"evicted": ["default/web-1"]}),
              ("stop", "started", None, None), ("stop", "finished", "changed", None),
              ("state", "started", None, None), ("state", "finished", "ok", {"files": []}),
              ("config", "started", None, {"files": []}), ("config", "finished", "changed", {"files": []}),
              ("start", "started", None, None), ("start", "finished", "changed", None),
              ("verify", "started", None, None), ("verify", "finished", "ok", None),
              ("uncordon", "finished", "changed", None)]
    for step, event, outcome, changed in events:
        journal.append(path, step, event, outcome=outcome, changed=changed)
        if (step, event) == last:
            return
    raise AssertionError("no such event %r" % (last,))


def test_a_kubelet_started_on_the_target_is_not_restarted_only_verified(tmp_path):
    path, _resumed = opened(tmp_path)
    enable_until(path, ("start", "finished"))
    plan = resume.plan(summary(path), True, True, True)
    assert (plan["skip_kubelet"], plan["skip_drain"], plan["cordoned"], plan["ended"]) == (True, True, True, None)
    assert plan["reasons"] == [
        "the journal says the kubelet was started on the target and the node's files still hold it: it is not stopped and started again, "
        "only verified",
        "the journal says the drain finished and the node is still unschedulable: it is not drained again"]
    # The files no longer hold the target (someone changed them since): stopped, cleaned and started again.
    assert resume.plan(summary(path), True, True, False)["skip_kubelet"] is False
    # Uncordoned by someone since the drain: pods may have come back, so it is drained again.
    assert resume.plan(summary(path), True, False, True)["skip_drain"] is False


def test_killed_before_the_start_finished_the_kubelet_steps_run_again(tmp_path):
    path, _resumed = opened(tmp_path)
    enable_until(path, ("start", "started"))
    plan = resume.plan(summary(path), True, True, True)
    assert (plan["skip_kubelet"], plan["skip_drain"]) == (False, True)


def test_a_transition_the_journal_says_was_uncordoned_is_only_recorded_and_closed(tmp_path):
    path, _resumed = opened(tmp_path)
    enable_until(path, ("uncordon", "finished"))
    plan = resume.plan(summary(path), True, False, True)
    assert plan == {"unschedulable_before": False, "cordons": True, "cordoned": True, "ended": "uncordon", "done": True, "skip_drain": False,
                    "skip_kubelet": False,
                    "reasons": ["the journal says the node was uncordoned: the transition is done; its record is kept and it is closed"]}
    # record.build reads the same journal as closed while the pointer is still there (kept before the close).
    entries, _notes = journal.read(path)
    built = record.build(ID, entries, [], pointer={"id": ID, "target": "enable"})
    assert (built["open"], built["outcome"], built["closed"], built["in_progress"]) == (False, "converged", entries[-1]["at"], None)
    assert built["notes"] == ["the journal ends with uncordon finished (changed): the transition is done, and this record was read before its "
                              "pointer (transitions/current) was removed"]
    assert record.ends(entries) == entries[-1]


def test_a_failed_drain_or_a_restore_at_the_end_is_recorded_and_closed_not_done(tmp_path):
    path, _resumed = opened(tmp_path)
    enable_until(path, ("cordon", "finished"))
    journal.append(path, "drain", "started")
    journal.append(path, "drain", "finished", outcome="failed", changed={"message": "timed out"})
    plan = resume.plan(summary(path), True, False, False)
    assert (plan["ended"], plan["done"], plan["skip_drain"], plan["cordoned"]) == ("drain", False, False, True)
    assert plan["reasons"] == ["the journal says the transition ended with drain (the drain failed, nothing was changed) before the run was "
                               "killed: its record is kept and it is closed"]
    other = str(tmp_path / "other.jsonl")
    enable_until(other, ("start", "finished"))
    journal.append(other, "restore", "started", changed={"failure": "verify: not Ready"})
    assert resume.plan(summary(other), True, True, True)["ended"] is None
    assert resume.plan(summary(other), True, True, True)["skip_kubelet"] is False  # a restore resumes nothing
    journal.append(other, "restore", "finished", outcome="changed", changed={"files": []})
    plan = resume.plan(summary(other), True, False, True)
    assert (plan["ended"], plan["done"], plan["skip_kubelet"], plan["skip_drain"]) == ("restore", False, False, False)


def test_a_new_transition_skips_nothing_whatever_the_summary_says(tmp_path):
    path, _resumed = opened(tmp_path)
    enable_until(path, ("uncordon", "finished"))
    plan = resume.plan(summary(path), False, True, True)
    assert plan == {"unschedulable_before": True, "cordons": False, "cordoned": False, "ended": None, "done": False, "skip_drain": False,
                    "skip_kubelet": False, "reasons": []}
    assert os.path.isfile(path)


@pytest.mark.parametrize("args, message", [
    (([], True, True, True), "the journal summary must be a mapping with a steps mapping, not []"),
    (({"steps": []}, True, True, True), "the journal summary must be a mapping with a steps mapping, not {'steps': []}"),
    (({}, "yes", True, True), "resumed must be true or false, not 'yes'"),
    (({}, True, None, True), "unschedulable_now must be true or false, not None"),
    (({}, True, True, 1), "target_in_place must be true or false, not 1"),
])
def test_bad_input_is_named(args, message):
    with pytest.raises(NumaGateError) as caught:
        resume.plan(*args)
    assert str(caught.value) == message
