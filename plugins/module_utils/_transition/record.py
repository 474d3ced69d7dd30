# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A node's transition record: its steps with their times, and each file it touched, before and after.

Public: `SCHEMA_VERSION`, `OUTCOMES`, `build(transition_id, entries, files, pointer=None, node=None, target=None, notes=())`,
`event_time(at)`, `journal_target(entries)`, `ends(entries)`, `summary(record)`, `SUMMARY_KEYS`.

Pure: the caller reads the node (the journal's entries as ``_transition.journal.journal.read`` returns
them, the open transition's pointer, each touched file's backup record and sha256 now) and
passes the values in; nothing here touches a file. The result is JSON-able and is what
``transition-<id>.json`` in the controller's artifacts holds (docs/transition.md, "The transition
record").
"""

from __future__ import annotations

import datetime
import re

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._transition import steps

SCHEMA_VERSION = 1
OUTCOMES = ("converged", "restored", "failed-closed", "failed-open")
TARGETS = ("enable", "rollback")
_TIME = re.compile(r"(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})?")


def event_time(at):
    """The journal time ``at`` (``2026-12-01T09:00:00.250000Z``, any fraction or none, ``Z`` or an offset) as an aware datetime, or None.

    Parsed by hand rather than with ``fromisoformat``, which before Python 3.11 takes neither ``Z`` nor a fraction of other than 3 or 6 digits.
    """
    match = _TIME.fullmatch(at) if isinstance(at, str) else None
    if match is None:
        return None
    whole, fraction, zone = match.groups()
    try:
        moment = datetime.datetime.strptime(whole, "%Y-%m-%dT%H:%M:%S")
    except ValueError:
        return None
    offset = datetime.timedelta(0)
    if zone and zone != "Z":
        offset = datetime.timedelta(hours=int(zone[1:3]), minutes=int(zone[4:6])) * (1 if zone[0] == "+" else -1)
    micro = int(round(float("0" + fraction) * 1000000)) if fraction else 0
    return (moment + datetime.timedelta(microseconds=micro)).replace(tzinfo=datetime.timezone(offset))


def _seconds(start, end):
    first, last = event_time(start), event_time(end)
    if first is None or last is None:
        return None
    return round((last - first).total_seconds(), 3)


def journal_target(entries):
    """The target a ``decide`` event recorded in its details (``changed.target``), or None."""
    for entry in entries:
        details = entry.get("changed")
        if entry["step"] == "decide" and isinstance(details, dict) and details.get("target") in TARGETS:
            return details["target"]
    return None


def ends(entries):
    """The last event when it ends the transition, else None.

    These are the events after which the role only keeps the record and closes the transition
    (`steps.ends`, the step table's rule): ``uncordon`` finished (it went through), ``restore``
    finished (it was put back), ``drain`` finished ``failed`` (nothing on the node was changed). The record is kept before the pointer is
    removed, so that a run killed between the two loses nothing: such a transition is recorded as
    closed at that event, and a note says its pointer was still there.
    """
    if not entries:
        return None
    last = entries[-1]
    if last.get("event") != "finished":
        return None
    return last if steps.ends(last["step"], last.get("outcome")) else None


def _steps(entries):
    """Each run of a step, in journal order: a ``started`` event and the ``finished`` that follows it.

    A step that recorded only its end (the role records cordon, drain, verify and uncordon that way)
    is taken to have started when the event before it was recorded, and says so (``start_recorded``).
    A step started again before it finished (a killed run, resumed) leaves the first run unfinished.
    """
    runs = []
    open_runs = {}
    previous = None
    for entry in entries:
        step, at = entry["step"], entry["at"]
        if entry["event"] == "started":
            run = {"step": step, "started": at, "finished": None, "duration_s": None, "outcome": None, "start_recorded": True,
                   "details": None, "details_at_start": entry.get("changed")}
            runs.append(run)
            open_runs[step] = run
        else:
            run = open_runs.pop(step, None)
            if run is None:
                run = {"step": step, "started": previous, "finished": None, "duration_s": None, "outcome": None,
                       "start_recorded": False, "details": None, "details_at_start": None}
                runs.append(run)
            run.update(finished=at, outcome=entry.get("outcome"), details=entry.get("changed"))
            if run["started"] is not None:
                run["duration_s"] = _seconds(run["started"], at)
        previous = at
    return runs


def _file(item):
    kept = item.get("kept")
    before = kept.get("sha256") if kept else None
    after = item.get("sha256_now")
    if item.get("backup") and kept is None:
        changed = None  # what the file held before is not known: its backup could not be read
    else:
        changed = before != after
    original = None
    if kept:
        original = {key: kept.get(key) for key in ("kind", "mode", "uid", "gid")}
        if kept.get("kind") == "symlink":
            original["link"] = kept.get("link")
    return {"path": item["path"], "backup": item.get("backup"), "recorded": bool(item.get("recorded", True)),
            "sha256_before": before, "sha256_after": after, "changed": changed, "original": original,
            "problem": item.get("problem")}


def _outcome(is_open, runs):
    if is_open:
        return "failed-open"
    if any(run["step"] == "restore" and run["finished"] and run["outcome"] != "failed" for run in runs):
        return "restored"
    if any(run["outcome"] == "failed" for run in runs):
        return "failed-closed"
    return "converged"


def _target(transition_id, entries, pointer, target):
    if pointer and pointer.get("id") == transition_id and pointer.get("target") in TARGETS:
        return pointer["target"], "open transition"
    recorded = journal_target(entries)
    if recorded is not None:
        return recorded, "journal"
    if target in TARGETS:
        return target, "caller"
    return None, None


def build(transition_id, entries, files, pointer=None, node=None, target=None, notes=()):
    """The record of transition ``transition_id`` (see the module docstring and docs/transition.md).

    ``entries``: the journal's entries, oldest first. ``files``: per touched file ``{path, backup,
    recorded, kept, sha256_now, problem}``, where ``kept`` is the backup's record (``.meta``: kind,
    mode, uid, gid, sha256 of the original) or None (no backup: the file did not exist before), and
    ``sha256_now`` is None for a file that is not there. ``pointer``: the node's open transition
    (``{"id", "target"}``) or None; an open transition whose journal `ends` it is recorded as
    closed. ``target``: the caller's word, used only when neither the open transition nor the
    journal says.
    """
    notes = list(notes)
    is_open = bool(pointer) and pointer.get("id") == transition_id
    last = ends(entries)
    if is_open and last is not None:
        is_open = False
        notes.append("the journal ends with %s %s (%s): the transition is done, and this record was read before its pointer "
                     "(transitions/current) was removed" % (last["step"], last["event"], last.get("outcome")))
    runs = _steps(entries)
    opened = entries[0]["at"] if entries else None
    closed = entries[-1]["at"] if entries and not is_open else None
    chosen, source = _target(transition_id, entries, pointer, target)
    unfinished = [run["step"] for run in runs if run["finished"] is None]
    return {
        "schema_version": SCHEMA_VERSION,
        "transition": transition_id,
        "target": chosen,
        "target_source": source,
        "node": node,
        "open": is_open,
        "opened": opened,
        "closed": closed,
        "duration_s": _seconds(opened, closed) if closed else None,
        "outcome": _outcome(is_open, runs),
        "failed_steps": [run["step"] for run in runs if run["outcome"] == "failed"],
        "in_progress": unfinished[-1] if is_open and unfinished else None,
        "steps": runs,
        "files": [_file(item) for item in files],
        "notes": notes,
    }


SUMMARY_KEYS = ("transition", "target", "outcome", "open", "opened", "closed", "duration_s", "failed_steps")


def summary(built):
    """The few values of a record that a list of a node's transitions shows (`SUMMARY_KEYS`): id, target, outcome, times."""
    return {key: built.get(key) for key in SUMMARY_KEYS}
