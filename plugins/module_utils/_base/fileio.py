# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Read node files without leaving the folder given, without blocking, within a size bound.

Public: `FileIOError`, `resolve_within`, `read_regular`, `read_under`, `parse_json`, `JSONTooDeep`, `short_repr`, `DEFAULT_READ_LIMIT`.

`resolve_within(root, path)` resolves ``path`` as if ``root`` were ``/`` (the way a chroot
would): ``..`` never climbs above ``root`` and an absolute symlink target is read inside
``root``, so the result always lies under ``root``. `read_regular` opens only regular files,
with ``O_NOFOLLOW`` and ``O_NONBLOCK`` (a FIFO or device is refused, never opened for a
blocking read) and refuses files over a byte bound instead of reading them whole.
`parse_json` decodes UTF-8 JSON and turns the parser's RecursionError (JSON nested deeper than the
interpreter's stack) into `JSONTooDeep`, a ValueError, so callers name the file instead of failing with it.
Writing lives in ``_node_state``; this is the reading half, shared by every step.
"""

from __future__ import annotations

import errno
import json
import os
import reprlib
import stat

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base.errors import NumaGateError

DEFAULT_READ_LIMIT = 4 * 1024 * 1024
MAX_SYMLINKS = 40  # the kernel's own bound (ELOOP)


class FileIOError(NumaGateError):
    """A node file the collection will not read or resolve; the message names it."""

    def __init__(self, message, path=None, **details):
        super().__init__(message, **details)
        self.path = path


def _kind(mode):
    for test, name in ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"),
                       (stat.S_ISDIR, "a directory"), (stat.S_ISLNK, "a symlink")):
        if test(mode):
            return name
    return "not a regular file"


def _components(path):
    return [part for part in path.split("/") if part and part != "."]


def resolve_within(root, path, follow_last=True):
    """The real location of ``path`` inside ``root``, never outside it.

    ``path`` may be absolute (read as relative to ``root``) or relative to ``root``. Missing
    components are kept as named (a file about to be created). With ``follow_last`` false a
    final symlink is not followed, so a caller can refuse it rather than write through it.
    """
    if not isinstance(root, str) or not root:
        raise FileIOError("root must be a non-empty path, got %r" % (root,), path=root)
    if not isinstance(path, str) or not path:
        raise FileIOError("path must be a non-empty path, got %r" % (path,), path=path)
    root = os.path.realpath(root)
    pending = _components(path)
    pending.reverse()
    inside = []
    links = 0
    while pending:
        part = pending.pop()
        if part == "..":
            if inside:
                inside.pop()
            continue
        candidate = os.path.join(root, *(inside + [part]))
        if not pending and not follow_last:
            inside.append(part)
            break
        try:
            info = os.lstat(candidate)
        except FileNotFoundError:
            inside.append(part)
            continue
        except NotADirectoryError:
            raise FileIOError("%s: a path component is not a directory" % candidate, path=candidate)
        if not stat.S_ISLNK(info.st_mode):
            inside.append(part)
            continue
        links += 1
        if links > MAX_SYMLINKS:
            raise FileIOError("%s: too many levels of symbolic links resolving %s under %s"
                              % (candidate, path, root), path=candidate)
        target = os.readlink(candidate)
        if target.startswith("/"):
            inside = []
        more = _components(target)
        more.reverse()
        pending.extend(more)
    return os.path.join(root, *inside) if inside else root


def read_regular(path, limit=DEFAULT_READ_LIMIT):
    """The bytes of the regular file ``path`` (not followed if a symlink), at most ``limit``.

    Raises `FileNotFoundError` when it is absent (callers decide whether that matters) and
    `FileIOError` for a symlink, FIFO, device, socket or directory, or a file over ``limit``.
    """
    info = os.lstat(path)
    if not stat.S_ISREG(info.st_mode):
        raise FileIOError("%s is %s, not a regular file; not read" % (path, _kind(info.st_mode)), path=path)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise FileIOError("%s became a symlink while being opened; not read" % path, path=path)
        raise
    try:
        opened = os.fstat(fd)
        if not stat.S_ISREG(opened.st_mode):
            raise FileIOError("%s is %s, not a regular file; not read" % (path, _kind(opened.st_mode)), path=path)
        chunks = []
        size = 0
        while size <= limit:
            chunk = os.read(fd, min(65536, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    finally:
        os.close(fd)
    if size > limit:
        raise FileIOError("%s is larger than %d bytes; not read" % (path, limit), path=path)
    return b"".join(chunks)


def read_under(root, path, limit=DEFAULT_READ_LIMIT):
    """`read_regular` of ``path`` resolved inside ``root`` (symlinks followed, but only inside)."""
    return read_regular(resolve_within(root, path), limit)


class JSONTooDeep(ValueError):
    """JSON nested deeper than the parser can follow (its RecursionError, as a ValueError)."""


def parse_json(blob):
    """The JSON value of ``blob`` (bytes or str); a ValueError (never a RecursionError) when it is not JSON.

    A ``UnicodeDecodeError`` is a ValueError too, so one ``except ValueError`` covers every way bytes fail to be JSON.
    """
    text = blob.decode("utf-8") if isinstance(blob, bytes) else blob
    try:
        return json.loads(text)
    except RecursionError:
        raise JSONTooDeep("nested too deeply to parse (more levels of arrays and objects than the parser's recursion limit)")


_SHORT = reprlib.Repr()
_SHORT.maxstring = 60
_SHORT.maxother = 60
_SHORT.maxlevel = 3


def short_repr(value):
    """``repr`` of ``value`` bounded in length and depth, for messages about hostile input."""
    return _SHORT.repr(value)
