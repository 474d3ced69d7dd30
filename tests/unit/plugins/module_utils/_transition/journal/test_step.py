# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A step that journals itself: the events it writes with the real journal, in order, fsynced lines read back from the file."""

import json
import os

import pytest

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._node_files import atomic
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._transition.journal import journal, step as step_journal, transitions

T1 = "20261201T090000Z"


def opened(tmp_path):
    state_dir = str(tmp_path / "state")
    transitions.open_transition("/", state_dir, "enable", T1)
    return state_dir, transitions.journal_path("/", state_dir, T1)


def lines(path):
    with open(path, encoding="utf-8") as stream:
        return [json.loads(line) for line in stream]


def test_a_step_writes_started_then_finished_and_says_so(tmp_path):
    state_dir, path = opened(tmp_path)
    steps = step_journal.StepJournal("/", {"transition": T1, "step": "config", "state_dir": state_dir, "events": []}, False)
    steps.started(changed={"files": [{"path": "/etc/x.conf", "backup": None}]})
    steps.finished("changed", changed={"files": [{"path": "/etc/x.conf", "backup": None}]})
    written = lines(path)
    assert [(e["step"], e["event"], e.get("outcome")) for e in written] == [("config", "started", None), ("config", "finished", "changed")]
    assert written[0]["changed"] == {"files": [{"path": "/etc/x.conf", "backup": None}]}
    assert steps.result() == {"journal": {"path": path, "events": written, "notes": []}}


def test_batched_controller_events_go_first_with_the_first_own_event(tmp_path):
    state_dir, path = opened(tmp_path)
    drained = {"step": "drain", "event": "finished", "outcome": "changed", "changed": {"evicted": ["default/web-1"]}}
    steps = step_journal.StepJournal("/", {"transition": T1, "step": "stop", "state_dir": state_dir, "events": [drained]}, False)
    assert not os.path.exists(path)  # nothing is written before the step reaches its first own event
    steps.started()
    steps.finished("ok")
    assert [(e["step"], e["event"]) for e in lines(path)] == [("drain", "finished"), ("stop", "started"), ("stop", "finished")]
    assert lines(path)[0]["changed"] == {"evicted": ["default/web-1"]}


def test_the_verification_records_its_end_only(tmp_path):
    state_dir, path = opened(tmp_path)
    steps = step_journal.StepJournal("/", {"transition": T1, "step": "verify", "state_dir": state_dir, "events": []}, False)
    assert steps.started() is None
    steps.finished("ok")
    assert [(e["step"], e["event"], e["outcome"]) for e in lines(path)] == [("verify", "finished", "ok")]


def test_check_mode_and_no_journal_write_nothing(tmp_path):
    state_dir, path = opened(tmp_path)
    quiet = step_journal.StepJournal("/", {"transition": T1, "step": "stop", "state_dir": state_dir, "events": []}, True)
    quiet.started()
    quiet.finished("changed")
    # Check mode never opened this one: no error either.
    step_journal.StepJournal("/", {"transition": "20261201T100000Z", "step": "stop", "state_dir": state_dir, "events": []}, True).finished("ok")
    nothing = step_journal.StepJournal("/", None, False)
    nothing.started()
    nothing.finished("ok")
    assert not os.path.exists(path)
    assert (quiet.result()["journal"]["events"], nothing.result()) == ([], {})


def test_a_transition_never_opened_is_refused_before_the_step_works(tmp_path):
    state_dir = str(tmp_path / "state")
    with pytest.raises(atomic.NodeStateError) as caught:
        step_journal.StepJournal("/", {"transition": T1, "step": "stop", "state_dir": state_dir, "events": []}, False)
    assert str(caught.value) == ("transition %s was never opened on this node (%s/transitions/%s does not exist): open it first "
                                 "(transition_journal action=open); nothing was changed" % (T1, state_dir, T1))


def test_a_damaged_journal_is_refused_before_the_step_works(tmp_path):
    state_dir, path = opened(tmp_path)
    with open(path, "w", encoding="utf-8") as stream:
        stream.write("not json\n")
    with pytest.raises(atomic.NodeStateError) as caught:
        step_journal.StepJournal("/", {"transition": T1, "step": "stop", "state_dir": state_dir, "events": []}, False)
    assert str(caught.value) == "line 1 of journal %s is not a journal entry: 'not json'; nothing was changed" % path


def test_controller_events_of_each_kube_node_state():
    cordon_event = {"step": "cordon", "event": "finished", "outcome": "changed", "changed": {"cordoned": True, "was_unschedulable": False}}
    drain = {"transition": T1, "step": "drain", "state_dir": "/s", "events": [cordon_event]}
    assert step_journal.controller_events(drain, "drained") == [cordon_event, {"step": "drain", "event": "started"}]
    # Its finished event is the caller's to pass to the next node-side step.
    assert step_journal.controller_events(drain, "drained", {"changed": True, "evicted": ["default/web-1"]}) == []
    uncordon = {"transition": T1, "step": "uncordon", "state_dir": "/s", "events": []}
    assert step_journal.controller_events(uncordon, "uncordoned") == []
    assert step_journal.controller_events(uncordon, "uncordoned", {"changed": True}) == [{"step": "uncordon", "event": "finished", "outcome": "changed"}]
    assert step_journal.controller_events(uncordon, "uncordoned", {"changed": False}) == [{"step": "uncordon", "event": "finished", "outcome": "ok"}]
    with pytest.raises(atomic.NodeStateError) as caught:
        step_journal.controller_events(uncordon, "drained")
    assert str(caught.value) == "journal step uncordon does not match state drained (that records drain)"
    with pytest.raises(atomic.NodeStateError) as caught:
        step_journal.controller_events(dict(uncordon, step="cordon"), "cordoned")
    assert str(caught.value) == ("journal goes with state drained or uncordoned, not cordoned: the cordon's finished event is recorded by the next "
                                 "task (the drain's events), so that a run killed right after the cordon's PATCH leaves none")


def test_what_a_kill_leaves_between_the_events_is_what_the_journal_reads(tmp_path):
    """A step killed after its started event: the journal's summary has it in progress, never finished."""
    state_dir, path = opened(tmp_path)
    step_journal.StepJournal("/", {"transition": T1, "step": "state", "state_dir": state_dir, "events": []}, False).started()
    summary = journal.summary(journal.read(path)[0])
    assert (summary["in_progress"], summary["last_finished"], summary["steps"]["state"]["finished"]) == ("state", None, None)
