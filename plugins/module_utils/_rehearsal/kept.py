# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What a rehearsal keeps beside a transition's journal: the check after a rollback, the reboot after an enable.

The check after a rehearsed rollback is ``transitions/<rollback id>/rehearsal.json``; the rehearsed reboot after an
enable is ``transitions/<enable id>/reboot.json`` (``name``, ``key``).

Public: `NAME`, `READ_LIMIT`, `path(root, state_dir, transition_id, name=NAME)`,
`read(root, state_dir, transition_id, name=NAME, key="rollback")`, `write(root, state_dir, transition_id, document, check_mode=False,
name=NAME, key="rollback")`.

The document (``_rehearsal.workloads.check``) names the rollback transition it checked, so
a later verify on any controller reads it from the node (``rehearsal_info``), never from a variable.
It is written like the rest of the collection's state: the transition's folder must exist and be
private (``confine``: never a symlink, owned by the module's user, writable by no one else), the file
is replaced atomically (temporary file, fsync, rename, fsync of the folder), 0600, never through a
symlink. A document that is the same as the one kept is not written again.
"""

from __future__ import annotations

import json
import os

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import fileio as _fileio
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._node_files import atomic, confine
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._transition.journal import transitions

NAME = "rehearsal.json"
READ_LIMIT = 1024 * 1024


def path(root, state_dir, transition_id, name=NAME):
    """Where the check after rollback ``transition_id`` is kept (the folder checked, the file not read)."""
    return os.path.join(transitions.folder(root, state_dir, transition_id), name)


def _encoded(document):
    return (json.dumps(document, indent=2, sort_keys=True) + "\n").encode()


def read(root, state_dir, transition_id, name=NAME, key="rollback"):
    """(document or None, problem or None): the kept check, None when there is none; a damaged one is a problem, not an error.

    The document must name its transition under ``key`` (``rollback`` for the check, ``enable`` for the reboot).
    """
    where = path(root, state_dir, transition_id, name)
    shown = "%s/transitions/%s/%s" % (state_dir.rstrip("/"), transition_id, name)
    try:
        blob = _fileio.read_regular(where, READ_LIMIT)
    except FileNotFoundError:
        return None, None
    except _fileio.FileIOError as exc:
        return None, "%s: %s" % (shown, exc)
    try:
        document = _fileio.parse_json(blob)
    except ValueError as exc:
        return None, "%s is not JSON (%s); not read" % (shown, exc)
    if not isinstance(document, dict) or document.get(key) != transition_id:
        return None, "%s does not name %s %s; not read" % (shown, key, transition_id)
    return document, None


def write(root, state_dir, transition_id, document, check_mode=False, name=NAME, key="rollback"):  # pylint: disable=too-many-arguments
    """Keep ``document`` as the check after rollback ``transition_id``; returns (changed, previous document or None)."""
    folder = transitions.folder(root, state_dir, transition_id)
    if not os.path.isdir(folder):
        raise atomic.NodeStateError("no transition %s on this node (%s/transitions/%s); the rehearsal's check was not kept"
                                    % (transition_id, state_dir, transition_id))
    where = os.path.join(folder, name)
    confine.require_private(root, state_dir, where)
    before, problem = read(root, state_dir, transition_id, name, key)
    if problem is None and before == json.loads(_encoded(document)):
        return False, before
    if not check_mode:
        atomic.write_atomic(where, _encoded(document), mode=atomic.NEW_FILE_MODE, owner=atomic.private_owner())
    return True, before
