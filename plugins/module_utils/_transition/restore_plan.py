# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Putting back what a transition replaced or removed: find every file, check every backup, then write.

Public: `unrecorded(root, folder, recorded)`, `touched(root, state_dir, transition_id, entries)`,
`plan(root, state_dir, files)`, `apply(steps, keep)`.

`plan` reads and checks everything before anything is written: each node file is absent, a regular
file or a symlink (a FIFO, device or folder there is refused), each backup lies in the state folder
(``confine.backup_copy``), is private state, is a regular file with a record of the right shape and
matches its recorded sha256 (``backups.load``). Only then does `apply` back up what is there now and
put the checked bytes back, so a refusal leaves every file, the backup folder included, as it was.
``transition_info`` finds the same files through `touched`: one set of checks for reading and writing.
"""

from __future__ import annotations

import hashlib
import os
import stat

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import fileio as _fileio
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._node_files import atomic, backups, confine
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._transition.journal import journal, transitions

_NOTHING = "; nothing was put back"


def unrecorded(root, folder, recorded):
    """Backups in the transition's ``backups/`` that no journal event names (a step killed before it recorded them).

    The oldest per node path, ``[{path, backup, recorded: False}]``. A ``backups`` that is a symlink
    is not read; a backup whose record cannot be read, or names a file outside ``root``, is skipped.
    """
    real_root = os.path.realpath(root)
    kept_dir = os.path.join(folder, "backups")
    if os.path.islink(kept_dir) or not os.path.isdir(kept_dir):
        return []
    found = {}
    for name in sorted(os.listdir(kept_dir)):
        if not name.endswith(backups.BACKUP_SUFFIX):
            continue
        copy = os.path.join(kept_dir, name)
        try:
            kept = backups.read_record(copy) or {}
        except (atomic.NodeStateError, _fileio.FileIOError):
            continue
        original = kept.get("path")
        if not isinstance(original, str) or not os.path.isabs(original) or not confine.inside(os.path.normpath(original), real_root):
            continue
        path = confine.node_path(real_root, os.path.normpath(original))
        if path not in recorded and path not in found:
            found[path] = {"path": path, "backup": confine.node_path(real_root, copy), "recorded": False}
    return list(found.values())


def touched(root, state_dir, transition_id, entries):
    """Every file the transition touched: those its journal recorded, then the backups it kept without recording them."""
    files = [dict(item, recorded=True) for item in journal.recorded_files(entries)]
    folder = transitions.folder(root, state_dir, transition_id)
    return files + unrecorded(root, folder, {item["path"] for item in files})


def _now(real, path):
    """(kind, sha256) of what is at ``real`` now; refuses anything but absent, a regular file or a symlink."""
    try:
        info = os.lstat(real)
    except FileNotFoundError:
        return None, None
    if stat.S_ISLNK(info.st_mode):
        return "symlink", hashlib.sha256(os.fsencode(os.readlink(real))).hexdigest()
    if not stat.S_ISREG(info.st_mode):
        kind = "a FIFO" if stat.S_ISFIFO(info.st_mode) else ("a folder" if stat.S_ISDIR(info.st_mode) else "not a regular file")
        raise atomic.NodeStateError("%s is %s, not a regular file or a symlink: not replaced%s" % (path, kind, _NOTHING))
    try:
        data = _fileio.read_regular(real, backups.BACKUP_READ_LIMIT)
    except _fileio.FileIOError as exc:
        raise atomic.NodeStateError("%s%s" % (exc, _NOTHING))
    return "file", hashlib.sha256(data).hexdigest()


def plan(root, state_dir, files):
    """``[(node path, real path, checked backup or None)]`` for the files of ``files`` that differ from their backup.

    ``files`` are ``{path, backup}`` (a node path, or None when the file did not exist before).
    Every backup is checked here, before the caller writes anything.
    """
    steps = []
    for entry in files:
        path, backup = entry.get("path"), entry.get("backup")
        if not isinstance(path, str) or not path or (backup is not None and not (isinstance(backup, str) and backup)):
            raise atomic.NodeStateError("files entry %s is not {path: <node path>, backup: <node path> or null}%s"
                                        % (_fileio.short_repr(entry), _NOTHING))
        real = _fileio.resolve_within(root, path, follow_last=False)
        kind, sha_now = _now(real, path)
        if backup is None:
            if kind is not None:
                steps.append((path, real, None))
            continue
        try:
            copy = confine.backup_copy(root, state_dir, backup)
            confine.require_private(root, state_dir, copy)
            if not os.path.lexists(copy):
                raise atomic.NodeStateError("backup %s is missing" % backup)
            kept = backups.load(copy)
        except confine.NotPrivate:
            raise
        except atomic.NodeStateError as exc:
            raise atomic.NodeStateError("%s%s" % (str(exc).replace("; nothing was changed", ""), _NOTHING))
        if kind != kept["record"].get("kind", "file") or sha_now != kept["sha256"]:
            parent = os.path.dirname(real)
            if os.path.islink(parent) or not os.path.isdir(parent):
                raise atomic.NodeStateError("%s cannot be put back: its folder %s is %s%s" % (
                    path, os.path.dirname(path), "a symlink" if os.path.islink(parent) else
                    ("missing" if not os.path.lexists(parent) else "not a folder"), _NOTHING))
            steps.append((path, real, kept))
    return steps


def apply(steps, keep):
    """Back up what is at each path into ``keep`` (a real folder), then put the checked backup back or remove the file."""
    done = []
    made = not os.path.lexists(keep)
    for path, real, kept in steps:
        saved = backups.backup(real, keep) if os.path.lexists(real) else None
        removed = False
        try:
            if kept is None:
                backups.remove(real)
            else:
                if kept["record"].get("kind") == "symlink" and os.path.lexists(real):
                    backups.remove(real)
                    removed = True
                backups.put_back(kept, real)
        except atomic.NodeStateError as exc:
            if not removed:  # the file is as it was: its backup is not kept (a removed one's backup is its only copy)
                _discard(saved, keep if made and not done else None)
            undone = "; put back before it: %s" % ", ".join(item["path"] for item in done) if done else _NOTHING
            raise atomic.NodeStateError("%s%s" % (str(exc).replace("; nothing was changed", ""), undone))
        done.append({"path": path, "action": "removed" if kept is None else "restored", "saved": saved})
    return done


def _discard(saved, folder):
    """Take away the backup (and record) of a file that was not replaced after all, and the folder made for it."""
    for name in (saved, saved and saved + backups.RECORD_SUFFIX):
        if name and os.path.lexists(name):
            os.unlink(name)
    if folder and os.path.isdir(folder) and not os.listdir(folder):
        os.rmdir(folder)
