"""A transition's journal survives a kill between steps and reads back where it stopped."""

import os
import signal
import subprocess
import sys
import time

import pytest

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._node_files import atomic
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._transition.journal import journal

WRITER = r"""
import sys, time
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._transition.journal import journal
for step in ("baseline", "decide", "cordon", "drain", "stop"):
    journal.append(sys.argv[1], step, "started")
    journal.append(sys.argv[1], step, "finished", outcome="changed")
    if step == "cordon":
        time.sleep(60)  # killed here, between two steps
"""


def test_killed_between_steps_reads_back_the_last_finished_step(tmp_path):
    path = tmp_path / "transitions/t1/journal.jsonl"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    proc = subprocess.Popen([sys.executable, "-c", WRITER, str(path)], env=env)
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if path.exists() and path.read_text().count("\n") == 6:
                break
            time.sleep(0.05)
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.wait(timeout=10)
    assert proc.returncode == -signal.SIGKILL
    entries, notes = journal.read(str(path))
    assert notes == []
    assert [(e["step"], e["event"]) for e in entries] == [
        ("baseline", "started"), ("baseline", "finished"), ("decide", "started"), ("decide", "finished"),
        ("cordon", "started"), ("cordon", "finished")]
    state = journal.summary(entries)
    assert state["last_finished"] == "cordon" and state["in_progress"] is None and state["failed"] == []
    assert oct(os.stat(path).st_mode & 0o777) == "0o600" and oct(os.stat(path.parent).st_mode & 0o777) == "0o700"


def test_a_step_in_progress_and_a_cut_last_line(tmp_path):
    path = str(tmp_path / "journal.jsonl")
    journal.append(path, "stop", "started", at="2026-12-01T09:00:00Z")
    journal.append(path, "stop", "finished", outcome="ok", at="2026-12-01T09:00:01Z")
    journal.append(path, "state", "started", at="2026-12-01T09:00:02Z")
    with open(path, "ab") as handle:
        handle.write(b'{"step": "state", "ev')
    entries, notes = journal.read(path)
    assert notes == ["the last line of %s was cut short (the run was killed while writing it) and is ignored" % path]
    state = journal.summary(entries)
    assert state["last_finished"] == "stop" and state["in_progress"] == "state"
    assert state["steps"]["state"] == {"started": "2026-12-01T09:00:02Z", "finished": None, "outcome": None}


def test_garbage_inside_is_an_error_naming_the_line(tmp_path):
    path = tmp_path / "journal.jsonl"
    path.write_text('{"step": "stop", "event": "started", "at": "2026-12-01T09:00:00Z"}\nrm -rf /\n'
                    '{"step": "stop", "event": "finished", "at": "2026-12-01T09:00:01Z"}\n')
    with pytest.raises(atomic.NodeStateError) as raised:
        journal.read(str(path))
    assert str(raised.value) == "line 2 of journal %s is not a journal entry: 'rm -rf /'; nothing was changed" % path


@pytest.mark.parametrize("args, message", [
    (("evict", "started"), "journal step 'evict' is not one of baseline, decide, lock, dry_run, cordon, drain, stop, state, config, start, verify, "
                           "uncordon, restore"),
    (("stop", "begun"), "journal event 'begun' is not one of started, finished"),
    (("stop", "finished"), "a finished step needs an outcome, one of ok, changed, skipped, failed; got None"),
])
def test_bad_events_are_refused(tmp_path, args, message):
    with pytest.raises(atomic.NodeStateError) as raised:
        journal.append(str(tmp_path / "j.jsonl"), *args)
    assert str(raised.value) == message
    assert not (tmp_path / "j.jsonl").exists()


def test_a_journal_symlink_is_not_written_through(tmp_path):
    target = tmp_path / "elsewhere"
    target.write_text("")
    os.symlink(str(target), tmp_path / "journal.jsonl")
    with pytest.raises(atomic.NodeStateError, match="is a symlink; not written through"):
        journal.append(str(tmp_path / "journal.jsonl"), "stop", "started")
    assert target.read_text() == ""


def test_recorded_files_keep_the_first_backup_of_each_path(tmp_path):
    path = str(tmp_path / "journal.jsonl")
    journal.append(path, "state", "finished", outcome="changed", changed={"files": [{"path": "/c", "backup": "/b/c.1"}]})
    journal.append(path, "config", "finished", outcome="changed", changed={"files": [{"path": "/d", "backup": None}]})
    # A resumed run finds the config already written: its record must not hide the first one.
    journal.append(path, "config", "finished", outcome="ok", changed={"files": [{"path": "/d", "backup": "/b/d.2"}]})
    journal.append(path, "start", "finished", outcome="failed", changed={"files": [{"path": "/x", "backup": None}]})
    entries, _notes = journal.read(path)
    assert journal.recorded_files(entries) == [{"path": "/c", "backup": "/b/c.1"}, {"path": "/d", "backup": None}]
