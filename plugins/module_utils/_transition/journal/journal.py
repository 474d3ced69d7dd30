# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A transition's journal: one line per step event, fsynced before the step goes on.

Public: `JOURNAL`, `STEPS`, `EVENTS`, `OUTCOMES`, `append(path, step, event, outcome=None, changed=None, at=None, notes=None)`,
`read(path)`, `summary(entries)`, `recorded_files(entries, steps)`.

``transitions/<id>/journal.jsonl`` holds JSON lines ``{"step", "event" (started | finished),
"at", "outcome" (ok | changed | skipped | failed), "changed"}``. Each line is appended with
``O_APPEND`` under an exclusive ``flock`` and fsynced (and the folder too), so after a kill at any
point the file holds every event up to the last one that returned. Before a line is appended the
whole journal is read and checked (``journal_lines``): damage anywhere refuses the append with the
journal unchanged. A last line a kill cut short (no newline) is removed first and the new line says
so (``repaired``), so the next event never lands glued onto it; `read` ignores such a line and says
so. A journal that is a symlink, a FIFO or anything but a regular file is refused, never opened
for a blocking read or written through.
"""

from __future__ import annotations

import datetime
import errno
import json
import os
import stat

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import fileio as _fileio
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._node_files import atomic, locks
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._transition import steps as _steps
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._transition.journal import lines as journal_lines

JOURNAL = "journal.jsonl"
STEPS = journal_lines.STEPS
EVENTS = journal_lines.EVENTS
OUTCOMES = journal_lines.OUTCOMES
_LIMIT = 4 * 1024 * 1024


def _now():
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _line(step, event, outcome, changed, at):
    if step not in STEPS:
        raise atomic.NodeStateError("journal step %r is not one of %s" % (step, ", ".join(STEPS)))
    if event not in EVENTS:
        raise atomic.NodeStateError("journal event %r is not one of %s" % (event, ", ".join(EVENTS)))
    if event == "finished" and outcome not in OUTCOMES:
        raise atomic.NodeStateError("a finished step needs an outcome, one of %s; got %r" % (", ".join(OUTCOMES), outcome))
    if outcome is not None and outcome not in OUTCOMES:
        raise atomic.NodeStateError("journal outcome %r is not one of %s" % (outcome, ", ".join(OUTCOMES)))
    if changed is not None and not isinstance(changed, dict):
        raise atomic.NodeStateError("journal changed must be a mapping, got a %s" % type(changed).__name__)
    line = {"step": step, "event": event, "at": at or _now()}
    problem = journal_lines.time_problem(line["at"])
    if problem:
        raise atomic.NodeStateError("journal time %r %s" % (str(line["at"])[:40], problem))
    if outcome is not None:
        line["outcome"] = outcome
    if changed is not None:
        line["changed"] = changed
    try:
        json.dumps(line)
    except (TypeError, ValueError, RecursionError) as exc:
        raise atomic.NodeStateError("journal changed cannot be written as JSON: %s" % exc)
    return line


def _kind(mode):
    if stat.S_ISLNK(mode):
        return "a symlink"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISDIR(mode):
        return "a folder"
    return "not a regular file"


def _refuse_kind(path, mode):
    if stat.S_ISLNK(mode):
        return atomic.NodeStateError("journal %s is a symlink; not written through" % path)
    return atomic.NodeStateError("journal %s is %s, not a regular file; not read; nothing was changed" % (path, _kind(mode)))


def _open_for_append(path):
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        info = None
    if info is not None and not stat.S_ISREG(info.st_mode):
        raise _refuse_kind(path, info.st_mode)
    flags = os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags, atomic.NEW_FILE_MODE)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise atomic.NodeStateError("journal %s is a symlink; not written through" % path)
        raise atomic.NodeStateError("cannot open journal %s: %s; nothing was changed" % (path, exc.strerror or exc))
    opened = os.fstat(fd)
    if not stat.S_ISREG(opened.st_mode):
        os.close(fd)
        raise _refuse_kind(path, opened.st_mode)
    return fd


def _read_fd(fd, path):
    size = os.fstat(fd).st_size
    if size > _LIMIT:
        raise atomic.NodeStateError("journal %s is larger than %d bytes; not read, nothing was changed" % (path, _LIMIT))
    chunks, offset = [], 0
    while offset < size:
        chunk = os.pread(fd, min(65536, size - offset), offset)
        if not chunk:
            break
        chunks.append(chunk)
        offset += len(chunk)
    return b"".join(chunks)


def append(path, step, event, outcome=None, changed=None, at=None, notes=None):
    """Append one event to the journal at ``path`` (its folder is created 0700) and fsync it; returns the line.

    The whole journal is read and checked first (nothing is appended to a damaged one). A last line a
    kill cut short is removed, and the new line records it (``repaired``); its note goes to ``notes``.
    """
    line = _line(step, event, outcome, changed, at)
    directory = os.path.dirname(os.path.abspath(path))
    atomic.make_private_dir(directory)
    fd = _open_for_append(path)
    try:
        locks.hold(fd, path)
        blob = _read_fd(fd, path)
        entries, tail, _notes = journal_lines.parse(blob, path)
        if tail:
            line["repaired"] = {"cut_bytes": len(tail), "cut_text": tail[:80].decode("utf-8", errors="replace")}
            os.ftruncate(fd, len(blob) - len(tail))
            if notes is not None:
                notes.append(journal_lines.repair_note(len(entries) + 1, path, line["repaired"]))
        data = (json.dumps(line, sort_keys=True) + "\n").encode()
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        os.fsync(fd)
    finally:
        os.close(fd)
    atomic.fsync_dir(directory)
    return line


def read(path):
    """(entries, notes) of the journal at ``path``; ([], []) when there is none yet. Damage anywhere is refused by line."""
    try:
        blob = _fileio.read_regular(path, _LIMIT)
    except FileNotFoundError:
        return [], []
    except _fileio.FileIOError as exc:
        raise atomic.NodeStateError("journal %s; nothing was changed" % exc)
    entries, _tail, notes = journal_lines.parse(blob, path)
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


def recorded_files(entries, steps=_steps.FILE_STEPS):
    """[{path, backup}] that ``steps`` recorded (``changed.files``), the first record of each path.

    ``steps`` defaults to the step table's rows with ``files`` (state, config).

    A step records, when it starts, the files it is about to create (``backup: null``), and when it
    finishes, the backups it made.

    The first one is what the path held before the transition touched it: a resumed run that finds
    a step already done records no new backup, and must not hide the original one.
    """
    seen = {}
    for entry in entries:
        if entry["step"] not in steps or not isinstance(entry.get("changed"), dict):
            continue
        files = entry["changed"].get("files")
        if files is None:
            continue
        where = "the journal's %s %s event at %s" % (entry["step"], entry["event"], entry["at"])
        if not isinstance(files, list):
            raise atomic.NodeStateError("%s: changed.files is a %s, not a list; nothing was changed" % (where, type(files).__name__))
        for index, item in enumerate(files):
            path = item.get("path") if isinstance(item, dict) else None
            backup = item.get("backup") if isinstance(item, dict) else None
            if not (isinstance(path, str) and path.startswith("/")) or not (backup is None or (isinstance(backup, str) and backup.startswith("/"))):
                raise atomic.NodeStateError("%s: changed.files[%d] %s is not {path: <node path>, backup: <node path> or null}; "
                                            "nothing was changed" % (where, index, _fileio.short_repr(item)))
            if path not in seen:
                seen[path] = {"path": path, "backup": backup}
    return list(seen.values())
