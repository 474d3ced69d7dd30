# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A node's transition record read from its journal and backups, on the node (read-only).

Public: `read(root, state_dir, transition_id, node, target)`, `last(root, state_dir)`.

`read` builds the record `record.build` describes from what is on the node: the journal, each file
the transition touched with its backup's record (the sha256 before) and the sha256 of what it holds
now. Nothing under the state folder is read through a symlink, and a node file is never opened
through one (a symlink's own target text is what its sha256 is taken of, as its backup keeps it).
``transition_info`` returns it; ``transition_journal`` returns it with the event that ends a
transition (the uncordon's), so keeping the record costs no module run of its own.
"""

from __future__ import annotations

import hashlib
import os
import stat

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import fileio as _fileio
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._node_files import atomic, backups, confine
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._transition.journal import journal, transitions
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._transition import restore_plan
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._transition import record


def last(root, state_dir):
    """The open transition's id, else the one whose journal ends last (by time, then by name), else None."""
    pointer = transitions.current(root, state_dir)
    if pointer is not None:
        return pointer["id"]
    parent = confine.transitions_folder(root, state_dir)
    best_key, best = None, None
    for name in sorted(os.listdir(parent)) if os.path.isdir(parent) else []:
        path = os.path.join(parent, name)
        if name == transitions.CURRENT or os.path.islink(path) or not os.path.isdir(path):
            continue
        try:
            where = transitions.journal_path(root, state_dir, name)
        except atomic.NodeStateError:
            continue  # not a transition's folder: its name is not an id
        try:
            entries, _notes = journal.read(where)
        except (atomic.NodeStateError, _fileio.FileIOError):
            entries = []
        moment = record.event_time(entries[-1]["at"]) if entries else None
        key = (moment.timestamp() if moment else float("-inf"), name)
        if best_key is None or key > best_key:
            best_key, best = key, name
    return best


def _sha_now(real):
    """(sha256, problem) of what is at ``real`` now: a file's bytes, a symlink's target text, None when absent."""
    try:
        info = os.lstat(real)
    except FileNotFoundError:
        return None, None
    if stat.S_ISLNK(info.st_mode):
        return hashlib.sha256(os.fsencode(os.readlink(real))).hexdigest(), None
    try:
        return hashlib.sha256(_fileio.read_regular(real, backups.BACKUP_READ_LIMIT)).hexdigest(), None
    except _fileio.FileIOError as exc:
        return None, str(exc)


def _kept(root, state_dir, backup):
    """(record of the backup, problem): its ``.meta``, or the copy's own sha256 when it has none."""
    try:
        copy = confine.backup_copy(root, state_dir, backup)
    except atomic.NodeStateError as exc:
        return None, str(exc)
    if not os.path.lexists(copy):
        return None, "backup %s is missing" % backup
    try:
        kept = backups.read_record(copy)
        if kept is None:
            data = _fileio.read_regular(copy, backups.BACKUP_READ_LIMIT)
            return {"sha256": hashlib.sha256(data).hexdigest()}, "backup %s has no record; sha256_before is its copy's" % backup
    except (atomic.NodeStateError, _fileio.FileIOError) as exc:
        return None, str(exc)
    return kept, None


def _files(root, state_dir, transition_id, entries):
    files = []
    for item in restore_plan.touched(root, state_dir, transition_id, entries):
        kept, problem = _kept(root, state_dir, item["backup"]) if item["backup"] else (None, None)
        sha_now, now_problem = _sha_now(_fileio.resolve_within(root, item["path"], follow_last=False))
        files.append(dict(item, kept=kept, sha256_now=sha_now, problem="; ".join(p for p in (problem, now_problem) if p) or None))
    return files


def read(root, state_dir, transition_id, node, target=None):
    """{"found", "transition", "record"} of ``transition_id`` (default: the open one, else the one whose journal ends last)."""
    transition_id = transition_id or last(root, state_dir)
    folder = transitions.folder(root, state_dir, transition_id) if transition_id else None
    if folder is None or not os.path.isdir(folder):
        return {"found": False, "transition": None, "record": None}
    path = os.path.join(folder, journal.JOURNAL)
    entries, notes = journal.read(path)
    notes = notes + ["not private: %s" % problem for problem in confine.privacy_problems(root, state_dir, path)]
    built = record.build(transition_id, entries, _files(root, state_dir, transition_id, entries), pointer=transitions.current(root, state_dir),
                         node=node or os.uname().nodename, target=target, notes=notes)
    return {"found": True, "transition": transition_id, "record": built}
