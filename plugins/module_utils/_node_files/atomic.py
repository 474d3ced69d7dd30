# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Replace a node file atomically, never through a symlink.

Public: `write_atomic`, `make_private_dir`, `fsync_dir`, `private_owner`, `NodeStateError`,
`NEW_FILE_MODE`, `PRIVATE_DIR_MODE`.

`write_atomic` writes to a temporary file in the target's folder (opened through a folder
descriptor, ``O_EXCL | O_NOFOLLOW``, a short fixed-length name so a long target name never makes
the temporary one too long), fsyncs it, gives it the old file's owner, group and mode (0600 for a
new file) and renames it over the target, then fsyncs the folder: a reader sees the old bytes or
the new ones, never a mix. A target that is a symlink, a FIFO, a device or a folder is refused,
never written through: callers resolve paths inside their root first (``_fileio.resolve_within``)
and this is the last check. `make_private_dir` creates the folders of the state the collection
keeps, each one 0700.
"""

from __future__ import annotations

import errno
import os
import stat

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base.errors import NumaGateError

NEW_FILE_MODE = 0o600
PRIVATE_DIR_MODE = 0o700
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)


class NodeStateError(NumaGateError, ValueError):
    """A write, backup, restore or baseline the collection could not do safely; nothing was changed."""


def _why(exc):
    return exc.strerror or str(exc)


def private_owner():
    """(uid, gid) the collection's own state gets: root's when running as root, else left as created."""
    return (0, 0) if hasattr(os, "geteuid") and os.geteuid() == 0 else None


def fsync_dir(directory):
    """fsync a folder so a rename or unlink in it survives a crash (best effort where unsupported)."""
    try:
        fd = os.open(directory, os.O_RDONLY | _DIRECTORY | _CLOEXEC)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def make_private_dir(path):
    """Create ``path`` and any missing parent, each new folder 0700 (and root's when running as root).

    Folders that already exist are left as they are, but must be folders, not symlinks.
    """
    missing = []
    current = os.path.abspath(path)
    while True:
        try:
            info = os.lstat(current)
        except (FileNotFoundError, NotADirectoryError):
            missing.append(current)
            parent = os.path.dirname(current)
            if parent == current:
                break
            current = parent
            continue
        except OSError as exc:
            raise NodeStateError("cannot create folder %s: %s: %s" % (path, current, _why(exc)))
        if not stat.S_ISDIR(info.st_mode):
            kind = "a symlink" if stat.S_ISLNK(info.st_mode) else "not a folder"
            raise NodeStateError("cannot create folder %s: %s is %s" % (path, current, kind))
        break
    owner = private_owner()
    for folder in reversed(missing):
        try:
            try:
                os.mkdir(folder, PRIVATE_DIR_MODE)
            except FileExistsError:
                # Another run made it a moment ago: a folder is what we wanted, anything else is refused.
                info = os.lstat(folder)
                if stat.S_ISDIR(info.st_mode):
                    continue
                raise NodeStateError("cannot create folder %s: %s is %s" % (path, folder, "a symlink" if stat.S_ISLNK(info.st_mode) else "not a folder"))
            os.chmod(folder, PRIVATE_DIR_MODE, follow_symlinks=False)
            if owner is not None:
                os.chown(folder, owner[0], owner[1], follow_symlinks=False)
        except OSError as exc:
            raise NodeStateError("cannot create folder %s: %s" % (folder, _why(exc)))
        fsync_dir(os.path.dirname(folder))
    return path


def _open_dir(directory, path):
    try:
        return os.open(directory, os.O_RDONLY | _DIRECTORY | os.O_NOFOLLOW | _CLOEXEC)
    except FileNotFoundError:
        raise NodeStateError("directory of %s does not exist" % path)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENOTDIR):
            raise NodeStateError("directory of %s is a symlink or not a folder; not written" % path)
        raise NodeStateError("cannot open the directory of %s: %s" % (path, _why(exc)))


def _existing(name, dir_fd, path):
    """lstat of the target inside its folder, or None; refuses anything but a regular file."""
    try:
        info = os.lstat(name, dir_fd=dir_fd)
    except FileNotFoundError:
        return None
    if stat.S_ISLNK(info.st_mode):
        target = os.readlink(name, dir_fd=dir_fd)
        raise NodeStateError("%s is a symlink (to %s); not written through it: the collection replaces only regular files" % (path, target))
    if not stat.S_ISREG(info.st_mode):
        raise NodeStateError("%s exists and is not a regular file; not replaced" % path)
    return info


def _write_temp(dir_fd, data, mode, owner, path):
    temp = ".numa-gate.%s.tmp" % os.urandom(8).hex()
    try:
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | _CLOEXEC, NEW_FILE_MODE, dir_fd=dir_fd)
    except OSError as exc:
        raise NodeStateError("cannot create a temporary file beside %s: %s" % (path, _why(exc)))
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        os.fsync(fd)
        if owner is not None:
            current = os.fstat(fd)
            if (current.st_uid, current.st_gid) != tuple(owner):
                try:
                    os.fchown(fd, owner[0], owner[1])
                except OSError as exc:
                    raise NodeStateError("cannot give %s its owner %d:%d: %s" % (path, owner[0], owner[1], _why(exc)))
        os.fchmod(fd, mode)
    except BaseException:
        os.close(fd)
        _discard(temp, dir_fd)
        raise
    os.close(fd)
    return temp


def _discard(temp, dir_fd):
    try:
        os.unlink(temp, dir_fd=dir_fd)
    except OSError as exc:
        if exc.errno != errno.ENOENT:
            raise


def write_atomic(path, data, mode=None, owner=None):
    """Atomically replace the regular file ``path`` with ``data`` (bytes), or create it.

    An existing file keeps its owner, group and mode; a new one is created 0600. ``mode`` and
    ``owner`` (a ``(uid, gid)`` pair) override them. The folder must exist. Returns ``path``.
    """
    if not isinstance(data, bytes):
        raise NodeStateError("write_atomic needs bytes, got %s" % type(data).__name__)
    path = os.path.abspath(path)
    directory, name = os.path.split(path)
    dir_fd = _open_dir(directory, path)
    try:
        info = _existing(name, dir_fd, path)
        if info is not None:
            file_mode = stat.S_IMODE(info.st_mode) if mode is None else mode
            owner = (info.st_uid, info.st_gid) if owner is None else owner
        else:
            file_mode = NEW_FILE_MODE if mode is None else mode
        temp = _write_temp(dir_fd, data, file_mode, owner, path)
        try:
            _existing(name, dir_fd, path)  # still not a link a moment ago
            os.replace(temp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
        except NodeStateError:
            _discard(temp, dir_fd)
            raise
        except OSError as exc:
            _discard(temp, dir_fd)
            raise NodeStateError("cannot write %s: %s" % (path, _why(exc)))
        try:
            os.fsync(dir_fd)
        except OSError:
            pass
    finally:
        os.close(dir_fd)
    return path
