# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Transitions on a node: which one is open, opening a new one, closing it.

Public: `CURRENT`, `open_transition(root, state_dir, target, new_id)`, `close(root, state_dir, transition_id)`,
`folder(root, state_dir, transition_id)`, `journal_path(root, state_dir, transition_id)`, `current(root, state_dir)`.

``<state_dir>/transitions/<id>/`` holds a transition's backups and its journal
(``journal.jsonl``); ``<state_dir>/transitions/current`` names the open one and its target
(``enable`` or ``rollback``), so a run killed at any step is found again by the next run and
resumed, not started over. Closing a transition removes the pointer; the folder stays as the
record of what was done.
"""

from __future__ import annotations

import json
import os
import re

from ansible_collections.gpusmith.numa_gate.plugins.module_utils import _fileio
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._node_state import atomic, journal

CURRENT = "current"
_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")


def _transitions(root, state_dir):
    return _fileio.resolve_within(root, os.path.join(state_dir, "transitions"))


def folder(root, state_dir, transition_id):
    """The real folder of transition ``transition_id`` (checked: a plain name, never a path)."""
    if not isinstance(transition_id, str) or not _ID.match(transition_id):
        raise atomic.NodeStateError("transition id %r must be 1-64 letters, digits, '.', '_' or '-', not starting with a "
                                    "punctuation mark" % (transition_id,))
    return os.path.join(_transitions(root, state_dir), transition_id)


def current(root, state_dir):
    """The open transition ``{"id", "target"}``, or None."""
    path = os.path.join(_transitions(root, state_dir), CURRENT)
    try:
        text = _fileio.read_regular(path, 4096)
    except FileNotFoundError:
        return None
    try:
        pointer = json.loads(text.decode("utf-8"))
        folder(root, state_dir, pointer["id"])
    except (ValueError, KeyError, TypeError, UnicodeDecodeError, atomic.NodeStateError):
        raise atomic.NodeStateError("%s/transitions/%s does not name a transition (%r); nothing was changed"
                                    % (state_dir, CURRENT, text[:80]))
    return {"id": pointer["id"], "target": pointer.get("target")}


def open_transition(root, state_dir, target, new_id):
    """The open transition if there is one for ``target``, else a new one named ``new_id``.

    Returns ``(pointer, resumed)``. An open transition to another target is an error: finish or
    roll that one back first.
    """
    pointer = current(root, state_dir)
    if pointer is not None:
        if pointer["target"] != target:
            raise atomic.NodeStateError("transition %s to %s is still open on this node; re-run %s to finish it before a %s"
                                        % (pointer["id"], pointer["target"], pointer["target"], target))
        return pointer, True
    real = folder(root, state_dir, new_id)
    atomic.make_private_dir(real)
    pointer = {"id": new_id, "target": target}
    atomic.write_atomic(os.path.join(_transitions(root, state_dir), CURRENT), (json.dumps(pointer) + "\n").encode(),
                        mode=atomic.NEW_FILE_MODE, owner=atomic.private_owner())
    return pointer, False


def close(root, state_dir, transition_id):
    """Close ``transition_id`` if it is the open one; returns whether anything changed."""
    pointer = current(root, state_dir)
    if pointer is None or pointer["id"] != transition_id:
        return False
    path = os.path.join(_transitions(root, state_dir), CURRENT)
    os.unlink(path)
    atomic.fsync_dir(os.path.dirname(path))
    return True


def journal_path(root, state_dir, transition_id):
    """Where transition ``transition_id`` keeps its journal."""
    return os.path.join(folder(root, state_dir, transition_id), journal.JOURNAL)
