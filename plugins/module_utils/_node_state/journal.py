# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A transition's journal: one line per step event, fsynced before the step goes on.

Public: `JOURNAL`, `STEPS`, `append(path, step, event, outcome=None, changed=None, at=None)`,
`read(path)`, `summary(entries)`, `recorded_files(entries, steps)`.

``transitions/<id>/journal.jsonl`` holds JSON lines ``{"step", "event" (started | finished),
"at", "outcome" (ok | changed | skipped | failed), "changed"}``. Each line is appended with
``O_APPEND`` and fsynced (and the folder too, the first time), so after a kill at any point the
file holds every event up to the last one that returned. A last line cut short by the kill is
ignored and said so; damage anywhere else is an error that names the line.
"""

from __future__ import annotations

import datetime
import json
import os

from ansible_collections.gpusmith.numa_gate.plugins.module_utils import _fileio
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._node_state import atomic

JOURNAL = "journal.jsonl"
STEPS = ("baseline", "decide", "cordon", "drain", "stop", "state", "config", "start", "verify", "uncordon", "restore")
EVENTS = ("started", "finished")
OUTCOMES = ("ok", "changed", "skipped", "failed")
_LIMIT = 4 * 1024 * 1024


def _now():
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def append(path, step, event, outcome=None, changed=None, at=None):
    """Append one event to the journal at ``path`` (its folder is created 0700) and fsync it."""
    if step not in STEPS:
        raise atomic.NodeStateError("journal step %r is not one of %s" % (step, ", ".join(STEPS)))
    if event not in EVENTS:
        raise atomic.NodeStateError("journal event %r is not one of %s" % (event, ", ".join(EVENTS)))
    if event == "finished" and outcome not in OUTCOMES:
        raise atomic.NodeStateError("a finished step needs an outcome, one of %s; got %r" % (", ".join(OUTCOMES), outcome))
    line = {"step": step, "event": event, "at": at or _now()}
    if outcome is not None:
        line["outcome"] = outcome
    if changed is not None:
        line["changed"] = changed
    directory = os.path.dirname(os.path.abspath(path))
    new_folder = not os.path.isdir(directory)
    atomic.make_private_dir(directory)
    if os.path.islink(path):
        raise atomic.NodeStateError("journal %s is a symlink; not written through" % path)
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0), atomic.NEW_FILE_MODE)
    try:
        os.write(fd, (json.dumps(line, sort_keys=True) + "\n").encode())
        os.fsync(fd)
    finally:
        os.close(fd)
    if new_folder:
        atomic.fsync_dir(directory)
    atomic.fsync_dir(directory)
    return line


def read(path):
    """(entries, notes) of the journal at ``path``; ([], []) when there is none yet."""
    try:
        blob = _fileio.read_regular(path, _LIMIT)
    except FileNotFoundError:
        return [], []
    *complete, tail = blob.split(b"\n")
    notes = []
    if tail:
        notes.append("the last line of %s was cut short (the run was killed while writing it) and is ignored" % path)
    entries = []
    for number, raw in enumerate(complete, start=1):
        text = raw.decode("utf-8", errors="replace")
        try:
            entry = json.loads(text)
        except ValueError:
            entry = None
        if not (isinstance(entry, dict) and entry.get("step") in STEPS and entry.get("event") in EVENTS and isinstance(entry.get("at"), str)):
            raise atomic.NodeStateError("line %d of journal %s is not a journal entry: %r; nothing was changed" % (number, path, text[:80]))
        entries.append(entry)
    return entries, notes


def summary(entries):
    """Where a transition stands: each step's last state, the last finished step, the one in progress."""
    steps = {}
    last_finished = None
    for entry in entries:
        state = steps.setdefault(entry["step"], {})
        if entry["event"] == "started":
            state.update(started=entry["at"], finished=None, outcome=None)
        else:
            state.update(finished=entry["at"], outcome=entry.get("outcome"))
            if entry.get("changed") is not None:
                state["changed"] = entry["changed"]
            last_finished = entry["step"]
    in_progress = [step for step, state in steps.items() if state.get("started") and not state.get("finished")]
    return {"steps": steps, "last_finished": last_finished, "in_progress": in_progress[-1] if in_progress else None,
            "failed": [step for step, state in steps.items() if state.get("outcome") == "failed"]}


def recorded_files(entries, steps=("state", "config")):
    """[{path, backup}] that ``steps`` recorded (``changed.files``), the first record of each path.

    A step records, when it starts, the files it is about to create (``backup: null``), and when it
    finishes, the backups it made.

    The first one is what the path held before the transition touched it: a resumed run that finds
    a step already done records no new backup, and must not hide the original one.
    """
    seen = {}
    for entry in entries:
        if entry["step"] not in steps or not isinstance(entry.get("changed"), dict):
            continue
        for item in entry["changed"].get("files") or []:
            if isinstance(item, dict) and isinstance(item.get("path"), str) and item["path"] not in seen:
                seen[item["path"]] = {"path": item["path"], "backup": item.get("backup")}
    return list(seen.values())
