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
_OPEN_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)
_CHUNK = 65536
_DIR_FLAGS = getattr(os, "O_PATH", os.O_RDONLY) | os.O_DIRECTORY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
# Directory fds a Root keeps at most: far below the usual 1,024 a process may hold (a 256-CPU
# snapshot needs about 270); past it, directories are checked with an lstat and not kept open.
_MAX_DIR_FDS = 384
# Files read are closed this many at a time.
_CLOSE_BATCH = 32
_S_IFMT = 0o170000
_S_IFREG = stat.S_IFREG
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
        # The places of directories keyed by a path exactly as callers spell it (absolute, under the
        # root, plain names only: see `_spelled_dir`), so a file in a known directory costs one dict
        # lookup, not a normpath, a relpath and a walk of `resolved_dirs`. Per Root, so per gather:
        # nothing outlives the call but the directory fds, which `close` lets go.
        self.file_dirs = {}
        self._prefix = self.path if self.is_host else self.path + os.sep
        self._fds = []
        self._read_fds = []
        self._missing = set()

    def close(self):
        """Close the fds the Root holds (its directories', and files read but not closed yet) and forget the places.

        The Root stays usable: places are found again as needed.
        """
        fds = self._fds + self._read_fds
        self._fds = []
        self._read_fds = []
        self.file_dirs = {}
        _close_fds(fds)

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:  # pylint: disable=broad-exception-caught
            pass  # at interpreter exit os may be gone already; the fds go with the process

    def join(self, rel):
        """rel inside the root; '..' never climbs above it."""
        rel = posixpath.normpath("/" + rel).lstrip("/")
        return os.path.join(self.path, rel) if rel else self.path

    def relative(self, absolute):
        return os.path.relpath(absolute, self.path)

    # read_text(path) and read_int(path): `_read_text` and `_read_int` themselves (root first), set below the
    # functions, so a read through the Root is one call less.

    def list_dir(self, path):
        return list_dir(path, self)

    def exists(self, path):
        return exists(path, self)

    def isdir(self, path):
        return exists(path, self, stat.S_ISDIR)


def _close_fds(fds):
    """Close ``fds`` (open, and ours): each run of consecutive numbers with one ``os.closerange`` (Linux: close_range)."""
    fds = sorted(fds)
    start = 0
    while start < len(fds):
        end = start
        while end + 1 < len(fds) and fds[end + 1] == fds[end] + 1:
            end += 1
        if end > start:
            # Every number in the run is one of ours (an fd number names one open file), so the range closes nothing else.
            os.closerange(fds[start], fds[end] + 1)
        else:
            os.close(fds[start])
        start = end + 1


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
            place = _spelled_dir(root, path)
            if place is not None:
                return place[0] or os.sep
        else:
            head, _sep, name = path.rpartition(os.sep)
            if name not in _NOT_NAMES:
                place = _spelled_dir(root, head)
                if place is not None:
                    return place[0] + os.sep + name
    return _resolve(path, root, follow_last)


def _spelled_dir(root, path):
    """The place of directory ``path`` as `_resolve` finds it, memoised by its spelling; None when not plain.

    Plain: the root itself, or under it with plain names only (no ``.``, ``..`` or empty
    component), so each spelling names one place. A place is ``(real, fd, prefix)``: the real path
    (kept without a trailing "/", "" for "/", so joining adds one), and where a name in it is
    looked at without following: ``os.stat(prefix + name, dir_fd=fd, follow_symlinks=False)``.
    Each step is the parent's real path joined with the name, checked once: opened with
    ``O_PATH | O_DIRECTORY | O_NOFOLLOW`` (which opens nothing but the name, and fails for a link),
    the fd kept so that the files in it are looked at relative to it (prefix ""); a link is
    resolved by `_fileio.resolve_within` inside the root. Where no fd is kept (missing, below a
    file, at the `_MAX_DIR_FDS` bound, under "/") the prefix is the real path and the caller's own
    look says what is wrong. A directory a listing showed (`list_dir`) is reached through the
    listed directory's fd ("cpuN/"). Under "/" nothing is opened: no link can lead out of it.
    """
    memo = root.file_dirs
    place = memo.get(path)
    if place is not None:
        return place
    if path == root.path or (root.is_host and not path):
        real = os.path.realpath(root.path).rstrip(os.sep)
        place = (real, None, real + os.sep)
        if not root.is_host and len(root._fds) < _MAX_DIR_FDS:  # pylint: disable=protected-access
            try:
                fd = os.open(root.path, _DIR_FLAGS & ~os.O_NOFOLLOW)  # the given folder may itself be a link
            except OSError:
                pass
            else:
                root._fds.append(fd)  # pylint: disable=protected-access
                place = (real, fd, "")
        memo[path] = place
        return place
    if not path.startswith(root._prefix):  # pylint: disable=protected-access
        return None
    parent, _sep, name = path.rpartition(os.sep)
    if name in _NOT_NAMES:
        return None
    parent_place = _spelled_dir(root, parent)
    if parent_place is None:
        return None
    real = parent_place[0] + os.sep + name
    if root.is_host:
        # Inside "/" every link resolves inside the root, so the kernel may follow directory links
        # itself: no check per directory (a 256-CPU host has one per cpuN/topology).
        place = memo[path] = (real, None, real + os.sep)
        return place
    place = _checked_dir(root, path, real, parent_place)
    memo[path] = place
    return place


def _checked_dir(root, path, real, parent_place):
    """The place of directory ``real`` (spelled ``path``): looked at without following relative to its parent's place; a link resolved."""
    _parent_real, parent_fd, parent_prefix = parent_place
    name = path.rpartition(os.sep)[2]
    try:
        mode = os.stat(parent_prefix + name, dir_fd=parent_fd, follow_symlinks=False).st_mode
    except FileNotFoundError:
        root._missing.add(real)  # pylint: disable=protected-access
        return (real, None, real + os.sep)
    except OSError:
        return (real, None, real + os.sep)  # below a file, or not searchable: the caller's own look says which
    if stat.S_ISDIR(mode):
        return (real, parent_fd, parent_prefix + name + os.sep)
    if not stat.S_ISLNK(mode):
        return (real, None, real + os.sep)  # a file: the caller's own look says "not a directory"
    real = _fileio.resolve_within(root.path, path[len(root._prefix):]).rstrip(os.sep)  # pylint: disable=protected-access
    return _anchored(root, (real, None, real + os.sep))


def _anchored(root, place):
    """``place`` with a directory fd of its own (opened without following), so its entries are looked at relative to it.

    The place as it was when it already has one, is missing, or `_MAX_DIR_FDS` are held.
    """
    real, fd, prefix = place
    if fd is not None and not prefix:
        return place
    fds = root._fds  # pylint: disable=protected-access
    if root.is_host or len(fds) >= _MAX_DIR_FDS or real in root._missing:  # pylint: disable=protected-access
        return place
    try:
        fd = os.open(real or os.sep, _DIR_FLAGS)
    except OSError:
        return place
    fds.append(fd)
    return (real, fd, "")


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
    """The bytes of ``path`` inside ``root``: one look at the file, then one non-following open and read of a regular file.

    This runs for every file a gather reads, so the common case is inline: the file's directory
    from the `Root`'s memo (`_spelled_dir`); an lstat of the file, and only a regular file within
    the bound is opened (without following, non-blocking, no controlling terminal) and read, once
    when the read returns the size the lstat gave (a snapshot's files), else to end of file (sysfs
    gives every attribute a size of one page). Nothing else is opened: whatever is not simply a
    regular file (a link, a FIFO, a device, a folder, a file over the bound) or fails to open goes
    to `_read_checked`, which asks `_fileio.read_regular` and raises its errors. A missing file
    raises `FileNotFoundError` from the lstat.
    """
    head, _sep, name = path.rpartition("/")
    try:
        real, fd, prefix = root.file_dirs[head]
        if name in _NOT_NAMES:
            raise KeyError(name)
    except (KeyError, AttributeError):  # a directory not met yet, a name to normalise, or ``root`` not a Root
        real, fd, prefix, name = _file_place(path, root, head, name)
    info = os.stat(prefix + name, dir_fd=fd, follow_symlinks=False)
    real = path if real == head else real + "/" + name
    size = info.st_size
    if info.st_mode & _S_IFMT != _S_IFREG or size > _MAX_READ:
        return _read_checked(path, root, real)
    try:
        opened = os.open(real, _OPEN_FLAGS)
    except OSError:
        return _read_checked(path, root, real)
    try:
        data = os.read(opened, size or _CHUNK)
        if len(data) == size:
            return data
        chunks = [data]
        total = len(data)
        while data and total <= _MAX_READ:
            data = os.read(opened, min(_CHUNK, _MAX_READ + 1 - total))
            chunks.append(data)
            total += len(data)
    finally:
        if root.__class__ is Root:
            # Closed a batch at a time (consecutive fds in one close_range): a gather opens ~1,000 files.
            done = root._read_fds  # pylint: disable=protected-access
            done.append(opened)
            if len(done) >= _CLOSE_BATCH:
                root._read_fds = []  # pylint: disable=protected-access
                _close_fds(done)
        else:
            os.close(opened)
    if total > _MAX_READ:
        return _read_checked(path, root, real)
    return b"".join(chunks)


def _file_place(path, root, head, name):
    """``(real directory, fd, prefix, name)`` for `_read_bytes` where the memo has no answer: `_spelled_dir`'s, else `_inside`'s."""
    place = _spelled_dir(root, head) if root.__class__ is Root and name not in _NOT_NAMES else None
    if place is not None:
        return place + (name,)
    real_dir, _sep, name = _inside(path, root, follow_last=False).rpartition("/")
    return (real_dir, None, real_dir + "/", name)


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


def _unread(path, exc):
    """The warning for ``path`` that `_read_bytes` refused with ``exc``."""
    if isinstance(exc, FileNotFoundError):
        return "%s: missing" % path
    if isinstance(exc, IsADirectoryError):
        return "%s: unreadable (a directory where a file is expected)" % path
    if isinstance(exc, NotADirectoryError):
        return "%s: missing (a parent is not a directory)" % path
    if isinstance(exc, _fileio.FileIOError):
        if str(exc).endswith("a path component is not a directory"):
            return "%s: missing (a parent is not a directory)" % path
        return "%s: unreadable (%s)" % (path, exc)
    return "%s: unreadable (%s)" % (path, exc.strerror or exc)


def _text(path, data):
    """(text, None) of a file's bytes, or (None, warning)."""
    data = data.rstrip(b"\x00 \t\r\n")
    if b"\x00" in data:
        return None, "%s: a NUL byte at offset %d, before the end (only trailing NUL padding is ignored); not parsed" % (path, data.index(b"\x00"))
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None, "%s: not text (bytes that are not UTF-8)" % path
    return text.strip(), None


def _read_text(root, path):
    """`read_text` with the root first: what `Root.read_text` is."""
    try:
        data = _read_bytes(path, root)
    except (OSError, _fileio.FileIOError) as exc:
        return None, _unread(path, exc)
    return _text(path, data)


def _read_int(root, path):
    """`read_int` with the root first: what `Root.read_int` is.

    ``int`` of the bytes themselves first: where it takes them (ASCII digits and blanks only) it
    gives what the text would; anything else goes the way of `read_text`.
    """
    try:
        data = _read_bytes(path, root)
    except (OSError, _fileio.FileIOError) as exc:
        return None, _unread(path, exc)
    try:
        return int(data), None
    except ValueError:
        pass
    text, warning = _text(path, data)
    if text is None:
        return None, warning
    try:
        return int(text, 10), None
    except ValueError:
        return None, "%s: %r is not an integer" % (path, excerpt(text))


Root.read_text = _read_text
Root.read_int = _read_int


def read_text(path, root=None):
    """Read a small text file: trailing NUL padding and surrounding blanks stripped.

    Returns (text, None), or (None, warning) when the file is missing, unreadable, not a
    regular file, too large, not text, or holds a NUL byte before its end.
    """
    return _read_text(root, path)


def read_int(path, root=None):
    """Read a file holding one decimal integer (sign allowed)."""
    return _read_int(root, path)


def is_missing(warning):
    """True for no warning or a warning that only says the file does not exist."""
    return warning is None or ": missing" in warning


def list_dir(path, root=None):
    """Names in a directory, sorted; (None, warning) when it cannot be listed.

    Under a `Root`, a plain path's entries that are not links go into its memo of places
    (`_spelled_dir`'s), from the directory's own entry types, reached through the listed
    directory's fd: listing cpu/ or node/ leaves no check to make per cpuN or nodeN directory. A
    link, or an entry whose type the listing does not give, is left for `_spelled_dir` to look at
    when it is used. A directory its check found missing is not asked again.
    """
    try:
        place = _spelled_dir(root, path) if isinstance(root, Root) else None
        if place is not None:
            if place[0] in root._missing:  # pylint: disable=protected-access
                return None, "%s: missing" % path
            place = root.file_dirs[path] = _anchored(root, place)
        with os.scandir(_inside(path, root) if place is None else (place[0] or os.sep)) as listing:
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
    if place is not None:
        memo = root.file_dirs
        key = path.rstrip(os.sep) + os.sep
        real, fd, prefix = place
        real += os.sep
        for entry in entries:
            try:
                link = entry.is_symlink()
            except OSError:
                continue
            if not link:
                name = entry.name
                memo.setdefault(key + name, (real + name, fd, prefix + name + os.sep))
    return sorted(entry.name for entry in entries), None
