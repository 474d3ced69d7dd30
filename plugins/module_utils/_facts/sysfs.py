# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Small, safe readers for sysfs and procfs files under an alternate root.

Every reader returns ``(value, warning)``: the value, or None with a warning
string that names the path and what was wrong with it (missing, unreadable,
not the expected format). Nothing here raises for bad file content, so one
broken file never hides the rest of the topology.

Links: a real sysfs has symbolic links; copies of sysfs (snapshots) sometimes
store each link as a small regular file whose content is the link's target
("../../devices/pci0000:00/0000:00:03.0"). `resolve` follows both kinds, and
never leaves the root: an absolute target is taken relative to the root, and
".." stops at the root, as in a chroot.
"""

from __future__ import annotations

import errno
import os
import posixpath
import re
import stat

from ansible_collections.gpusmith.numa_gate.plugins.module_utils import _cpulist

# A link stored as a file: one relative or absolute path, no blanks inside.
_LINK_STUB = re.compile(r"^(?:\.\.?/|/)[^\s\x00]*$")
_LINK_STUB_MAX = 4096
_FULL_MASK = re.compile(r"^[0-9a-fA-F]{1,8}(?:,[0-9a-fA-F]{8})*$")
_MAX_LINK_HOPS = 40
# Far above any sysfs attribute (a page); stops a wrong path from reading a huge file.
_MAX_READ = 1 << 20


def read_text(path):
    """Read a small text file: NUL bytes removed, surrounding blanks stripped.

    Returns (text, None), or (None, warning) when the file is missing,
    unreadable, or not text.
    """
    try:
        data = _read_bytes(path)
    except FileNotFoundError:
        return None, "%s: missing" % path
    except IsADirectoryError:
        return None, "%s: unreadable (a directory where a file is expected)" % path
    except NotADirectoryError:
        return None, "%s: missing (a parent is not a directory)" % path
    except OSError as exc:
        return None, "%s: unreadable (%s)" % (path, exc.strerror or exc)
    try:
        text = data.replace(b"\x00", b"").decode("utf-8")
    except UnicodeDecodeError:
        return None, "%s: not text (bytes that are not UTF-8)" % path
    return text.strip(), None


def _read_bytes(path):
    """The file's bytes (at most _MAX_READ); raw os calls, as this runs for every CPU."""
    fd = os.open(path, os.O_RDONLY)
    try:
        chunks = []
        total = 0
        while total < _MAX_READ:
            chunk = os.read(fd, 65536)
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
    finally:
        os.close(fd)
    return b"".join(chunks)


def read_int(path):
    """Read a file holding one decimal integer (sign allowed)."""
    text, warning = read_text(path)
    if text is None:
        return None, warning
    try:
        return int(text, 10), None
    except ValueError:
        return None, "%s: %r is not an integer" % (path, _short(text))


def read_cpulist(path):
    """Read a cpulist file ("0-3,8"); returns the canonical cpulist."""
    return _as_cpulist(read_cpulist_ids(path))


def read_cpumask(path):
    """Read a cpumask file ("ff,00000001"); returns the canonical cpulist."""
    return _as_cpulist(read_cpumask_ids(path))


def read_cpus(list_path, mask_path=None):
    """Read a CPU set from a cpulist file, falling back to its cpumask twin.

    Old kernels only have the mask (``cpumap``, ``thread_siblings``); newer
    ones have both. A list file that is present but garbage also falls back
    to the mask, and its warning is kept alongside. ``list_path`` may be
    None to read the mask only. Returns the canonical cpulist.
    """
    return _as_cpulist(read_cpu_ids(list_path, mask_path))


def read_cpulist_ids(path):
    """Like read_cpulist, but the CPU ids as a sorted list."""
    text, warning = read_text(path)
    if text is None:
        return None, warning
    try:
        return _cpulist.parse(text), None
    except _cpulist.CpuListError as exc:
        return None, "%s: %s" % (path, exc)


def read_cpumask_ids(path):
    """Like read_cpumask, but the CPU ids as a sorted list."""
    text, warning = read_text(path)
    if text is None:
        return None, warning
    try:
        return mask_ids(text), None
    except _cpulist.CpuListError as exc:
        return None, "%s: %s" % (path, exc)


def read_cpu_ids(list_path, mask_path=None):
    """Like read_cpus, but the CPU ids as a sorted list."""
    value, warning = read_cpulist_ids(list_path) if list_path else (None, None)
    if value is not None or not mask_path:
        return value, warning
    mask_value, mask_warning = read_cpumask_ids(mask_path)
    if mask_value is not None:
        if is_missing(warning):
            return mask_value, None
        return mask_value, "%s; used %s instead" % (warning, mask_path)
    if is_missing(warning) and is_missing(mask_warning):
        return None, "%s: missing (and %s)" % (list_path, mask_path) if list_path else mask_warning
    return None, "; ".join(w for w in (warning, mask_warning) if not is_missing(w))


def mask_ids(text):
    """CPU ids of a kernel cpumask, sorted; CpuListError for garbage.

    The usual shape (32-bit words, all but the first 8 digits) is read as one
    integer; anything else goes through _cpulist.parse_mask, which checks it.
    """
    cleaned = text.replace("\x00", "").strip()
    if not _FULL_MASK.match(cleaned):
        return _cpulist.parse_mask(text)
    value = int(cleaned.replace(",", ""), 16)
    ids = []
    while value:
        low = value & -value
        ids.append(low.bit_length() - 1)
        value ^= low
    return ids


def _as_cpulist(result):
    ids, warning = result
    return (None if ids is None else _cpulist.format(ids)), warning


def is_missing(warning):
    """True for no warning or a warning that only says the file does not exist."""
    return warning is None or ": missing" in warning


def list_dir(path):
    """Names in a directory, sorted; (None, warning) when it cannot be listed."""
    try:
        return sorted(os.listdir(path)), None
    except FileNotFoundError:
        return None, "%s: missing" % path
    except NotADirectoryError:
        return None, "%s: not a directory" % path
    except OSError as exc:
        return None, "%s: unreadable (%s)" % (path, exc.strerror or exc)


def _read_link_stub(path, size):
    """The target stored in a link-as-file, or None when the file is not one."""
    if size > _LINK_STUB_MAX:
        return None
    try:
        with open(path, "rb") as handle:
            data = handle.read(_LINK_STUB_MAX + 1)
    except OSError:
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
        return None, "%s: link target %r names nothing" % (os.path.join(directory, name), _short(target))
    return basename, None


def _show(root, relpath):
    return os.path.join(root, relpath.lstrip("/"))


def _short(text, limit=40):
    if len(text) <= limit:
        return text
    return text[:limit] + "..."
