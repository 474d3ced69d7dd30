# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Where the collection's state lies on a node, and the one set of checks before it is read or written.

Public: `DEFAULT_STATE_DIR`, `inside`, `node_path`, `state_folder`, `transitions_folder`, `transition_folder`, `backup_copy`,
`privacy_problems`, `require_private`, `NotPrivate`.

Every module that reads or writes ``<state_dir>/transitions`` or the backups in it goes through these
functions, so the read-only ``transition_info`` and the writing ``transition_journal`` and
``transition_restore`` refuse the same things with the same words:

- ``<state_dir>/transitions`` must be that folder itself, not a symlink (`transitions_folder`);
- ``<state_dir>/transitions/<id>`` must be a folder, not a symlink (`transition_folder`);
- a backup named in a journal or a backup record must lie inside the state folder (`backup_copy`);
- state that is written must be private (`require_private`): owned by the user running the module
  (root on a node) and not writable by group or others, as the collection creates it (folders 0700,
  files 0600). State someone else could have written is refused for writes; a read notes it
  (`privacy_problems`).
"""

from __future__ import annotations

import os
import stat

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import fileio as _fileio
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._node_files import atomic

# The state folder's default: every module's ``state_dir`` option takes it from here; the doc fragments
# state it literally and roles/settings/defaults/main.yml (numa_gate_state_dir) holds the roles' copy
# (tests/unit/test_shared_defaults.py keeps them equal).
DEFAULT_STATE_DIR = "/var/lib/numa-gate"
TRANSITIONS = "transitions"


class NotPrivate(atomic.NodeStateError):
    """State folder or journal that someone other than the module's user owns, or group or others can write."""


def inside(path, folder):
    """Whether ``path`` is ``folder`` or lies under it (both real, absolute paths)."""
    return os.path.commonpath([path, folder]) == folder


def node_path(real_root, real):
    """The node path of ``real`` (a path under the resolved root)."""
    return real if real_root == "/" else "/" + os.path.relpath(real, real_root)


def state_folder(root, state_dir):
    """The real state folder (resolved inside ``root``)."""
    return _fileio.resolve_within(root, state_dir)


def transitions_folder(root, state_dir):
    """The real ``<state_dir>/transitions``, refused when it is a symlink (inside or out of the state folder)."""
    state = state_folder(root, state_dir)
    expected = os.path.join(state, TRANSITIONS)
    real = _fileio.resolve_within(root, os.path.join(state_dir, TRANSITIONS))
    if real != expected:
        if not inside(real, state):
            raise atomic.NodeStateError("%s/%s leads out of %s (a symlink); not read" % (state_dir, TRANSITIONS, state_dir))
        raise atomic.NodeStateError("%s/%s is a symlink; not read" % (state_dir, TRANSITIONS))
    if os.path.lexists(real) and not os.path.isdir(real):
        raise atomic.NodeStateError("%s/%s is not a folder; not read" % (state_dir, TRANSITIONS))
    return real


def transition_folder(root, state_dir, name):
    """The real ``<state_dir>/transitions/<name>`` (``name`` already checked to be a plain name), never a symlink."""
    real = os.path.join(transitions_folder(root, state_dir), name)
    try:
        info = os.lstat(real)
    except FileNotFoundError:
        return real
    if stat.S_ISLNK(info.st_mode):
        raise atomic.NodeStateError("%s/%s/%s is a symlink; not read" % (state_dir, TRANSITIONS, name))
    if not stat.S_ISDIR(info.st_mode):
        raise atomic.NodeStateError("%s/%s/%s is not a folder; not read" % (state_dir, TRANSITIONS, name))
    return real


def backup_copy(root, state_dir, backup):
    """The real path of ``backup`` (a node path from a journal or record), refused unless it lies in the state folder.

    Its last component is not followed: a backup that is a symlink is refused where it is read.
    """
    copy = _fileio.resolve_within(root, backup, follow_last=False)
    if not inside(copy, state_folder(root, state_dir)):
        raise atomic.NodeStateError("backup %s lies outside the state folder; not read" % backup)
    return copy


def _problem(real, shown):
    try:
        info = os.lstat(real)
    except FileNotFoundError:
        return None
    if stat.S_ISLNK(info.st_mode):
        return None  # a link's own mode means nothing; links are refused where they are read or written
    kind = "folder" if stat.S_ISDIR(info.st_mode) else "file"
    euid = os.geteuid()
    if info.st_uid != euid:
        return "state %s %s is owned by uid %d, not by uid %d that runs this module" % (kind, shown, info.st_uid, euid)
    mode = stat.S_IMODE(info.st_mode)
    if mode & 0o022:
        who = "group and others" if mode & 0o022 == 0o022 else ("group" if mode & 0o020 else "others")
        return "state %s %s is writable by %s (mode %04o)" % (kind, shown, who, mode)
    return None


def _chain(state, real):
    """The existing paths from ``state`` down to ``real`` (both real), ``state`` first."""
    paths = [state]
    if real != state and inside(real, state):
        current = state
        for part in os.path.relpath(real, state).split(os.sep):
            current = os.path.join(current, part)
            paths.append(current)
    return paths


def privacy_problems(root, state_dir, real):
    """What makes the state from ``state_dir`` down to ``real`` (a real path in it) not private, one line each."""
    state = state_folder(root, state_dir)
    problems = []
    for path in _chain(state, real):
        shown = state_dir.rstrip("/") + path[len(state):] if path != state else state_dir
        problem = _problem(path, shown)
        if problem:
            problems.append(problem)
    return problems


def require_private(root, state_dir, real):
    """Refuse to write state when anything from ``state_dir`` down to ``real`` is not private (see `privacy_problems`)."""
    problems = privacy_problems(root, state_dir, real)
    if problems:
        raise NotPrivate("%s: the collection's state must be private (owned by the user running the module, folders 0700, files 0600, "
                         "writable by no one else), so it is not trusted: give it back with chown and chmod, or remove it; nothing "
                         "was changed" % "; ".join(problems))
