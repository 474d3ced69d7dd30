# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Replace a file atomically, keeping a byte-for-byte backup first.

`write_atomic` writes to a temporary file in the target's directory, fsyncs
it, gives it the old file's owner, group and mode (0600 for a new file) and
renames it over the target, then fsyncs the directory: a reader sees the old
bytes or the new ones, never a mix. Before that, the old file is copied into
``backup_dir`` under a timestamped name that encodes its full path, so
`backups_of` can find every backup of one file and `restore` can put any of
them back the same way. A symlinked target is followed: the file it points to
is replaced, the link stays.
"""

from __future__ import annotations

import datetime
import errno
import hashlib
import os
import stat
import tempfile

NEW_FILE_MODE = 0o600
BACKUP_DIR_MODE = 0o700
BACKUP_SUFFIX = ".bak"


class AtomicFileError(ValueError):
    """A write, backup or restore that could not be done safely."""


def _fsync_dir(directory):
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def backup_prefix(path):
    """The file-name prefix of every backup of ``path`` (its absolute path, flattened)."""
    flat = os.path.realpath(path).strip(os.sep).replace(os.sep, "__")
    return flat + "."


def _timestamp():
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%dT%H%M%S.%fZ")


def backups_of(path, backup_dir):
    """Backups of ``path`` in ``backup_dir``, oldest first (the names sort by time)."""
    if not backup_dir or not os.path.isdir(backup_dir):
        return []
    prefix = backup_prefix(path)
    names = [n for n in os.listdir(backup_dir) if n.startswith(prefix) and n.endswith(BACKUP_SUFFIX)]
    return [os.path.join(backup_dir, n) for n in sorted(names)]


def _read_with_stat(path, what):
    """(stat, bytes) of a file, or AtomicFileError starting with ``what``."""
    try:
        info = os.stat(path)
        with open(path, "rb") as handle:
            return info, handle.read()
    except OSError as exc:
        raise AtomicFileError("%s: %s" % (what, exc.strerror or exc))


def backup(path, backup_dir):
    """Copy ``path`` byte for byte into ``backup_dir`` (owner and mode kept); returns the copy's path."""
    info, data = _read_with_stat(os.path.realpath(path), "cannot read %s to back it up" % path)
    if not os.path.isdir(backup_dir):
        try:
            os.makedirs(backup_dir, BACKUP_DIR_MODE)
        except OSError as exc:
            raise AtomicFileError("cannot create backup directory %s: %s" % (backup_dir, exc.strerror or exc))
    base = os.path.join(backup_dir, backup_prefix(path) + _timestamp())
    target = base + BACKUP_SUFFIX
    counter = 1
    while os.path.lexists(target):
        # "~" sorts after ".", so a second backup in the same microsecond still sorts after the first.
        target = "%s~%03d%s" % (base, counter, BACKUP_SUFFIX)
        counter += 1
    _write_new(target, data, stat.S_IMODE(info.st_mode), info.st_uid, info.st_gid)
    return target


def _write_new(target, data, mode, uid, gid):
    """Write ``data`` to a temp file beside ``target`` and rename it into place."""
    directory = os.path.dirname(target) or "."
    name = os.path.basename(target)
    try:
        fd, temp = tempfile.mkstemp(prefix=".%s." % name, suffix=".tmp", dir=directory)
    except OSError as exc:
        raise AtomicFileError("cannot create a temporary file in %s: %s" % (directory, exc.strerror or exc))
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
            if uid is not None and gid is not None:
                current = os.fstat(handle.fileno())
                if (current.st_uid, current.st_gid) != (uid, gid):
                    try:
                        os.fchown(handle.fileno(), uid, gid)
                    except OSError as exc:
                        raise AtomicFileError("cannot give %s its owner %d:%d back: %s" % (target, uid, gid, exc.strerror or exc))
            os.fchmod(handle.fileno(), mode)
        os.replace(temp, target)
    except AtomicFileError:
        _discard(temp)
        raise
    except OSError as exc:
        _discard(temp)
        raise AtomicFileError("cannot write %s: %s" % (target, exc.strerror or exc))
    _fsync_dir(directory)


def _discard(temp):
    try:
        os.unlink(temp)
    except OSError as exc:
        if exc.errno != errno.ENOENT:
            raise


def write_atomic(path, data, mode=None, backup_dir=None):
    """Atomically replace ``path`` with ``data`` (bytes); returns the backup's path or None.

    An existing file keeps its owner, group and mode (``mode`` overrides the
    mode); a new one is created 0600 (or ``mode``). With ``backup_dir`` an
    existing file is backed up first; nothing is written if that fails.
    """
    if not isinstance(data, bytes):
        raise AtomicFileError("write_atomic needs bytes, got %s" % type(data).__name__)
    target = os.path.realpath(path)
    saved = None
    uid = gid = None
    if os.path.lexists(target):
        if not os.path.isfile(target):
            raise AtomicFileError("%s exists and is not a regular file" % path)
        info = os.stat(target)
        file_mode = stat.S_IMODE(info.st_mode) if mode is None else mode
        uid, gid = info.st_uid, info.st_gid
        if backup_dir:
            saved = backup(target, backup_dir)
    else:
        file_mode = NEW_FILE_MODE if mode is None else mode
        if not os.path.isdir(os.path.dirname(target) or "."):
            raise AtomicFileError("directory of %s does not exist" % path)
    _write_new(target, data, file_mode, uid, gid)
    return saved


def restore(backup_path, path):
    """Put a backup back in place atomically, with the backup's owner and mode."""
    info, data = _read_with_stat(backup_path, "cannot read backup %s" % backup_path)
    target = os.path.realpath(path)
    if os.path.lexists(target) and not os.path.isfile(target):
        raise AtomicFileError("%s exists and is not a regular file" % path)
    _write_new(target, data, stat.S_IMODE(info.st_mode), info.st_uid, info.st_gid)
    return target


def remove(path, backup_dir=None):
    """Back ``path`` up (when ``backup_dir``) and delete it; returns the backup's path or None.

    A symlink is removed itself (its target's bytes are what is backed up): deleting
    the target would leave a dangling link that the kubelet fails on.
    """
    if not os.path.lexists(path):
        return None
    saved = backup(path, backup_dir) if backup_dir and os.path.exists(path) else None
    try:
        os.unlink(path)
    except OSError as exc:
        raise AtomicFileError("cannot remove %s: %s" % (path, exc.strerror or exc))
    _fsync_dir(os.path.dirname(os.path.abspath(path)))
    return saved


BASELINE_DIR = "baseline"


def baseline_of(path, backup_dir):
    """The write-once baseline copy of ``path`` in ``backup_dir``, or None."""
    copy = os.path.join(backup_dir, BASELINE_DIR, backup_prefix(path) + "orig")
    return copy if os.path.isfile(copy) else None


def keep_baseline(path, backup_dir):
    """Copy ``path`` as its baseline, once: an existing baseline is never overwritten.

    A sha256 file beside it lets `restore_baseline` prove the copy is intact.
    Returns the baseline's path.
    """
    existing = baseline_of(path, backup_dir)
    if existing:
        return existing
    info, data = _read_with_stat(os.path.realpath(path), "cannot read %s to keep its baseline" % path)
    directory = os.path.join(backup_dir, BASELINE_DIR)
    if not os.path.isdir(directory):
        try:
            os.makedirs(directory, BACKUP_DIR_MODE)
        except OSError as exc:
            raise AtomicFileError("cannot create baseline directory %s: %s" % (directory, exc.strerror or exc))
    copy = os.path.join(directory, backup_prefix(path) + "orig")
    _write_new(copy + ".sha256", ("%s  %s\n" % (hashlib.sha256(data).hexdigest(), os.path.realpath(path))).encode("utf-8"),
               NEW_FILE_MODE, None, None)
    _write_new(copy, data, stat.S_IMODE(info.st_mode), info.st_uid, info.st_gid)
    return copy


def baseline_bytes(copy):
    """The baseline's bytes, checked against its sha256 file."""
    _info, data = _read_with_stat(copy, "cannot read baseline %s" % copy)
    _info, recorded = _read_with_stat(copy + ".sha256", "cannot read the checksum of baseline %s" % copy)
    expected = recorded.decode("utf-8", "replace").split()[0] if recorded.strip() else ""
    actual = hashlib.sha256(data).hexdigest()
    if actual != expected:
        raise AtomicFileError("baseline %s does not match its recorded sha256 (%s, found %s); not restoring it" % (copy, expected, actual))
    return data
