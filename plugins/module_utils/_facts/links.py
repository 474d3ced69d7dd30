# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Links in sysfs and in sysfs snapshots, resolved without leaving the root.

Public: `resolve`, `read_link`, `link_basename`.

A real sysfs has symbolic links; copies of sysfs (snapshots) sometimes store each link as a
small regular file whose content is the link's target ("../../devices/pci0000:00/0000:00:03.0",
a "link stub"). `resolve` follows both kinds and never leaves the root: an absolute target is
taken relative to the root, and ".." stops at the root, as in a chroot. Link stubs are read
with `_fileio.read_regular` (bounded, never a FIFO or device).
"""

from __future__ import annotations

import errno
import os
import posixpath
import re
import stat

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import fileio as _fileio
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts import sysfs

# A link stored as a file: one relative or absolute path, no blanks inside.
_LINK_STUB = re.compile(r"^(?:\.\.?/|/)[^\s\x00]*$")
_LINK_STUB_MAX = 4096
_MAX_LINK_HOPS = 40


def _read_link_stub(path, size):
    """The target stored in a link-as-file, or None when the file is not one."""
    if size > _LINK_STUB_MAX:
        return None
    try:
        data = _fileio.read_regular(path, _LINK_STUB_MAX)
    except (OSError, _fileio.FileIOError):
        return None
    try:
        text = data.decode("ascii").rstrip("\n")
    except UnicodeDecodeError:
        return None
    if _LINK_STUB.match(text):
        return text
    return None


def resolve(root, relpath, link_stubs=None):
    """Resolve relpath (inside root) through links, without leaving root.

    Returns (absolute path, None) for an existing file or directory, or
    (None, warning) when a component is missing (a dangling link), is not a
    directory, or the links loop. ``link_stubs`` (default: only when root is
    not "/") lets regular files that hold a link target act as links.
    """
    root = os.path.abspath(root)
    if link_stubs is None:
        link_stubs = root != os.sep
    pending = [part for part in relpath.split("/") if part][::-1]
    resolved = []
    hops = 0
    while pending:
        name = pending.pop()
        if name == ".":
            continue
        if name == "..":
            if resolved:
                resolved.pop()
            continue
        candidate = os.path.join(root, *resolved, name)
        try:
            info = os.lstat(candidate)
        except FileNotFoundError:
            return None, "%s: missing (%s)" % (_show(root, relpath), "dangling link" if hops else "no such file")
        except OSError as exc:
            if exc.errno == errno.ENOTDIR:
                return None, "%s: missing (a parent is not a directory)" % _show(root, relpath)
            return None, "%s: unreadable (%s)" % (_show(root, relpath), exc.strerror or exc)
        target = None
        if stat.S_ISLNK(info.st_mode):
            try:
                target = os.readlink(candidate)
            except OSError as exc:
                return None, "%s: unreadable link (%s)" % (candidate, exc.strerror or exc)
        elif link_stubs and stat.S_ISREG(info.st_mode):
            target = _read_link_stub(candidate, info.st_size)
        if target is None:
            if pending and not stat.S_ISDIR(info.st_mode):
                return None, "%s: missing (%s is not a directory)" % (_show(root, relpath), candidate)
            resolved.append(name)
            continue
        hops += 1
        if hops > _MAX_LINK_HOPS:
            return None, "%s: too many levels of links" % _show(root, relpath)
        if target.startswith("/"):
            resolved = []
        pending.extend(part for part in target.split("/")[::-1] if part)
    return os.path.join(root, *resolved), None


def read_link(path, link_stubs=True):
    """The text of the link at path, not followed: a symlink's target, or the target a link-as-file holds.

    (None, warning) when path is missing, unreadable or not a link.
    ``link_stubs`` False takes only real symlinks as links.
    """
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return None, "%s: missing" % path
    except OSError as exc:
        if exc.errno == errno.ENOTDIR:
            return None, "%s: missing (a parent is not a directory)" % path
        return None, "%s: unreadable (%s)" % (path, exc.strerror or exc)
    if stat.S_ISLNK(info.st_mode):
        try:
            return os.readlink(path), None
        except OSError as exc:
            return None, "%s: unreadable link (%s)" % (path, exc.strerror or exc)
    if link_stubs and stat.S_ISREG(info.st_mode):
        target = _read_link_stub(path, info.st_size)
        if target is not None:
            return target, None
    return None, "%s: not a link" % path


def link_basename(root, relpath, link_stubs=None):
    """Basename of a link's own text, not of what it resolves to (e.g. a driver's name).

    A device's ``driver`` link names the driver even where its target is
    missing, as in snapshots, which copy the device tree but not
    /sys/bus/*/drivers. The directories above the link are resolved through
    links (without leaving root); the link itself is read, not followed.
    ``link_stubs`` as in resolve. (None, warning) when the link is missing or
    is not a link.
    """
    root = os.path.abspath(root)
    if link_stubs is None:
        link_stubs = root != os.sep
    parent, name = posixpath.split(posixpath.normpath("/" + relpath))
    if not name:
        return None, "%s: not a link" % _show(root, relpath)
    directory, warning = resolve(root, parent, link_stubs)
    if directory is None:
        return None, warning
    target, warning = read_link(os.path.join(directory, name), link_stubs)
    if target is None:
        return None, warning
    basename = posixpath.basename(target.rstrip("/"))
    if basename in ("", ".", ".."):
        return None, "%s: link target %r names nothing" % (os.path.join(directory, name), sysfs.excerpt(target))
    return basename, None


def _show(root, relpath):
    return os.path.join(root, relpath.lstrip("/"))
