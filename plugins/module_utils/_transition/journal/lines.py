# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The lines of a transition's journal: what one is, and reading a whole journal's bytes into entries.

Public: `STEPS`, `EVENTS`, `OUTCOMES`, `time_problem(at)`, `parse(blob, path)`, `cut_note(path)`, `repair_note(number, path, repaired)`.

Every line is checked before anything is done with the journal: JSON (a RecursionError from deep
nesting is named, never raised), a mapping, a known ``step`` and ``event``, an ``at`` that is a time
the record can compute with (a time at the end of year 9999 whose fraction or offset carries it past
the calendar's end is refused by name, never an OverflowError), an ``outcome`` of the known ones,
``changed`` a mapping. A last line without its newline is what a kill leaves: it is returned as the
``tail`` to repair, never glued onto.
"""

from __future__ import annotations

import datetime
import re

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import fileio as _fileio
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._node_files import atomic
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._transition import steps as _steps

STEPS = _steps.NAMES  # the step table's names (_transition/steps.py)
EVENTS = ("started", "finished")
OUTCOMES = ("ok", "changed", "skipped", "failed")
EXAMPLE_TIME = "2026-12-01T09:00:00.000000Z"
# The times _transition.record.event_time reads: a fraction of any length, Z or an offset.
_TIME = re.compile(r"(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})?")


def time_problem(at):
    """None when ``at`` is a journal time the record can compute with, else what is wrong with it."""
    match = _TIME.fullmatch(at) if isinstance(at, str) else None
    if match is None:
        return "is not a time such as %s" % EXAMPLE_TIME
    whole, fraction, zone = match.groups()
    try:
        moment = datetime.datetime.strptime(whole, "%Y-%m-%dT%H:%M:%S")
    except ValueError:
        return "is not a date and time of the calendar"
    try:
        offset = datetime.timedelta(0)
        if zone and zone != "Z":
            offset = datetime.timedelta(hours=int(zone[1:3]), minutes=int(zone[4:6])) * (1 if zone[0] == "+" else -1)
        tz = datetime.timezone(offset)
    except ValueError:
        return "has an offset %s beyond the 24 hours a UTC offset may have" % zone
    try:
        micro = int(round(float("0" + fraction) * 1000000)) if fraction else 0
        aware = (moment + datetime.timedelta(microseconds=micro)).replace(tzinfo=tz)
        aware.astimezone(datetime.timezone.utc)
        aware.timestamp()
    except (OverflowError, ValueError):
        return "lies outside years 1 to 9999 once its fraction and offset are applied (it overflows the calendar)"
    return None


def _refuse(number, path, what):
    return atomic.NodeStateError("line %d of journal %s %s; nothing was changed" % (number, path, what))


def _entry(number, raw, path):
    text = raw.decode("utf-8", errors="replace")
    try:
        entry = _fileio.parse_json(raw)
    except _fileio.JSONTooDeep:
        raise _refuse(number, path, "is JSON nested too deeply to parse (a RecursionError in the parser)")
    except ValueError:
        entry = None
    if not (isinstance(entry, dict) and entry.get("step") in STEPS and entry.get("event") in EVENTS and "at" in entry):
        raise _refuse(number, path, "is not a journal entry: %r" % (text[:80],))
    problem = time_problem(entry["at"])
    if problem:
        raise _refuse(number, path, "is not a journal entry: its time 'at' %r %s" % (str(entry["at"])[:40], problem))
    if entry.get("outcome") is not None and entry["outcome"] not in OUTCOMES:
        raise _refuse(number, path, "is not a journal entry: its outcome %r is not one of %s" % (str(entry["outcome"])[:40], ", ".join(OUTCOMES)))
    for key in ("changed", "repaired"):
        if entry.get(key) is not None and not isinstance(entry[key], dict):
            raise _refuse(number, path, "is not a journal entry: its %s is a %s, not a mapping" % (key, type(entry[key]).__name__))
    return entry


def cut_note(path):
    """The note for a last line a kill cut short."""
    return "the last line of %s was cut short (the run was killed while writing it) and is ignored" % path


def repair_note(number, path, repaired):
    """The note for an entry that was appended after removing a cut last line."""
    return ("line %d of %s was appended after removing a last line cut short by a kill (%s bytes: %r)"
            % (number, path, repaired.get("cut_bytes"), str(repaired.get("cut_text"))[:80]))


def parse(blob, path):
    """``(entries, tail, notes)`` of the journal bytes ``blob``: ``tail`` is a last line without its newline (b"" if none)."""
    *complete, tail = blob.split(b"\n")
    notes = []
    entries = []
    for number, raw in enumerate(complete, start=1):
        entry = _entry(number, raw, path)
        if entry.get("repaired"):
            notes.append(repair_note(number, path, entry["repaired"]))
        entries.append(entry)
    if tail:
        notes.append(cut_note(path))
    return entries, tail, notes
