# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Small bounded readers for sysfs and procfs files under the root facts are read from.

Public: `TopologyError`, `Root`, `read_text`, `read_int`, `list_dir`, `exists`, `is_missing`,
`excerpt`. Where a path really is: `sysfs_places`. CPU sets read from these files: `sysfs_cpusets`.

Every reader returns ``(value, warning)``: the value, or None with a warning string that names
the path and what was wrong with it (missing, unreadable, not the expected format). Nothing here
raises for bad file content, so one broken file never hides the rest of the topology.

Reading never leaves the root: each file's directory is found with `sysfs_places` (as in a
chroot, ``..`` stops at the root and a link is resolved inside it), the file is looked at before
it is opened, and only a regular file within the size bound is opened (without following,
non-blocking), so a FIFO, a device or a link out of the root is a warning naming the path, never
a hang or a read elsewhere. Only trailing NUL padding is ignored; a NUL inside the text is an
error. Warnings quote at most a short excerpt of what a file holds.
"""

from __future__ import annotations

import os
import stat

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import fileio as _fileio
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts import sysfs_places
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts.sysfs_places import NOT_NAMES, dir_place, inside

# Far above any sysfs attribute (a page); stops a wrong path from reading a huge file.
_MAX_READ = 1 << 20
_EXCERPT = 40
_OPEN_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)
_CHUNK = 65536
_S_IFMT = 0o170000
_S_IFREG = stat.S_IFREG
_KINDS = ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
          (stat.S_ISSOCK, "a socket"))

TopologyError = sysfs_places.TopologyError
exists = sysfs_places.exists


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
    from the `Root`'s memo of places (`sysfs_places.dir_place`); an lstat of the file relative to
    the place, and only a regular file within the bound is opened, relative to the place too
    (without following, non-blocking, no controlling terminal), and read, once
    when the read returns the size the lstat gave (a snapshot's files), else to end of file (sysfs
    gives every attribute a size of one page). Nothing else is opened: whatever is not simply a
    regular file (a link, a FIFO, a device, a folder, a file over the bound) or fails to open goes
    to `_read_checked`, which asks `_fileio.read_regular` and raises its errors. A missing file
    raises `FileNotFoundError` from the lstat.
    """
    head, _sep, name = path.rpartition("/")
    try:
        real, fd, prefix = root.places[head]
        if name in NOT_NAMES:
            raise KeyError(name)
    except (KeyError, AttributeError):  # a directory not met yet, a name to normalise, or ``root`` not a Root
        real, fd, prefix, name = _file_place(path, root, head, name)
    info = os.stat(prefix + name, dir_fd=fd, follow_symlinks=False)
    size = info.st_size
    if info.st_mode & _S_IFMT != _S_IFREG or size > _MAX_READ:
        return _read_checked(path, root, path if real == head else real + "/" + name)
    try:
        opened = os.open(prefix + name, _OPEN_FLAGS, dir_fd=fd)
    except OSError:
        return _read_checked(path, root, path if real == head else real + "/" + name)
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
            root.done_with(opened)
        else:
            os.close(opened)
    if total > _MAX_READ:
        return _read_checked(path, root, path if real == head else real + "/" + name)
    return b"".join(chunks)


def _file_place(path, root, head, name):
    """``(real directory, fd, prefix, name)`` for `_read_bytes` where the memo has no answer.

    `sysfs_places.dir_place`'s place, else `sysfs_places.inside`'s real directory.
    """
    place = dir_place(root, head) if root.__class__ is Root and name not in NOT_NAMES else None
    if place is not None:
        return place + (name,)
    real_dir, _sep, name = inside(path, root, follow_last=False).rpartition("/")
    return (real_dir, None, real_dir + "/", name)


def _read_checked(path, root, real):
    """`_read_bytes` where the file is not simply a regular one: `_fileio.read_regular`'s errors, a link resolved inside the root."""
    try:
        return _fileio.read_regular(real, _MAX_READ)
    except _fileio.FileIOError:
        info = os.lstat(real)
        if stat.S_ISLNK(info.st_mode):
            real = inside(path, root)
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


class Root(sysfs_places.RootDir):
    """The directory facts are read under (see `sysfs_places.RootDir`), with the readers as methods.

    ``read_text(path)`` and ``read_int(path)`` are `_read_text` and `_read_int` themselves (root
    first), so a read through the Root is one call less; ``list_dir(path)`` is `list_dir` under it.
    """

    read_text = _read_text
    read_int = _read_int

    def list_dir(self, path):
        return list_dir(path, self)


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
    (`sysfs_places.dir_place`'s), from the directory's own entry types, reached through the listed
    directory's fd: listing cpu/ or node/ leaves no check to make per cpuN or nodeN directory. A
    link, or an entry whose type the listing does not give, is left for `sysfs_places.dir_place` to look at
    when it is used. A directory its check found missing is not asked again.
    """
    try:
        place = dir_place(root, path) if isinstance(root, Root) else None
        if place is not None:
            if place[0] in root.missing:
                return None, "%s: missing" % path
            place = root.places[path] = sysfs_places.anchored(root, place)
        with os.scandir(inside(path, root) if place is None else (place[0] or os.sep)) as listing:
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
        memo = root.places
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
