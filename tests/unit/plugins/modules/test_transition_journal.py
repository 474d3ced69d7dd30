"""transition_journal, in-process, against a tmp_path root: nothing is written before the whole journal is checked (issue 16).

Every refusal asserts the exact message and that every file under the root (sha256, mode, owner; links and FIFOs by kind) is
as it was. FIFOs are real (os.mkfifo) and every call that could block on one runs under a thread timeout.
"""

import json
import os
import shutil
import signal
import subprocess
import sys
import time

import shutil

import pytest

from ansible.module_utils.testing import patch_module_args

from ansible_collections.gpusmith.numa_gate.plugins.modules import transition_journal
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._transition.node import runtime_versions
from ansible_collections.gpusmith.numa_gate.tests.unit.tree_state import bounded, snapshot

STATE = "var/lib/numa-gate"
T1 = "20261201T090000Z"


def run(capsys, **args):
    with patch_module_args(args):
        with pytest.raises(SystemExit):
            transition_journal.main()
    return json.loads(capsys.readouterr().out)


def journal_of(root, tid=T1):
    return root / STATE / "transitions" / tid / "journal.jsonl"


@pytest.fixture(name="opened")
def fixture_opened(tmp_path, capsys):
    """A root with transition T1 open and two events recorded."""
    result = run(capsys, root=str(tmp_path), action="open", target="enable", new_id=T1)
    assert result["changed"] is True
    run(capsys, root=str(tmp_path), action="record", transition=T1, step="cordon", event="started")
    run(capsys, root=str(tmp_path), action="record", transition=T1, step="cordon", event="finished", outcome="changed",
        changed={"cordoned": True})
    return tmp_path


def refused(capsys, root, message, **args):
    before = snapshot(root)
    result = bounded(lambda: run(capsys, root=str(root), **args))
    assert result["failed"] is True
    assert result["msg"] == message
    assert snapshot(root) == before
    return result


# Rule 1: check everything before the first change.

def test_record_into_a_damaged_journal_appends_nothing(capsys, opened):
    path = journal_of(opened)
    path.write_bytes(path.read_bytes() + b'rm -rf /\n{"step": "drain", "event": "started", "at": "2026-12-01T09:00:03Z"}\n')
    refused(capsys, opened, "line 3 of journal %s is not a journal entry: 'rm -rf /'; nothing was changed" % path,
            action="record", transition=T1, step="drain", event="finished", outcome="ok")


def test_close_of_a_damaged_journal_keeps_the_transition_open(capsys, opened):
    path = journal_of(opened)
    path.write_bytes(b"garbage\n" + path.read_bytes())
    refused(capsys, opened, "line 1 of journal %s is not a journal entry: 'garbage'; nothing was changed" % path,
            action="close", transition=T1)
    assert json.loads((opened / STATE / "transitions/current").read_text()) == {"id": T1, "target": "enable"}


# Rule 2: the journal survives its own worst case.

KILLED_WRITER = r"""
import os, signal, sys
fd = os.open(sys.argv[1], os.O_WRONLY | os.O_APPEND)
os.write(fd, b'{"at": "2026-12-01T09:00:0')  # half of the drain's start line
os.kill(os.getpid(), signal.SIGKILL)
"""


def test_a_record_after_a_kill_mid_line_starts_on_a_fresh_line(capsys, opened):
    path = journal_of(opened)
    proc = subprocess.run([sys.executable, "-c", KILLED_WRITER, str(path)], timeout=30, check=False)
    assert proc.returncode == -signal.SIGKILL
    read = run(capsys, root=str(opened), action="read", transition=T1)
    assert read["notes"] == ["the last line of %s was cut short (the run was killed while writing it) and is ignored" % path]
    result = run(capsys, root=str(opened), action="record", transition=T1, step="drain", event="started")
    note = "line 3 of %s was appended after removing a last line cut short by a kill (26 bytes: '{\"at\": \"2026-12-01T09:00:0')" % path
    assert result["changed"] is True and result["notes"] == [note]
    lines = path.read_bytes().split(b"\n")
    assert lines[-1] == b"" and len(lines) == 4
    third = json.loads(lines[2])
    assert (third["step"], third["event"], third["repaired"]) == ("drain", "started", {"cut_bytes": 26, "cut_text": '{"at": "2026-12-01T09:00:0'})
    # Every later read works, and still says what was repaired.
    again = run(capsys, root=str(opened), action="record", transition=T1, step="drain", event="finished", outcome="changed")
    assert again["journal"]["last_finished"] == "drain" and again["notes"] == [note]
    assert [(s, v["outcome"]) for s, v in again["journal"]["steps"].items()] == [("cordon", "changed"), ("drain", "changed")]


OPENER = r"""
import json, os, sys, time
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._transition.journal import transitions
root, new_id, go = sys.argv[1], sys.argv[2], sys.argv[3]
while not os.path.exists(go):
    time.sleep(0.001)
try:
    pointer, resumed = transitions.open_transition(root, "/var/lib/numa-gate", "enable", new_id)
    print(json.dumps({"id": pointer["id"], "resumed": resumed}))
except Exception as exc:
    print(json.dumps({"error": "%s: %s" % (type(exc).__name__, exc)}))
"""


def test_concurrent_opens_give_one_transition(tmp_path):
    go = tmp_path / "go"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    procs = [subprocess.Popen([sys.executable, "-c", OPENER, str(tmp_path), "t%02d" % index, str(go)], env=env,
                              stdout=subprocess.PIPE) for index in range(12)]
    time.sleep(0.5)  # every process started and waiting
    go.write_text("")
    answers = [json.loads(proc.communicate(timeout=60)[0]) for proc in procs]
    assert [answer.get("error") for answer in answers] == [None] * 12
    ids = {answer["id"] for answer in answers}
    assert len(ids) == 1
    assert sorted(answer["resumed"] for answer in answers) == [False] + [True] * 11
    folders = sorted(p.name for p in (tmp_path / STATE / "transitions").iterdir())
    assert folders == sorted([".lock", "current", ids.pop()])


def test_record_into_a_transition_never_opened(capsys, opened):
    refused(capsys, opened, "transition t-never was never opened on this node (/var/lib/numa-gate/transitions/t-never does not exist): "
            "open it first (action=open); nothing was recorded", action="record", transition="t-never", step="stop", event="started")
    # Check mode (where open created nothing) says so instead of failing.
    result = run(capsys, root=str(opened), action="record", transition="t-never", step="stop", event="started", _ansible_check_mode=True)
    assert result["notes"] == ["transition t-never is not open on this node yet (check mode opened none); nothing was recorded"]


def test_a_fifo_where_the_journal_should_be(capsys, tmp_path):
    run(capsys, root=str(tmp_path), action="open", target="enable", new_id=T1)
    path = journal_of(tmp_path)
    os.mkfifo(str(path))
    message = "journal %s is a FIFO, not a regular file; not read; nothing was changed" % path
    refused(capsys, tmp_path, message, action="record", transition=T1, step="stop", event="started")
    refused(capsys, tmp_path, message, action="read", transition=T1)
    refused(capsys, tmp_path, message, action="close", transition=T1)


def test_a_symlink_where_the_journal_should_be(capsys, tmp_path):
    run(capsys, root=str(tmp_path), action="open", target="enable", new_id=T1)
    elsewhere = tmp_path / "elsewhere.jsonl"
    elsewhere.write_text("")
    os.symlink(str(elsewhere), str(journal_of(tmp_path)))
    refused(capsys, tmp_path, "journal %s is a symlink; not written through" % journal_of(tmp_path),
            action="record", transition=T1, step="stop", event="started")
    refused(capsys, tmp_path, "journal %s is a symlink, not a regular file; not read; nothing was changed" % journal_of(tmp_path),
            action="read", transition=T1)
    assert elsewhere.read_text() == ""


# Rule 6: action=read never follows a symlinked transition folder out of its root.

def test_read_does_not_follow_a_symlinked_transition_folder(capsys, opened, tmp_path_factory):
    outside = tmp_path_factory.mktemp("outside")
    (outside / "journal.jsonl").write_text('{"at": "2026-12-01T09:00:00Z", "event": "started", "step": "stop", "changed": {"secret": "s3cr3t"}}\n')
    os.symlink(str(outside), str(opened / STATE / "transitions/t-link"))
    result = refused(capsys, opened, "/var/lib/numa-gate/transitions/t-link is a symlink; not read", action="read", transition="t-link")
    assert "s3cr3t" not in json.dumps(result)


# Rule 7: hostile types and shapes are data errors, named.

def test_a_time_past_the_end_of_year_9999(capsys, opened):
    path = journal_of(opened)
    path.write_bytes(path.read_bytes() + b'{"step": "drain", "event": "started", "at": "9999-12-31T23:59:59.9999999Z"}\n')
    message = ("line 3 of journal %s is not a journal entry: its time 'at' '9999-12-31T23:59:59.9999999Z' lies outside years 1 to 9999 "
               "once its fraction and offset are applied (it overflows the calendar); nothing was changed" % path)
    refused(capsys, opened, message, action="read", transition=T1)
    refused(capsys, opened, message, action="record", transition=T1, step="drain", event="finished", outcome="ok")


def test_deeply_nested_json_in_the_journal(capsys, opened):
    path = journal_of(opened)
    path.write_bytes(path.read_bytes() + b'{"step": "drain", "event": "started", "at": "2026-12-01T09:00:00Z", "changed": '
                     + b'[' * 100000 + b'\n')
    refused(capsys, opened, "line 3 of journal %s is JSON nested too deeply to parse (a RecursionError in the parser); nothing was changed"
            % path, action="record", transition=T1, step="drain", event="finished", outcome="ok")


def test_a_current_pointer_that_is_not_one(capsys, opened):
    (opened / STATE / "transitions/current").write_text('{"id": "' + T1 + '", "target": ["enable"]}')
    refused(capsys, opened, "/var/lib/numa-gate/transitions/current does not name a transition "
            "(b'{\"id\": \"20261201T090000Z\", \"target\": [\"enable\"]}'); nothing was changed",
            action="record", transition=T1, step="stop", event="started")


# Rule 8: state not owned by the module's user, or writable by group or others, is refused for writes.

def test_state_writable_by_others_is_refused_for_writes_and_noted_on_read(capsys, opened):
    os.chmod(str(opened / STATE / "transitions"), 0o777)
    refused(capsys, opened, "state folder /var/lib/numa-gate/transitions is writable by group and others (mode 0777): the collection's "
            "state must be private (owned by the user running the module, folders 0700, files 0600, writable by no one else), so it is "
            "not trusted: give it back with chown and chmod, or remove it; nothing was changed",
            action="record", transition=T1, step="stop", event="started")
    refused(capsys, opened, "state folder /var/lib/numa-gate/transitions is writable by group and others (mode 0777): the collection's "
            "state must be private (owned by the user running the module, folders 0700, files 0600, writable by no one else), so it is "
            "not trusted: give it back with chown and chmod, or remove it; nothing was changed",
            action="open", target="enable", new_id="t2")
    result = run(capsys, root=str(opened), action="read", transition=T1)
    assert result["notes"] == ["not private: state folder /var/lib/numa-gate/transitions is writable by group and others (mode 0777)"]


@pytest.mark.skipif(os.geteuid() != 0, reason="giving a file to another user needs root")
def test_a_journal_owned_by_another_user_is_refused(capsys, opened):
    os.chown(str(journal_of(opened)), 12345, 12345)
    refused(capsys, opened, "state file /var/lib/numa-gate/transitions/%s/journal.jsonl is owned by uid 12345, not by uid 0 that runs "
            "this module: the collection's state must be private (owned by the user running the module, folders 0700, files 0600, "
            "writable by no one else), so it is not trusted: give it back with chown and chmod, or remove it; nothing was changed" % T1,
            action="close", transition=T1)


def test_a_lock_that_is_a_symlink(capsys, tmp_path):
    (tmp_path / STATE / "transitions").mkdir(parents=True, mode=0o700)
    os.symlink("/etc/passwd", str(tmp_path / STATE / "transitions/.lock"))
    refused(capsys, tmp_path, "the lock /var/lib/numa-gate/transitions/.lock is a symlink; not used, nothing was changed",
            action="open", target="enable", new_id=T1)


def test_an_id_already_taken_is_not_reopened(capsys, opened):
    run(capsys, root=str(opened), action="close", transition=T1)
    message = ("transition id %s is taken: /var/lib/numa-gate/transitions/%s exists (a transition opened before); give another new_id; "
               "nothing was changed" % (T1, T1))
    refused(capsys, opened, message, action="open", target="rollback", new_id=T1)
    refused(capsys, opened, message, action="open", target="rollback", new_id=T1, _ansible_check_mode=True)


def test_check_mode_writes_nothing_even_when_it_refuses(capsys, opened):
    os.unlink(str(opened / STATE / "transitions/.lock"))  # a transition opened before the lock existed
    refused(capsys, opened, "transition %s to enable is still open on this node; re-run enable to finish it before a rollback" % T1,
            action="open", target="rollback", new_id="t2", _ansible_check_mode=True)
    before = snapshot(opened)
    for args in ({"action": "open", "target": "enable", "new_id": "t2"}, {"action": "close", "transition": T1},
                 {"action": "record", "transition": T1, "step": "drain", "event": "started"}):
        result = run(capsys, root=str(opened), _ansible_check_mode=True, **args)
        assert result.get("failed") is None and result["transition"] == {"id": T1, "target": "enable"}
    assert snapshot(opened) == before


# Issue 17: the open records the decision in the same run; a controller step records its events in one run.

DECIDE = {"target": "enable", "render_changed": True, "refusals": {"cpu": None, "memory": None}}


def lines_of(path):
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_open_with_decide_records_the_intent_and_returns_the_plan(capsys, tmp_path):
    result = run(capsys, root=str(tmp_path), action="open", target="enable", new_id=T1, decide=DECIDE, unschedulable_now=False,
                 target_in_place=False)
    assert (result["changed"], result["resumed"], result["transition"]) == (True, False, {"id": T1, "target": "enable"})
    assert result["resume"] == {"unschedulable_before": False, "cordons": True, "cordoned": False, "ended": None, "done": False,
                                "skip_drain": False, "skip_kubelet": False, "reasons": []}
    (decided,) = lines_of(journal_of(tmp_path))
    assert (decided["step"], decided["event"], decided["outcome"]) == ("decide", "finished", "changed")
    assert decided["changed"] == dict(DECIDE, resumed=False, unschedulable_before=False, cordons=True, skipped=[])
    # Resumed on a node the killed run cordoned: the plan is read from the journal before this run's decide event.
    again = run(capsys, root=str(tmp_path), action="open", target="enable", new_id="20261201T100000Z", decide=DECIDE, unschedulable_now=True,
                target_in_place=False)
    assert (again["changed"], again["resumed"], again["transition"]["id"]) == (True, True, T1)
    assert (again["resume"]["unschedulable_before"], again["resume"]["cordoned"]) == (False, True)
    assert lines_of(journal_of(tmp_path))[-1]["changed"]["unschedulable_before"] is False


def test_open_with_decide_reads_and_records_the_nodes_runtime_versions(capsys, tmp_path):
    result = run(capsys, root=str(tmp_path), action="open", target="enable", new_id=T1, decide=DECIDE, unschedulable_now=False,
                 target_in_place=False, runtime_versions=True)

    def version_line(argv):
        done = subprocess.run(argv, capture_output=True, text=True, check=False, timeout=30)
        return done.returncode, done.stdout, done.stderr

    # This machine's own binaries, read the same way, and the runc of this machine named exactly where it has one.
    expected = runtime_versions.read(shutil.which, version_line)
    assert result["runtime_versions"] == expected
    if shutil.which("runc"):
        assert expected["runc"] == version_line(["runc", "--version"])[1].split()[2]
    (decided,) = lines_of(journal_of(tmp_path))
    assert decided["changed"] == dict(DECIDE, resumed=False, unschedulable_before=False, cordons=True, skipped=[], runtime_versions=expected)


def test_open_of_an_ended_transition_records_no_decision(capsys, tmp_path):
    run(capsys, root=str(tmp_path), action="open", target="enable", new_id=T1)
    run(capsys, root=str(tmp_path), action="record", transition=T1, step="uncordon", event="finished", outcome="changed")
    before = journal_of(tmp_path).read_bytes()
    result = run(capsys, root=str(tmp_path), action="open", target="enable", new_id="20261201T100000Z", decide=DECIDE, unschedulable_now=False,
                 target_in_place=True)
    assert (result["resume"]["ended"], result["resume"]["done"], result["changed"]) == ("uncordon", True, False)
    assert journal_of(tmp_path).read_bytes() == before


def test_open_with_decide_in_check_mode_writes_nothing(capsys, tmp_path):
    result = run(capsys, root=str(tmp_path), action="open", target="enable", new_id=T1, decide=DECIDE, unschedulable_now=True,
                 target_in_place=False, _ansible_check_mode=True)
    assert (result["changed"], result["resume"]["cordons"]) == (True, False)
    assert not (tmp_path / STATE).exists()


def test_decide_needs_its_readings_and_goes_with_open_only(capsys, tmp_path):
    refused(capsys, tmp_path, "action=open with decide needs unschedulable_now and target_in_place; nothing was changed",
            action="open", target="enable", new_id=T1, decide=DECIDE)
    refused(capsys, tmp_path, "decide goes with action=open, not record; nothing was changed",
            action="record", transition=T1, step="cordon", event="started", decide=DECIDE, unschedulable_now=True, target_in_place=True)


def test_record_entries_appends_each_in_order(capsys, opened):
    result = run(capsys, root=str(opened), action="record", transition=T1, entries=[
        {"step": "drain", "event": "started"},
        {"step": "drain", "event": "finished", "outcome": "changed", "changed": {"evicted": ["default/web-1"]}}])
    assert result["changed"] is True and result["journal"]["last_finished"] == "drain"
    assert [(e["step"], e["event"], e.get("outcome")) for e in lines_of(journal_of(opened))][-2:] == [
        ("drain", "started", None), ("drain", "finished", "changed")]
    refused(capsys, opened, "action=record takes either entries or step and event, not both; nothing was recorded",
            action="record", transition=T1, step="drain", event="started", entries=[{"step": "drain", "event": "started"}])


def test_record_with_report_returns_the_record_transition_info_reads(capsys, opened):
    """The event that ends a transition comes back with its record (one module run): the same record transition_info gives."""
    from ansible_collections.gpusmith.numa_gate.plugins.modules import transition_info
    ended = run(capsys, root=str(opened), action="record", transition=T1, step="uncordon", event="finished", outcome="changed",
                report=True, node="gpu-node-1")
    with patch_module_args({"root": str(opened), "transition": T1, "node": "gpu-node-1"}):
        with pytest.raises(SystemExit):
            transition_info.main()
    read = json.loads(capsys.readouterr().out)
    assert ended["record"] == read["record"]
    assert (ended["record"]["transition"], ended["record"]["node"], ended["record"]["target"]) == (T1, "gpu-node-1", "enable")
    assert [(s["step"], s["outcome"]) for s in ended["record"]["steps"]] == [("cordon", "changed"), ("uncordon", "changed")]
    assert "record" not in run(capsys, root=str(opened), action="record", transition=T1, step="uncordon", event="finished")
    checked = run(capsys, root=str(opened), action="record", transition=T1, step="uncordon", event="finished", report=True, _ansible_check_mode=True)
    assert "record" not in checked
    refused(capsys, opened, "report goes with action=record, not close; nothing was changed", action="close", transition=T1, report=True)
