# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Byte-for-byte backups of node files, private to the collection, and putting them back.

Public: `backup`, `backups_of`, `restore`, `load`, `put_back`, `remove`, `replace`, `backup_prefix`, `read_record`,
`write_record`, `NAME_MAX`.

A backup of ``/etc/x.conf`` is ``<backup_dir>/etc__x.conf.<UTC timestamp>.bak``: the bytes, 0600
(root's when running as root) in a 0700 folder, and beside it ``<backup>.meta``, a small JSON
record of the original's path, mode, owner and sha256, so `restore` gives the file its own mode and
owner back and refuses a copy that no longer matches. A symlink is backed up as a link (its target
text, never the bytes it points to) and restored as one. A path whose flattened name would not fit
in NAME_MAX (255 bytes) with the timestamp is named by a readable tail of it and the first 16 hex
digits of its sha256: deterministic, so `backups_of` finds those backups too.

Putting back is two steps so a caller can check every backup before it changes the first file:
`load` reads a copy and its record, refuses a record of the wrong shape and bytes that do not match
their sha256, and returns what `put_back` then writes, without reading the copy again.
"""

from __future__ import annotations

import datetime
import hashlib
import json
import os
import re
import stat

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import fileio as _fileio
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._node_files import atomic

BACKUP_SUFFIX = ".bak"
RECORD_SUFFIX = ".meta"
NAME_MAX = 255
# Room after the prefix: timestamp (23), "~NNN" counter, ".bak", ".meta", with spare digits.
_PREFIX_MAX = NAME_MAX - 48
_DIGEST_CHARS = 16
BACKUP_READ_LIMIT = 64 * 1024 * 1024
_RECORD_LIMIT = 64 * 1024
_STAMP = r"\d{8}T\d{6}\.\d{6}Z(~\d{3,})?"


def backup_prefix(path):
    """The file-name prefix of every backup of ``path`` (its absolute path, flattened; shortened to fit NAME_MAX)."""
    flat = os.path.abspath(path).strip(os.sep).replace(os.sep, "__")
    encoded = os.fsencode(flat)
    if len(encoded) + 1 <= _PREFIX_MAX:
        return flat + "."
    digest = hashlib.sha256(encoded).hexdigest()[:_DIGEST_CHARS]
    room = _PREFIX_MAX - _DIGEST_CHARS - 3
    tail = encoded[-room:].decode("utf-8", "ignore").lstrip("_")
    return "%s~%s." % (tail, digest)


def _timestamp():
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%dT%H%M%S.%fZ")


def backups_of(path, backup_dir):
    """Backups of ``path`` in ``backup_dir``, oldest first (the names sort by time)."""
    if not backup_dir or not os.path.isdir(backup_dir):
        return []
    prefix = backup_prefix(path)
    pattern = re.compile(re.escape(prefix) + _STAMP + re.escape(BACKUP_SUFFIX) + "$")
    return [os.path.join(backup_dir, name) for name in sorted(os.listdir(backup_dir)) if pattern.match(name)]


def write_record(copy, record):
    """The record beside a kept copy (``<copy>.meta``), private like the copy."""
    data = (json.dumps(record, sort_keys=True) + "\n").encode("utf-8")
    atomic.write_atomic(copy + RECORD_SUFFIX, data, mode=atomic.NEW_FILE_MODE, owner=atomic.private_owner())


def read_record(copy):
    """The record beside ``copy``, or None for a copy made before records were kept; its shape is checked."""
    try:
        data = _fileio.read_regular(copy + RECORD_SUFFIX, _RECORD_LIMIT)
    except FileNotFoundError:
        return None
    except _fileio.FileIOError as exc:
        raise atomic.NodeStateError("%s%s is not a backup record (%s); not restoring %s" % (copy, RECORD_SUFFIX, exc, copy))
    try:
        record = _fileio.parse_json(data)
    except ValueError as exc:
        raise atomic.NodeStateError("%s%s is not a backup record (%s); not restoring %s" % (copy, RECORD_SUFFIX, exc, copy))
    if not isinstance(record, dict):
        raise atomic.NodeStateError("%s%s is not a backup record; not restoring %s" % (copy, RECORD_SUFFIX, copy))
    problem = _record_problem(record)
    if problem:
        raise atomic.NodeStateError("%s%s is not a backup record (%s); not restoring %s" % (copy, RECORD_SUFFIX, problem, copy))
    return record


def _is_id(value):
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _record_problem(record):
    """Why ``record`` is not the shape `write_record` writes, or None."""
    kind = record.get("kind", "file")
    if kind not in ("file", "symlink"):
        return "kind %s is not file or symlink" % _fileio.short_repr(kind)
    if "path" in record and not isinstance(record["path"], str):
        return "path %s is not a path" % _fileio.short_repr(record["path"])
    sha = record.get("sha256")
    if sha is not None and not (isinstance(sha, str) and re.match(r"^[0-9a-f]{64}$", sha)):
        return "sha256 %s is not 64 hex digits" % _fileio.short_repr(sha)
    if kind == "symlink":
        return None if isinstance(record.get("link"), str) and record["link"] else "a symlink record without its link text"
    mode = record.get("mode")
    if not (isinstance(mode, str) and re.match(r"^[0-7]{3,4}$", mode)):
        return "mode %s is not an octal mode such as 0600" % _fileio.short_repr(mode)
    if int(mode, 8) > 0o777:
        return "mode %s is above 0777 (setuid, setgid or sticky): the collection backs up kubelet files, never restores those bits" % mode
    if not (_is_id(record.get("uid")) and _is_id(record.get("gid"))):
        return "uid %s and gid %s are not user and group ids" % (_fileio.short_repr(record.get("uid")), _fileio.short_repr(record.get("gid")))
    return None


def _snapshot(path):
    """(record, bytes) of what is at ``path``: a regular file's bytes or a symlink's target text."""
    path = os.path.abspath(path)
    try:
        info = os.lstat(path)
    except OSError as exc:
        raise atomic.NodeStateError("cannot read %s to back it up: %s" % (path, exc.strerror or exc))
    if stat.S_ISLNK(info.st_mode):
        link = os.readlink(path)
        data = os.fsencode(link)
        record = {"kind": "symlink", "link": link}
    else:
        data = _fileio.read_regular(path, BACKUP_READ_LIMIT)
        record = {"kind": "file"}
    record.update(path=path, mode="%04o" % stat.S_IMODE(info.st_mode), uid=info.st_uid, gid=info.st_gid,
                  sha256=hashlib.sha256(data).hexdigest())
    return record, data


def keep_copy(path, copy):
    """Keep what is at ``path`` as ``copy`` (+ its record), 0600; ``copy``'s folder must exist."""
    record, data = _snapshot(path)
    write_record(copy, record)
    atomic.write_atomic(copy, data, mode=atomic.NEW_FILE_MODE, owner=atomic.private_owner())
    return copy


def backup(path, backup_dir):
    """Copy ``path`` byte for byte into ``backup_dir`` (created 0700); returns the copy's path."""
    atomic.make_private_dir(backup_dir)
    base = os.path.join(backup_dir, backup_prefix(path) + _timestamp())
    target = base + BACKUP_SUFFIX
    counter = 1
    while os.path.lexists(target):
        # "~" sorts after ".", so a second backup in the same microsecond still sorts after the first.
        target = "%s~%03d%s" % (base, counter, BACKUP_SUFFIX)
        counter += 1
    return keep_copy(path, target)


def replace(path, data, backup_dir=None, mode=None):
    """`atomic.write_atomic` after a backup of the existing file (when ``backup_dir``); returns the backup or None.

    Nothing is written if the backup fails.
    """
    saved = backup(path, backup_dir) if backup_dir and os.path.lexists(path) else None
    atomic.write_atomic(path, data, mode=mode)
    return saved


def _checked(copy, data, record):
    expected = record.get("sha256")
    actual = hashlib.sha256(data).hexdigest()
    if expected is not None and expected != actual:
        raise atomic.NodeStateError("%s does not match its recorded sha256 (%s, found %s); not restoring it" % (copy, expected, actual))


def _restore_link(copy, link, path):
    if os.path.lexists(path):
        if os.path.islink(path) and os.readlink(path) == link:
            return path
        raise atomic.NodeStateError("%s exists; not replaced by the symlink (to %s) kept in %s" % (path, link, copy))
    try:
        os.symlink(link, path)
    except OSError as exc:
        raise atomic.NodeStateError("cannot restore the symlink %s: %s" % (path, exc.strerror or exc))
    atomic.fsync_dir(os.path.dirname(path))
    return path


def load(copy):
    """``{"copy", "record", "data", "sha256"}`` of a kept copy, checked: a regular file, its record's shape, its sha256.

    Nothing is written; `put_back` writes what this returns. A copy without a record (made before
    records were kept) keeps its own mode and owner.
    """
    try:
        data = _fileio.read_regular(copy, BACKUP_READ_LIMIT)
    except OSError as exc:
        raise atomic.NodeStateError("cannot read backup %s: %s" % (copy, exc.strerror or exc))
    except _fileio.FileIOError as exc:
        raise atomic.NodeStateError("backup %s; not restoring it" % exc)
    record = read_record(copy)
    if record is None:
        info = os.lstat(copy)
        record = {"kind": "file", "mode": "%04o" % stat.S_IMODE(info.st_mode), "uid": info.st_uid, "gid": info.st_gid}
    else:
        _checked(copy, data, record)
        if record.get("kind") == "symlink" and os.fsencode(record["link"]) != data:
            # The link is put back from the record: only a record whose link is the copy's checked bytes is used.
            raise atomic.NodeStateError("%s%s is not a backup record (its link %s is not the link text its copy holds, %s); not restoring %s"
                                        % (copy, RECORD_SUFFIX, _fileio.short_repr(record["link"]), _fileio.short_repr(data), copy))
    return {"copy": copy, "record": record, "data": data, "sha256": record.get("sha256") or hashlib.sha256(data).hexdigest()}


def put_back(kept, path):
    """Write a copy `load` checked back at ``path`` atomically, with the original's mode and owner; returns ``path``."""
    path = os.path.abspath(path)
    record = kept["record"]
    if record.get("kind") == "symlink":
        return _restore_link(kept["copy"], record["link"], path)
    return atomic.write_atomic(path, kept["data"], mode=int(record["mode"], 8), owner=(record["uid"], record["gid"]))


def restore(copy, path):
    """Put a kept copy back at ``path`` atomically, with the original's mode and owner; returns ``path``."""
    return put_back(load(copy), path)


def remove(path, backup_dir=None):
    """Back ``path`` up (when ``backup_dir``) and delete it; returns the backup's path or None.

    A symlink is removed itself and backed up as a link, never through it: its target is left as
    it is. Anything but a regular file or a symlink (a FIFO, a device, a folder) is refused.
    """
    path = os.path.abspath(path)
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return None
    if not (stat.S_ISREG(info.st_mode) or stat.S_ISLNK(info.st_mode)):
        raise atomic.NodeStateError("%s exists and is not a regular file or a symlink; not removed" % path)
    saved = backup(path, backup_dir) if backup_dir else None
    try:
        os.unlink(path)
    except OSError as exc:
        raise atomic.NodeStateError("cannot remove %s: %s" % (path, exc.strerror or exc))
    atomic.fsync_dir(os.path.dirname(path))
    return saved
