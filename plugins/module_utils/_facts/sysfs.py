# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The root facts are read under, and small bounded readers for sysfs and procfs files.

Public: `TopologyError`, `Root`, `read_text`, `read_int`, `list_dir`, `exists`, `is_missing`,
`excerpt`. CPU sets read from these files: `sysfs_cpusets`.

Every reader returns ``(value, warning)``: the value, or None with a warning string that names
the path and what was wrong with it (missing, unreadable, not the expected format). Nothing here
raises for bad file content, so one broken file never hides the rest of the topology.

Reading never leaves the root: each path is resolved with `_fileio.resolve_within` (as in a
chroot, ``..`` stops at the root and an absolute link target is read inside it) and opened with
`_fileio.read_regular` (regular files only, non-blocking, size-bounded), so a FIFO, a device or a
link out of the root is a warning naming the path, never a hang or a read elsewhere. Only
trailing NUL padding is ignored; a NUL inside the text is an error. Warnings quote at most a
short excerpt of what a file holds.
"""

from __future__ import annotations

import os
import posixpath
import stat

from ansible_collections.gpusmith.numa_gate.plugins.module_utils import _fileio
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._errors import NumaGateError

# Far above any sysfs attribute (a page); stops a wrong path from reading a huge file.
_MAX_READ = 1 << 20
_EXCERPT = 40
_OPEN_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
_CHUNK = 65536
_S_ISREG = stat.S_ISREG
# Not a file's name: what a path split at its last "/" can leave that `_resolve` normalises away.
_NOT_NAMES = frozenset(("", ".", ".."))
_KINDS = ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
          (stat.S_ISSOCK, "a socket"))


class TopologyError(NumaGateError, ValueError):
    """The root has no CPU topology (or no online CPU) at all, so there are no facts to give."""


class Root:
    """The directory facts are read under: ``path`` (absolute) for messages; every read stays inside it.

    A value: readers take it as an argument and never change it.
    """

    def __init__(self, path):
        if not isinstance(path, str) or not path:
            raise TopologyError("root %r is not a path" % (path,))
        self.path = os.path.abspath(path)
        self.is_host = self.path == os.sep
        # A memo of directories already resolved inside the root (their real paths): one gather
        # reads many files per directory. It only saves work; what a read returns does not depend on it.
        self.resolved_dirs = {}
        # The same, keyed by a path exactly as callers spell it (absolute, under the root, plain names
        # only: see `_spelled_dir`), so a file in a known directory costs one dict lookup, not a
        # normpath, a relpath and a walk of `resolved_dirs`. Per Root, so per gather: nothing
        # outlives the call.
        self.file_dirs = {}
        self._prefix = self.path if self.is_host else self.path + os.sep

    def join(self, rel):
        """rel inside the root; '..' never climbs above it."""
        rel = posixpath.normpath("/" + rel).lstrip("/")
        return os.path.join(self.path, rel) if rel else self.path

    def relative(self, absolute):
        return os.path.relpath(absolute, self.path)

    def read_text(self, path):
        return read_text(path, self)

    def read_int(self, path):
        return read_int(path, self)

    def list_dir(self, path):
        return list_dir(path, self)

    def exists(self, path):
        return exists(path, self)

    def isdir(self, path):
        return exists(path, self, stat.S_ISDIR)


def _relative(path, base):
    if base == os.sep:
        return path.lstrip(os.sep) or "."
    if path.startswith(base + os.sep):
        return path[len(base) + 1:]
    return os.path.relpath(path, base)


def _real_dir(base, dirs, rel):
    """The real path of directory ``rel`` inside ``base``, memoised in ``dirs``; links go through `_fileio.resolve_within`."""
    real = dirs.get(rel)
    if real is not None:
        return real
    parent, name = os.path.split(rel)
    real_parent = _real_dir(base, dirs, parent) if parent else dirs.setdefault("", os.path.realpath(base))
    candidate = os.path.join(real_parent, name)
    try:
        link = stat.S_ISLNK(os.lstat(candidate).st_mode)
    except OSError:
        link = False  # missing (kept as named, as resolve_within does) or below a file: the caller's own lstat says which
    real = _fileio.resolve_within(base, rel) if link else candidate
    dirs[rel] = real
    return real


def _inside(path, root, follow_last=True):
    """The real location of ``path`` (absolute, under the root) resolved inside the root.

    ``root`` is a `Root`, a directory, or None for "/". A `Root` remembers the directories it has
    resolved, so each costs one lstat; a link anywhere is resolved by `_fileio.resolve_within`, as
    in a chroot. With ``follow_last`` false a final link is left for the caller (`read_text`
    opens without following, and resolves only when it meets a link).
    """
    if isinstance(root, Root):
        if follow_last:
            real = _spelled_dir(root, path)
            if real is not None:
                return real or os.sep
        else:
            head, _sep, name = path.rpartition(os.sep)
            if name not in _NOT_NAMES:
                real = _spelled_dir(root, head)
                if real is not None:
                    return real + os.sep + name
    return _resolve(path, root, follow_last)


def _spelled_dir(root, path):
    """The real location of ``path`` as `_resolve` finds it, memoised by its spelling; None when not plain.

    Plain: the root itself, or under it with plain names only (no ``.``, ``..`` or empty
    component), so each spelling names one place. Each step is `_real_dir`'s: the parent's real
    path joined with the name, one lstat, and `_fileio.resolve_within` when that name is a link;
    under "/" no lstat, since no link can lead out of it.
    The root's own real path is kept without a trailing "/" ("" for "/"), so joining adds one.
    """
    memo = root.file_dirs
    real = memo.get(path)
    if real is not None:
        return real
    if path == root.path or (root.is_host and not path):
        real = os.path.realpath(root.path).rstrip(os.sep)
        memo[path] = real
        return real
    if not path.startswith(root._prefix):  # pylint: disable=protected-access
        return None
    parent, _sep, name = path.rpartition(os.sep)
    if name in _NOT_NAMES:
        return None
    real_parent = _spelled_dir(root, parent)
    if real_parent is None:
        return None
    real = real_parent + os.sep + name
    if root.is_host:
        # Inside "/" every link resolves inside the root, so the kernel may follow directory links
        # itself: no lstat per directory (a 256-CPU host has one per cpuN/topology).
        memo[path] = real
        return real
    try:
        link = stat.S_ISLNK(os.lstat(real).st_mode)
    except OSError:
        link = False  # missing (kept as named, as resolve_within does) or below a file: the caller's own lstat says which
    if link:
        real = _fileio.resolve_within(root.path, path[len(root._prefix):]).rstrip(os.sep)  # pylint: disable=protected-access
    memo[path] = real
    return real


def _resolve(path, root, follow_last):
    dirs = root.resolved_dirs if isinstance(root, Root) else None
    base = (root.path if isinstance(root, Root) else root) or os.sep
    rel = os.path.normpath(_relative(path, base) if os.path.isabs(path) else path)
    if dirs is None or rel == "." or rel.split(os.sep, 1)[0] == "..":
        return _fileio.resolve_within(base, rel, follow_last)
    if follow_last:
        return _real_dir(base, dirs, rel)
    parent, name = os.path.split(rel)
    return os.path.join(_real_dir(base, dirs, parent) if parent else dirs.setdefault("", os.path.realpath(base)), name)


def exists(path, root=None, test=None):
    """True when ``path`` resolves inside ``root`` to something (``test(st_mode)`` true, if given)."""
    try:
        info = os.stat(_inside(path, root))
    except (OSError, _fileio.FileIOError):
        return False
    return test is None or bool(test(info.st_mode))


def excerpt(text, limit=_EXCERPT):
    """At most ``limit`` characters of a file's text, for a warning."""
    if len(text) <= limit:
        return text
    return text[:limit] + "..."


def _kind(mode):
    for test, name in _KINDS:
        if test(mode):
            return name
    return "not a regular file"


def _read_bytes(path, root):
    """The bytes of ``path`` inside ``root``: one non-following open; a link is resolved inside the root first.

    This runs for every file a gather reads, so the common case is inline: the file's directory
    from the `Root`'s memo (`_spelled_dir`), then `_fileio.read_regular`'s checks in the order it
    makes them (lstat: a regular file, else not opened; open without following, non-blocking;
    fstat: still a regular file; at most the bound read) without its exceptions. Whatever is not
    simply a regular file's bytes (a link, a FIFO, a device, a folder, an open error, a file over
    the bound) goes to `_read_checked`, which asks `_fileio.read_regular` again and raises as
    usual. A missing file raises `FileNotFoundError` from the lstat, as read_regular's own lstat
    does. The read stops at end of file, or once it has as many bytes as fstat says the file has.
    """
    real = None
    if root.__class__ is Root:
        head, _sep, name = path.rpartition(os.sep)
        if name not in _NOT_NAMES:
            real = root.file_dirs.get(head)
            if real is None:
                real = _spelled_dir(root, head)
            if real is not None:
                real = real + os.sep + name
    if real is None:
        real = _inside(path, root, follow_last=False)
    if not _S_ISREG(os.lstat(real).st_mode):
        return _read_checked(path, root, real)
    try:
        fd = os.open(real, _OPEN_FLAGS)
    except OSError:
        return _read_checked(path, root, real)
    try:
        size = os.fstat(fd)
        if not _S_ISREG(size.st_mode):
            total = -1
        else:
            size = size.st_size
            data = os.read(fd, _CHUNK)
            if not data or len(data) == size:
                return data
            chunks = [data]
            total = len(data)
            while total <= _MAX_READ:
                data = os.read(fd, min(_CHUNK, _MAX_READ + 1 - total))
                if not data:
                    break
                chunks.append(data)
                total += len(data)
    finally:
        os.close(fd)
    if total < 0 or total > _MAX_READ:
        return _read_checked(path, root, real)
    return b"".join(chunks)


def _read_checked(path, root, real):
    """`_read_bytes` where the file is not simply a regular one: `_fileio.read_regular`'s errors, a link resolved inside the root."""
    try:
        return _fileio.read_regular(real, _MAX_READ)
    except _fileio.FileIOError:
        info = os.lstat(real)
        if stat.S_ISLNK(info.st_mode):
            real = _inside(path, root)
            info = os.lstat(real)
        if stat.S_ISDIR(info.st_mode):
            raise IsADirectoryError(path)  # pylint: disable=raise-missing-from
        if not stat.S_ISREG(info.st_mode):
            raise _fileio.FileIOError("%s, not a regular file; not opened" % _kind(info.st_mode), path=path)  # pylint: disable=raise-missing-from
        return _fileio.read_regular(real, _MAX_READ)


def read_text(path, root=None):
    """Read a small text file: trailing NUL padding and surrounding blanks stripped.

    Returns (text, None), or (None, warning) when the file is missing, unreadable, not a
    regular file, too large, not text, or holds a NUL byte before its end.
    """
    try:
        data = _read_bytes(path, root)
    except FileNotFoundError:
        return None, "%s: missing" % path
    except IsADirectoryError:
        return None, "%s: unreadable (a directory where a file is expected)" % path
    except NotADirectoryError:
        return None, "%s: missing (a parent is not a directory)" % path
    except _fileio.FileIOError as exc:
        if str(exc).endswith("a path component is not a directory"):
            return None, "%s: missing (a parent is not a directory)" % path
        return None, "%s: unreadable (%s)" % (path, exc)
    except OSError as exc:
        return None, "%s: unreadable (%s)" % (path, exc.strerror or exc)
    data = data.rstrip(b"\x00 \t\r\n")
    if b"\x00" in data:
        return None, "%s: a NUL byte at offset %d, before the end (only trailing NUL padding is ignored); not parsed" % (path, data.index(b"\x00"))
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None, "%s: not text (bytes that are not UTF-8)" % path
    return text.strip(), None


def read_int(path, root=None):
    """Read a file holding one decimal integer (sign allowed)."""
    text, warning = read_text(path, root)
    if text is None:
        return None, warning
    try:
        return int(text, 10), None
    except ValueError:
        return None, "%s: %r is not an integer" % (path, excerpt(text))


def is_missing(warning):
    """True for no warning or a warning that only says the file does not exist."""
    return warning is None or ": missing" in warning


def list_dir(path, root=None):
    """Names in a directory, sorted; (None, warning) when it cannot be listed.

    Under a `Root`, a plain path's entries that are not links go into its memo of resolved
    places (`_spelled_dir`'s), from the directory's own entry types: listing cpu/ or node/
    leaves no lstat to make per cpuN or nodeN directory. A link, or an entry whose type the
    listing does not give, is left for `_spelled_dir` to look at when it is used.
    """
    try:
        spelled = _spelled_dir(root, path) if isinstance(root, Root) else None
        with os.scandir(_inside(path, root) if spelled is None else (spelled or os.sep)) as listing:
            entries = list(listing)
    except FileNotFoundError:
        return None, "%s: missing" % path
    except NotADirectoryError:
        return None, "%s: not a directory" % path
    except _fileio.FileIOError as exc:
        if str(exc).endswith("a path component is not a directory"):
            return None, "%s: not a directory" % path
        return None, "%s: unreadable (%s)" % (path, exc)
    except OSError as exc:
        return None, "%s: unreadable (%s)" % (path, exc.strerror or exc)
    if spelled is not None:
        memo = root.file_dirs
        key = path.rstrip(os.sep) + os.sep
        real = spelled + os.sep
        for entry in entries:
            try:
                link = entry.is_symlink()
            except OSError:
                continue
            if not link:
                memo.setdefault(key + entry.name, real + entry.name)
    return sorted(entry.name for entry in entries), None
