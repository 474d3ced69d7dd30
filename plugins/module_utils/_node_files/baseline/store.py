# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The node's baseline: its kubelet files as they were on first contact, kept once, never rewritten.

Public: `MANIFEST`, `SCHEMA_VERSION`, `record(root, store, files, facts)`, `load(root, store)`,
`verify(root, store)`, `original_bytes(root, store, path)`, `copy_bytes(root, store, entry)`, `drift(root, store, roles)`,
`restore(root, store, backup_dir, roles, remove)`.

``<store>/manifest.json`` lists every file (its node path, role, sha256, size, mode and owner, or
``absent: true`` when it did not exist) and the facts of that moment (the kubelet version and the
unit's flags); ``<store>/files/<n>`` holds the bytes, 0600 in 0700 folders. The store is built in
a temporary folder beside it and renamed into place after everything is fsynced, so a run killed
half way leaves no baseline, never half of one. An existing baseline is never overwritten: a later
run reads it and says whether it still matches its manifest (`verify`), and a mismatch is
reported, not repaired. Every entry of a manifest read back is checked (``baseline_manifest``): a
``copy`` is only ever ``files/<n>`` inside the store, so no manifest makes the collection read, or
return, a file outside it. `restore` checks everything (the manifest, every copy's sha256, every node
file's kind, that the store and the backup folder are private state) before its first write.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import stat

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import fileio as _fileio
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._node_files import atomic, backups, confine
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._node_files.baseline import manifest as baseline_manifest

MANIFEST = "manifest.json"
SCHEMA_VERSION = 1
_FILES = "files"
_LIMIT = 16 * 1024 * 1024


def _snapshot(root, node_path):
    real = _fileio.resolve_within(root, node_path, follow_last=False)
    try:
        info = os.lstat(real)
    except FileNotFoundError:
        return {"path": node_path, "absent": True}, None
    if stat.S_ISLNK(info.st_mode):
        return {"path": node_path, "symlink": os.readlink(real)}, None
    try:
        data = _fileio.read_regular(real, _LIMIT)
    except _fileio.FileIOError as exc:
        raise atomic.NodeStateError("%s; nothing was changed" % str(exc).replace(real, node_path))
    return {"path": node_path, "sha256": hashlib.sha256(data).hexdigest(), "size": len(data),
            "mode": "%04o" % stat.S_IMODE(info.st_mode), "uid": info.st_uid, "gid": info.st_gid}, data


def _store_dir(root, store):
    return _fileio.resolve_within(root, store, follow_last=False)


def load(root, store):
    """The manifest of the baseline at ``store`` (a node path), or None when there is none yet."""
    real = _store_dir(root, store)
    try:
        info = os.lstat(real)
    except FileNotFoundError:
        return None
    except NotADirectoryError:
        raise atomic.NodeStateError("baseline %s: a folder on its path is not a folder; nothing was changed" % store)
    if not stat.S_ISDIR(info.st_mode):
        raise atomic.NodeStateError("baseline %s exists and is not a folder (it is %s); nothing was changed"
                                    % (store, "a symlink" if stat.S_ISLNK(info.st_mode) else "a file or device"))
    try:
        text = _fileio.read_regular(os.path.join(real, MANIFEST), _LIMIT)
    except FileNotFoundError:
        raise atomic.NodeStateError("baseline %s has no %s: it is not a baseline this collection wrote; nothing was changed"
                                    % (store, MANIFEST))
    except _fileio.FileIOError as exc:
        raise atomic.NodeStateError("baseline %s/%s: %s; nothing was changed" % (store, MANIFEST, exc))
    try:
        manifest = _fileio.parse_json(text)
    except ValueError as exc:
        raise atomic.NodeStateError("baseline %s/%s is not JSON (%s); nothing was changed" % (store, MANIFEST, exc))
    if not isinstance(manifest, dict) or manifest.get("schema_version") != SCHEMA_VERSION or not isinstance(manifest.get("files"), list):
        raise atomic.NodeStateError("baseline %s/%s is not a schema_version %d manifest; nothing was changed" % (store, MANIFEST, SCHEMA_VERSION))
    return baseline_manifest.check(manifest, "%s/%s" % (store, MANIFEST))


def copy_bytes(root, store, entry):
    """The bytes of a checked manifest entry's copy, read inside the store only (not sha256-checked: see `verify`)."""
    return _fileio.read_regular(baseline_manifest.copy_path(_store_dir(root, store), entry, store), _LIMIT)


def record(root, store, files, facts):
    """Keep ``files`` [(node path, role)] and ``facts`` as the baseline, unless one exists.

    Returns ``(manifest, created)``. ``facts`` (kubelet version, unit flags, when) go into the
    manifest as they are.
    """
    existing = load(root, store)
    if existing is not None:
        return existing, False
    real = _store_dir(root, store)
    parent = os.path.dirname(real)
    confine.require_private(root, os.path.dirname(store.rstrip("/")) or "/", parent)
    atomic.make_private_dir(parent)
    temp = os.path.join(parent, ".%s.partial-%d" % (os.path.basename(real), os.getpid()))
    if os.path.lexists(temp):
        shutil.rmtree(temp)
    atomic.make_private_dir(os.path.join(temp, _FILES))
    entries = []
    try:
        for index, (node_path, role) in enumerate(files):
            entry, data = _snapshot(root, node_path)
            entry["role"] = role
            if data is not None:
                entry["copy"] = "%s/%d" % (_FILES, index)
                atomic.write_atomic(os.path.join(temp, entry["copy"]), data, mode=atomic.NEW_FILE_MODE, owner=atomic.private_owner())
            entries.append(entry)
        manifest = {"schema_version": SCHEMA_VERSION, "facts": facts, "files": entries}
        body = (json.dumps(manifest, indent=2, sort_keys=True) + "\n").encode()
        atomic.write_atomic(os.path.join(temp, MANIFEST), body, mode=atomic.NEW_FILE_MODE, owner=atomic.private_owner())
        atomic.fsync_dir(os.path.join(temp, _FILES))
        atomic.fsync_dir(temp)
        try:
            os.rename(temp, real)
        except OSError:
            # Another run got there first: its baseline stands, ours goes.
            shutil.rmtree(temp, ignore_errors=True)
            return load(root, store), False
        atomic.fsync_dir(parent)
    except BaseException:
        shutil.rmtree(temp, ignore_errors=True)
        raise
    return manifest, True


def verify(root, store):
    """{"intact": bool, "problems": [...]} for the baseline at ``store``: every copy against its sha256."""
    manifest = load(root, store)
    if manifest is None:
        return {"intact": False, "problems": ["there is no baseline at %s" % store]}
    real = _store_dir(root, store)
    problems = []
    for entry in manifest["files"]:
        if "copy" not in entry:
            continue
        try:
            data = _fileio.read_regular(baseline_manifest.copy_path(real, entry, store), _LIMIT)
        except (OSError, _fileio.FileIOError, atomic.NodeStateError) as exc:
            problems.append("%s: its copy %s cannot be read (%s)" % (entry["path"], entry["copy"], exc))
            continue
        if hashlib.sha256(data).hexdigest() != entry.get("sha256"):
            problems.append("%s: its copy %s no longer matches the manifest's sha256 %s" % (entry["path"], entry["copy"], entry.get("sha256")))
    return {"intact": not problems, "problems": problems}


def original_bytes(root, store, path):
    """The baseline bytes of node file ``path`` (sha256-checked), None if it was absent then."""
    manifest = load(root, store)
    if manifest is None:
        raise atomic.NodeStateError("there is no baseline at %s to restore %s from" % (store, path))
    for entry in manifest["files"]:
        if entry["path"] != path:
            continue
        if entry.get("absent"):
            return None
        if "copy" not in entry:
            raise atomic.NodeStateError("the baseline of %s is a symlink to %s, not bytes" % (path, entry.get("symlink")))
        data = copy_bytes(root, store, entry)
        if hashlib.sha256(data).hexdigest() != entry["sha256"]:
            raise atomic.NodeStateError("the baseline copy of %s no longer matches its sha256 %s; not used" % (path, entry["sha256"]))
        return data
    raise atomic.NodeStateError("the baseline at %s has no record of %s" % (store, path))


def drift(root, store, roles=("main", "dropin")):
    """[(node path, what differs)] between the node's files of ``roles`` and their baseline."""
    manifest = load(root, store)
    if manifest is None:
        raise atomic.NodeStateError("there is no baseline at %s to compare with" % store)
    differs = []
    for entry in manifest["files"]:
        if entry["role"] not in roles:
            continue
        now, _data = _snapshot(root, entry["path"])
        if entry.get("absent") or now.get("absent"):
            if entry.get("absent") != now.get("absent"):
                differs.append((entry["path"], "absent in the baseline" if entry.get("absent") else "absent now"))
        elif "symlink" in entry or "symlink" in now:
            if entry.get("symlink") != now.get("symlink"):
                differs.append((entry["path"], "a symlink in the baseline or now, not the same"))
        elif now["sha256"] != entry["sha256"]:
            differs.append((entry["path"], "sha256 %s now, %s in the baseline" % (now["sha256"], entry["sha256"])))
    return differs


def _kind_problem(real, path):
    try:
        info = os.lstat(real)
    except FileNotFoundError:
        return None
    if stat.S_ISREG(info.st_mode) or stat.S_ISLNK(info.st_mode):
        return None
    kind = "a FIFO" if stat.S_ISFIFO(info.st_mode) else ("a folder" if stat.S_ISDIR(info.st_mode) else "not a regular file")
    return "%s is %s, not a regular file or a symlink: not replaced" % (path, kind)


def _plan(root, store, manifest, roles, remove):
    """[(node path, real path, bytes or None to remove, entry or None)]: every step checked, nothing written."""
    recorded = {entry["path"]: entry for entry in manifest["files"]}
    steps, planned = [], set()
    for path, _why in drift(root, store, roles):
        entry = recorded[path]
        real = _fileio.resolve_within(root, path, follow_last=False)
        problem = _kind_problem(real, path)
        if problem:
            raise atomic.NodeStateError("%s; nothing was restored" % problem)
        if entry.get("absent"):
            steps.append((path, real, None, None))
        elif "symlink" in entry:
            raise atomic.NodeStateError("%s was a symlink (to %s) in the baseline; restore it by hand; nothing was restored"
                                        % (path, entry["symlink"]))
        elif os.path.islink(real):
            raise atomic.NodeStateError("%s is a symlink now (to %s) where the baseline has a file: not written through it; remove the link "
                                        "and re-run; nothing was restored" % (path, os.readlink(real)))
        else:
            steps.append((path, real, original_bytes(root, store, path), entry))
        planned.add(path)
    for path in remove:
        if path in planned or (path in recorded and not recorded[path].get("absent")):
            continue
        real = _fileio.resolve_within(root, path, follow_last=False)
        if os.path.lexists(real):
            problem = _kind_problem(real, path)
            if problem:
                raise atomic.NodeStateError("%s; nothing was restored" % problem)
            steps.append((path, real, None, None))
            planned.add(path)
    return steps


def restore(root, store, backup_dir, roles=("main", "dropin"), remove=()):
    """Put every file of ``roles`` back to its baseline bytes and remove ``remove`` unless the baseline has them.

    What is replaced or removed is backed up into ``backup_dir`` (a node path) first. Returns
    [(node path, "restored" | "removed", backup path)]. A baseline symlink is not recreated here
    (refused); a copy that no longer matches its sha256 is never written back. Everything is
    checked before the first write, so a refusal leaves every file, the backup folder included, as it was.
    """
    manifest = load(root, store)
    if manifest is None:
        raise atomic.NodeStateError("there is no baseline at %s to restore from" % store)
    verdict = verify(root, store)
    if not verdict["intact"]:
        raise atomic.NodeStateError("the baseline at %s does not match its manifest (%s); nothing was restored"
                                    % (store, "; ".join(verdict["problems"])))
    real_store = _store_dir(root, store)
    for entry in manifest["files"]:
        if "copy" in entry:
            confine.require_private(root, store, baseline_manifest.copy_path(real_store, entry, store))
    confine.require_private(root, store, real_store)
    backup_real = _fileio.resolve_within(root, backup_dir)
    confine.require_private(root, backup_dir, backup_real)
    steps = _plan(root, store, manifest, roles, remove)
    done = []
    for path, real, data, entry in steps:
        if data is None:
            done.append((path, "removed", backups.remove(real, backup_real)))
            continue
        saved = backups.backup(real, backup_real) if os.path.lexists(real) else None
        atomic.write_atomic(real, data, mode=int(entry["mode"], 8), owner=(entry["uid"], entry["gid"]))
        done.append((path, "restored", saved))
    return done
