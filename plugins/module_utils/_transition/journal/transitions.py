# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Transitions on a node: which one is open, opening a new one, closing it.

Public: `CURRENT`, `LOCK`, `open_transition(root, state_dir, target, new_id)`, `close(root, state_dir, transition_id)`,
`folder(root, state_dir, transition_id)`, `journal_path(root, state_dir, transition_id)`, `current(root, state_dir)`,
`check_id(transition_id)`, `check_target(pointer, target)`, `ids(root, state_dir)`.

``<state_dir>/transitions/<id>/`` holds a transition's backups and its journal
(``journal.jsonl``); ``<state_dir>/transitions/current`` names the open one and its target
(``enable`` or ``rollback``), so a run killed at any step is found again by the next run and
resumed, not started over. Closing a transition removes the pointer; the folder stays as the
record of what was done. Opening and closing hold ``transitions/.lock`` (``flock``), so two runs
that open at once get one transition: the second finds the first one's pointer. Closing reads and
checks the whole journal first: a damaged journal keeps its transition open. Every path goes
through ``confine`` (no symlinked transitions folder or transition folder), and what is written
must be private state (``confine.require_private``).
"""

from __future__ import annotations

import json
import os
import re

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import fileio as _fileio
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._node_files import atomic, confine, locks
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._transition.journal import journal

CURRENT = "current"
LOCK = ".lock"
TARGETS = ("enable", "rollback")
_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")


def check_id(transition_id):
    """Refuse a transition id that is not a plain name."""
    if not isinstance(transition_id, str) or not _ID.match(transition_id):
        raise atomic.NodeStateError("transition id %r must be 1-64 letters, digits, '.', '_' or '-', not starting with a "
                                    "punctuation mark" % (transition_id,))
    return transition_id


def folder(root, state_dir, transition_id):
    """The real folder of transition ``transition_id`` (a plain name, never a path; never a symlink)."""
    return confine.transition_folder(root, state_dir, check_id(transition_id))


def current(root, state_dir):
    """The open transition ``{"id", "target"}``, or None."""
    path = os.path.join(confine.transitions_folder(root, state_dir), CURRENT)
    try:
        text = _fileio.read_regular(path, 4096)
    except FileNotFoundError:
        return None
    except _fileio.FileIOError as exc:
        raise atomic.NodeStateError("%s/transitions/%s: %s; nothing was changed" % (state_dir, CURRENT, exc))
    try:
        pointer = _fileio.parse_json(text)
        check_id(pointer["id"])
        if pointer.get("target") not in TARGETS:
            raise ValueError("target")
    except (ValueError, KeyError, TypeError, AttributeError, atomic.NodeStateError):
        raise atomic.NodeStateError("%s/transitions/%s does not name a transition (%s); nothing was changed"
                                    % (state_dir, CURRENT, _fileio.short_repr(text[:80])))
    return {"id": pointer["id"], "target": pointer["target"]}


def check_target(pointer, target):
    """Refuse to open a transition to ``target`` while ``pointer`` (the open one) goes to another target."""
    if pointer is not None and pointer["target"] != target:
        raise atomic.NodeStateError("transition %s to %s is still open on this node; re-run %s to finish it before a %s"
                                    % (pointer["id"], pointer["target"], pointer["target"], target))


def _locked(root, state_dir):
    parent = confine.transitions_folder(root, state_dir)
    atomic.make_private_dir(parent)
    confine.require_private(root, state_dir, parent)
    return locks.lock_file(os.path.join(parent, LOCK), "%s/transitions/%s" % (state_dir, LOCK))


def open_transition(root, state_dir, target, new_id):
    """The open transition if there is one for ``target``, else a new one named ``new_id``.

    Returns ``(pointer, resumed)``. An open transition to another target is an error: finish or
    roll that one back first. A new id whose folder exists already (a closed transition) is refused.
    """
    check_id(new_id)
    with _locked(root, state_dir):
        pointer = current(root, state_dir)
        if pointer is not None:
            check_target(pointer, target)
            confine.require_private(root, state_dir, folder(root, state_dir, pointer["id"]))
            return pointer, True
        real = folder(root, state_dir, new_id)
        if os.path.lexists(real):
            raise atomic.NodeStateError("transition id %s is taken: %s/transitions/%s exists (a transition opened before); "
                                        "give another new_id; nothing was changed" % (new_id, state_dir, new_id))
        atomic.make_private_dir(real)
        pointer = {"id": new_id, "target": target}
        atomic.write_atomic(os.path.join(os.path.dirname(real), CURRENT), (json.dumps(pointer) + "\n").encode(),
                            mode=atomic.NEW_FILE_MODE, owner=atomic.private_owner())
    return pointer, False


def close(root, state_dir, transition_id):
    """Close ``transition_id`` if it is the open one; returns whether anything changed.

    The journal is read and checked first: a damaged one is refused and the transition stays open.
    """
    check_id(transition_id)
    if current(root, state_dir) is None:
        return False
    with _locked(root, state_dir):
        pointer = current(root, state_dir)
        if pointer is None or pointer["id"] != transition_id:
            return False
        real = folder(root, state_dir, transition_id)
        confine.require_private(root, state_dir, os.path.join(real, journal.JOURNAL))
        journal.read(os.path.join(real, journal.JOURNAL))
        path = os.path.join(os.path.dirname(real), CURRENT)
        os.unlink(path)
        atomic.fsync_dir(os.path.dirname(path))
    return True


def journal_path(root, state_dir, transition_id):
    """Where transition ``transition_id`` keeps its journal."""
    return os.path.join(folder(root, state_dir, transition_id), journal.JOURNAL)


def ids(root, state_dir):
    """The ids of every transition folder on the node, sorted: plain names only, never a symlink, ``current`` or the lock."""
    parent = confine.transitions_folder(root, state_dir)
    found = []
    for name in sorted(os.listdir(parent)) if os.path.isdir(parent) else []:
        path = os.path.join(parent, name)
        if name in (CURRENT, LOCK) or not _ID.match(name) or os.path.islink(path) or not os.path.isdir(path):
            continue
        found.append(name)
    return found
