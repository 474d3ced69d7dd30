# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Write a host's artifacts into one controller folder: every file in one call, atomically.

Public: `ArtifactsError`, `check_name`, `check_component`, `folder_of`, `host_file`, `plan`, `write`, `diffs`,
`MAX_BYTES`, `NAME_MAX`, `ARGUMENT_SPEC` (the artifacts action's, which its module file documents).

`plan(dest, files, host=None, subdir=None)` checks every name and every content, reads what is in the
folder now and says, per file name, whether its content differs from the wanted content (without
writing); `write` then makes the folder and replaces only the files that differ. The folder is
``dest``, or ``dest/<host>[/<subdir>]``: ``host`` (an inventory host name) and ``subdir`` are single
folder names, checked by the same rule as file names (`check_component`: one path component, not
``.`` or ``..``, no ``/``, NUL or other control character, valid UTF-8, at most ``NAME_MAX`` bytes), so
nothing is ever written outside ``dest`` and one host never writes into another host's folder. A host
or subfolder that exists as a symlink (or as anything but a folder) is refused, never written through;
so is a file name that exists as a symlink, folder or other non-regular file.

Nothing is written before the whole batch is checked. Then every changed file is first written to a
temporary file in the folder (fixed-length name, fsynced); only when all of them are written are they
renamed over the old ones, so a failure while writing (a full disk) leaves every file as it was and
a reader sees each old file or its new one, never half of either.
"""

from __future__ import annotations

import os
import stat
import tempfile

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base.errors import NumaGateError
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base.fileio import FileIOError, read_regular
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import shape_check as _shape

# One artifact stays far below this (a 256-CPU machine's facts are ~200 KiB); a bigger one is a bug.
MAX_BYTES = 64 * 1024 * 1024
NAME_MAX = 255  # bytes in one file or folder name (Linux NAME_MAX, macOS and the BSDs the same)
FILE_MODE = 0o644
DIR_MODE = 0o755
_TEMP_PREFIX = ".artifact."  # temporary names are 22 bytes whatever the file's name
_SHOWN = 40

# The artifacts action's arguments (plugins/action/artifacts.py), declared once: its module file imports it too.
ARGUMENT_SPEC = {
    "dest": {"type": "path", "required": True},
    "files": {"type": "dict", "required": True},
    "host": {"type": "str"},
    "subdir": {"type": "str"},
}


class ArtifactsError(NumaGateError, ValueError):
    """An artifact name, content or destination the writer refuses; the message names it."""


def _shown(value):
    """``value`` as the message shows it: repr, at most 40 characters of it."""
    if len(value) > _SHOWN:
        return "%r..." % (value[:_SHOWN],)
    return repr(value)


def check_component(value, what):
    """``value`` if it is one plain name (a file or folder inside another); else ArtifactsError naming it and the rule.

    ``what`` says which name it is in the message: "file name", "host name", "subdir".
    """
    if not isinstance(value, str) or not value:
        raise ArtifactsError("artifacts: %s must be a non-empty string, got %r" % (what, value), name=value)
    if value in (".", ".."):
        raise ArtifactsError("artifacts: %s %r is not a name: '.' and '..' are the folder itself and its parent" % (what, value), name=value)
    if "/" in value:
        raise ArtifactsError("artifacts: %s %s has a '/': it must be one name inside its folder, not a path" % (what, _shown(value)), name=value)
    for offset, char in enumerate(value):
        if ord(char) < 0x20 or ord(char) == 0x7f:
            raise ArtifactsError("artifacts: %s %s has a control character (U+%04X) at offset %d: not a name"
                                 % (what, _shown(value), ord(char), offset), name=value)
    try:
        size = len(value.encode("utf-8"))
    except UnicodeEncodeError as exc:
        raise ArtifactsError("artifacts: %s %s is not valid UTF-8 text (%s at offset %d)" % (what, _shown(value), exc.reason, exc.start),
                             name=value) from exc
    if size > NAME_MAX:
        raise ArtifactsError("artifacts: %s %s is %d bytes in UTF-8, over the %d-byte limit of one file name (NAME_MAX)"
                             % (what, _shown(value), size, NAME_MAX), name=value)
    return value


def check_name(name):
    """``name`` if it is a plain file name inside the folder; else ArtifactsError naming it."""
    return check_component(name, "file name")


def _content(name, content):
    if not isinstance(content, str):
        raise ArtifactsError("artifacts: content of %s must be a string, got %s" % (name, _shape.kind(content)), name=name)
    try:
        data = content.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ArtifactsError("artifacts: content of %s is not valid UTF-8 text (%s at offset %d)" % (name, exc.reason, exc.start), name=name) from exc
    if len(data) > MAX_BYTES:
        raise ArtifactsError("artifacts: content of %s is %d bytes, over the %d-byte bound" % (name, len(data), MAX_BYTES), name=name)
    return data


def _check_dest(dest):
    if not isinstance(dest, str) or not dest:
        raise ArtifactsError("artifacts: dest must be a non-empty path, got %r" % (dest,), dest=dest)
    if "\0" in dest:
        raise ArtifactsError("artifacts: dest %r has a NUL byte: not a path" % (dest,), dest=dest)
    path = os.path.abspath(dest)
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return path
    except OSError as exc:
        raise ArtifactsError("artifacts: dest %s cannot be used: %s" % (path, exc.strerror or exc), dest=path) from exc
    if not stat.S_ISDIR(mode):
        raise ArtifactsError("artifacts: dest %s exists and is not a folder" % path, dest=path)
    return path


def _check_folder(path, what):
    """An existing host folder or subfolder must be a folder itself, never a link (it could lead anywhere)."""
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return False
    if stat.S_ISLNK(mode):
        raise ArtifactsError("artifacts: %s %s is a symlink (to %s); not written through: a host's artifacts go into a folder inside dest"
                             % (what, path, os.readlink(path)), dest=path)
    if not stat.S_ISDIR(mode):
        raise ArtifactsError("artifacts: %s %s exists and is not a folder" % (what, path), dest=path)
    return True


def folder_of(dest, host=None, subdir=None):
    """The folder a call writes into: ``dest``, or ``dest/<host>[/<subdir>]`` with each name checked; nothing is written.

    Raises ArtifactsError for a bad name, or for a host folder or subfolder that exists as a link or a file.
    """
    folder = _check_dest(dest)
    names = [(what, label, value) for what, label, value in (("host name", "host folder", host), ("subdir", "subfolder", subdir))
             if value is not None]
    for what, _label, value in names:
        check_component(value, what)
    exists = True
    for _what, label, value in names:
        folder = os.path.join(folder, value)
        exists = exists and _check_folder(folder, label)
    return folder


READ_BACK_MAX = 16 * 1024 * 1024


def host_file(dest, host, name):
    """``dest/<host>/<name>`` with the host and file names checked as `write` checks them (for reading a host's artifact).

    What is there must be a regular file of at most `READ_BACK_MAX` bytes, or nothing: a link (it could lead out of the
    artifacts folder), a FIFO (a read would block) or a file over the bound is refused, so a lookup of the path reads
    only a host's own artifact, within the bound.
    """
    path = os.path.join(folder_of(dest, host), check_name(name))
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return path
    if stat.S_ISLNK(info.st_mode):
        raise ArtifactsError("artifacts: %s is a symlink (to %s); not read: a host's artifact is read only from a file inside its folder"
                             % (path, os.readlink(path)), path=path)
    if not stat.S_ISREG(info.st_mode):
        raise ArtifactsError("artifacts: %s is not a regular file (a FIFO, device, socket or folder); not read" % path, path=path)
    if info.st_size > READ_BACK_MAX:
        raise ArtifactsError("artifacts: %s is %d bytes, over the %d-byte bound for reading an artifact back; not read"
                             % (path, info.st_size, READ_BACK_MAX), path=path)
    return path


def _current(path):
    """The bytes at ``path`` now, None when there is no file; refuses anything but a regular file."""
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return None
    if not stat.S_ISREG(mode):
        kind = "a symlink" if stat.S_ISLNK(mode) else "not a regular file"
        raise ArtifactsError("artifacts: %s is %s; refusing to replace it" % (path, kind), path=path)
    try:
        return read_regular(path, MAX_BYTES)
    except FileIOError as exc:
        raise ArtifactsError("artifacts: %s" % exc, path=path) from exc


def plan(dest, files, host=None, subdir=None):
    """``(folder, [(name, before, after)])`` for every file, in name order; nothing is written.

    ``before`` is the file's bytes now (None when missing), ``after`` the wanted bytes. Every name and
    content is checked before any file is read.
    """
    folder = folder_of(dest, host, subdir)
    if not isinstance(files, dict) or not files:
        raise ArtifactsError("artifacts: files must be a non-empty mapping of file name to content", dest=folder)
    names = [check_name(name) for name in files]  # a name that is not a string is refused here, before sorting
    wanted = [(name, _content(name, files[name])) for name in sorted(names)]
    return folder, [(name, _current(os.path.join(folder, name)), after) for name, after in wanted]


def _temporary(folder, data):
    """A temporary file in ``folder`` holding ``data`` (fsynced, mode FILE_MODE); its path."""
    handle, temp = tempfile.mkstemp(prefix=_TEMP_PREFIX, suffix=".tmp", dir=folder)
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
            out.flush()
            os.fchmod(out.fileno(), FILE_MODE)
            os.fsync(out.fileno())
    except BaseException:
        _remove(temp)
        raise
    return temp


def _remove(path):
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass


def _fsync_folder(folder):
    handle = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        os.fsync(handle)
    finally:
        os.close(handle)


def _replace_all(folder, changes):
    """Write every (name, data) to a temporary file first, then rename them all; on a failure before the renames, nothing changed."""
    temps = []
    try:
        for name, data in changes:
            temps.append((_temporary(folder, data), name))
        while temps:  # renames in one folder need no space: they do not fail where the writes could
            temp, name = temps[0]
            os.replace(temp, os.path.join(folder, name))
            temps.pop(0)
    finally:
        for temp, _name in temps:
            _remove(temp)
    _fsync_folder(folder)


def write(dest, files, check_mode=False, host=None, subdir=None):
    """Write ``files`` (name -> text) into the folder (`folder_of`); returns ``(folder, changed names, entries)``.

    Only files whose content differs are replaced; in check mode nothing is written.
    """
    folder, entries = plan(dest, files, host, subdir)
    changed = [name for name, before, after in entries if before != after]
    if changed and not check_mode:
        made = _make_folders(folder)
        try:
            folder_of(dest, host, subdir)  # made by us, or a link someone put there meanwhile: checked again
            _replace_all(folder, [(name, after) for name, before, after in entries if before != after])
        except BaseException:
            for path in reversed(made):  # a failed batch leaves no folder of its own behind either
                try:
                    os.rmdir(path)
                except OSError:
                    break
            raise
    return folder, changed, entries


def _make_folders(folder):
    """Make ``folder`` and its missing parents (mode DIR_MODE); the folders made, outermost first."""
    missing = []
    path = folder
    while not os.path.lexists(path):
        missing.append(path)
        parent = os.path.dirname(path)
        if parent == path:
            break
        path = parent
    made = []
    try:
        for path in reversed(missing):
            try:
                os.mkdir(path, DIR_MODE)
            except FileExistsError:
                continue  # made meanwhile by another task: the check after this refuses it unless it is a folder
            made.append(path)
    except BaseException:
        for path in reversed(made):
            os.rmdir(path)
        raise
    return made


def diffs(folder, entries):
    """Ansible diff records (before/after text with headers) for the files that change."""
    found = []
    for name, before, after in entries:
        if before == after:
            continue
        path = os.path.join(folder, name)
        found.append({
            "before_header": path if before is not None else "%s (absent)" % path,
            "after_header": path,
            "before": before.decode("utf-8", "replace") if before is not None else "",
            "after": after.decode("utf-8", "replace"),
        })
    return found
