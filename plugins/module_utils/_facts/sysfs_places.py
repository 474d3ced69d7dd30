# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Where a path under the root facts are read from really is, found without ever leaving the root.

Public: `TopologyError`, `RootDir`, `dir_place`, `anchored`, `inside`, `exists`, `close_fds`.
The readers on top of it are in `sysfs`.

As in a chroot, ``..`` stops at the root and a link, absolute or relative, is resolved inside it
(`_fileio.resolve_within`), so no reader follows a link out of the folder it was given. A gather
reads about a thousand files in a few hundred directories, so each directory is checked once per
`RootDir` and remembered as a *place* ``(real, fd, prefix)``: its real path (no trailing "/", ""
for "/"), and where a name in it is looked at without following:
``os.stat(prefix + name, dir_fd=fd, follow_symlinks=False)``.
"""

from __future__ import annotations

import os
import posixpath
import stat

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import fileio as _fileio
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base.errors import NumaGateError

_DIR_FLAGS = getattr(os, "O_PATH", os.O_RDONLY) | os.O_DIRECTORY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
# Directory fds a RootDir keeps at most: far below the usual 1,024 a process may hold (a 256-CPU
# snapshot needs a handful: the listed directories); past it, directories are checked by path.
_MAX_DIR_FDS = 384
# Files read are closed this many at a time.
_CLOSE_BATCH = 32
# Not a file's name: what a path split at its last "/" can leave that `_resolve` normalises away.
NOT_NAMES = frozenset(("", ".", ".."))


class TopologyError(NumaGateError, ValueError):
    """The root has no CPU topology (or no online CPU) at all, so there are no facts to give."""


class RootDir:
    """The directory facts are read under: ``path`` (absolute) for messages; every place found stays inside it.

    Readers take it as an argument. What it holds only saves work, for the length of one gather:

    - ``places``: directory places keyed by the path exactly as callers spell it (absolute, under the
      root, plain names only: see `dir_place`), so a file in a known directory costs one dict lookup;
    - ``resolved``: real paths of directories resolved by `_resolve`, keyed by their path relative to the root;
    - ``dir_fds``: the directory fds the places use; ``read_fds``: files read and not closed yet (`done_with`);
    - ``missing``: real paths a check found missing, so a listing does not ask again.

    `close` lets all of it go; the RootDir stays usable.
    """

    def __init__(self, path):
        if not isinstance(path, str) or not path:
            raise TopologyError("root %r is not a path" % (path,))
        self.path = os.path.abspath(path)
        self.is_host = self.path == os.sep
        self.prefix = self.path if self.is_host else self.path + os.sep
        self.places = {}
        self.resolved = {}
        self.dir_fds = []
        self.read_fds = []
        self.missing = set()

    def close(self):
        """Close the fds held (directories', and files read but not closed yet) and forget the places."""
        fds = self.dir_fds + self.read_fds
        self.dir_fds = []
        self.read_fds = []
        self.places = {}
        close_fds(fds)

    def done_with(self, fd):
        """A file read to the end: closed with the next batch (consecutive fds in one close_range; a gather opens ~1,000 files)."""
        done = self.read_fds
        done.append(fd)
        if len(done) >= _CLOSE_BATCH:
            self.read_fds = []
            close_fds(done)

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

    def exists(self, path):
        return exists(path, self)

    def isdir(self, path):
        return exists(path, self, stat.S_ISDIR)


def close_fds(fds):
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


def dir_place(root, path):
    """The place of directory ``path`` as `_resolve` finds it, memoised by its spelling; None when not plain.

    Plain: the root itself, or under it with plain names only (no ``.``, ``..`` or empty
    component), so each spelling names one place. Each step is the parent's real path joined with
    the name, checked once, looked at without following relative to the parent's place; a link is
    resolved by `_fileio.resolve_within` inside the root. Where the place has no fd (missing, below
    a file, at the `_MAX_DIR_FDS` bound, under "/") the prefix is the real path and the caller's own
    look says what is wrong. A directory a listing showed (`sysfs.list_dir`) is reached through the
    listed directory's fd ("cpuN/"). Under "/" nothing is opened: no link can lead out of it.
    """
    memo = root.places
    place = memo.get(path)
    if place is not None:
        return place
    if path == root.path or (root.is_host and not path):
        place = memo[path] = _root_place(root)
        return place
    if not path.startswith(root.prefix):
        return None
    parent, _sep, name = path.rpartition(os.sep)
    if name in NOT_NAMES:
        return None
    parent_place = dir_place(root, parent)
    if parent_place is None:
        return None
    real = parent_place[0] + os.sep + name
    if root.is_host:
        # Inside "/" every link resolves inside the root, so the kernel may follow directory links
        # itself: no check per directory (a 256-CPU host has one per cpuN/topology).
        place = memo[path] = (real, None, real + os.sep)
        return place
    place = memo[path] = _checked_dir(root, path, real, parent_place)
    return place


def _root_place(root):
    real = os.path.realpath(root.path).rstrip(os.sep)
    if root.is_host or len(root.dir_fds) >= _MAX_DIR_FDS:
        return (real, None, real + os.sep)
    try:
        fd = os.open(root.path, _DIR_FLAGS & ~os.O_NOFOLLOW)  # the given folder may itself be a link
    except OSError:
        return (real, None, real + os.sep)
    root.dir_fds.append(fd)
    return (real, fd, "")


def _checked_dir(root, path, real, parent_place):
    """The place of directory ``real`` (spelled ``path``): looked at without following relative to its parent's place; a link resolved."""
    _parent_real, parent_fd, parent_prefix = parent_place
    name = path.rpartition(os.sep)[2]
    try:
        mode = os.stat(parent_prefix + name, dir_fd=parent_fd, follow_symlinks=False).st_mode
    except FileNotFoundError:
        root.missing.add(real)
        return (real, None, real + os.sep)
    except OSError:
        return (real, None, real + os.sep)  # below a file, or not searchable: the caller's own look says which
    if stat.S_ISDIR(mode):
        return (real, parent_fd, parent_prefix + name + os.sep)
    if not stat.S_ISLNK(mode):
        return (real, None, real + os.sep)  # a file: the caller's own look says "not a directory"
    real = _fileio.resolve_within(root.path, path[len(root.prefix):]).rstrip(os.sep)
    return anchored(root, (real, None, real + os.sep))


def anchored(root, place):
    """``place`` with a directory fd of its own (opened without following), so its entries are looked at relative to it.

    The place as it was when it already has one, is missing, or `_MAX_DIR_FDS` are held.
    """
    real, fd, prefix = place
    if fd is not None and not prefix:
        return place
    fds = root.dir_fds
    if root.is_host or len(fds) >= _MAX_DIR_FDS or real in root.missing:
        return place
    try:
        fd = os.open(real or os.sep, _DIR_FLAGS)
    except OSError:
        return place
    fds.append(fd)
    return (real, fd, "")


def inside(path, root, follow_last=True):
    """The real location of ``path`` (absolute, under the root) resolved inside the root.

    ``root`` is a `RootDir`, a directory, or None for "/". A `RootDir` remembers the directories
    it has resolved, so each costs one look; a link anywhere is resolved by
    `_fileio.resolve_within`, as in a chroot. With ``follow_last`` false a final link is left for
    the caller (`sysfs.read_text` opens without following, and resolves only when it meets a link).
    """
    if isinstance(root, RootDir):
        if follow_last:
            place = dir_place(root, path)
            if place is not None:
                return place[0] or os.sep
        else:
            head, _sep, name = path.rpartition(os.sep)
            if name not in NOT_NAMES:
                place = dir_place(root, head)
                if place is not None:
                    return place[0] + os.sep + name
    return _resolve(path, root, follow_last)


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


def _resolve(path, root, follow_last):
    dirs = root.resolved if isinstance(root, RootDir) else None
    base = (root.path if isinstance(root, RootDir) else root) or os.sep
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
        info = os.stat(inside(path, root))
    except (OSError, _fileio.FileIOError):
        return False
    return test is None or bool(test(info.st_mode))
