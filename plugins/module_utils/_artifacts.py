# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Write a host's artifacts into one controller folder: every file in one call, atomically.

Public: `ArtifactsError`, `check_name`, `plan`, `write`, `diffs`, `MAX_BYTES`.

`plan(dest, files)` reads what is in ``dest`` now and says, per file name, whether its content
differs from the wanted content (without writing); `write(dest, files)` then makes the folder and
replaces only the files that differ, each through a temporary file in the same folder renamed over
the old one, so a reader sees the old file or the new one, never half of either. Names are plain
file names: a name with ``/``, ``..``, a NUL byte, or an empty name is refused, so nothing is ever
written outside ``dest``; an existing symlink, folder or other non-regular file of that name is
refused, never replaced or written through.
"""

from __future__ import annotations

import os
import stat
import tempfile

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._errors import NumaGateError
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._fileio import FileIOError, read_regular

# One artifact stays far below this (a 256-CPU machine's facts are ~200 KiB); a bigger one is a bug.
MAX_BYTES = 64 * 1024 * 1024
FILE_MODE = 0o644
DIR_MODE = 0o755


class ArtifactsError(NumaGateError, ValueError):
    """An artifact name, content or destination the writer refuses; the message names it."""


def check_name(name):
    """``name`` if it is a plain file name inside the folder; else ArtifactsError naming it."""
    if not isinstance(name, str) or not name:
        raise ArtifactsError("artifacts: file name must be a non-empty string, got %r" % (name,), name=name)
    if "/" in name or "\0" in name or name in (".", ".."):
        raise ArtifactsError("artifacts: file name %r must be a plain name inside dest (no '/', NUL, '.' or '..')" % (name,), name=name)
    return name


def _content(name, content):
    if not isinstance(content, str):
        raise ArtifactsError("artifacts: content of %s must be a string, got %s" % (name, type(content).__name__), name=name)
    data = content.encode("utf-8")
    if len(data) > MAX_BYTES:
        raise ArtifactsError("artifacts: content of %s is %d bytes, over the %d-byte bound" % (name, len(data), MAX_BYTES), name=name)
    return data


def _check_dest(dest):
    if not isinstance(dest, str) or not dest:
        raise ArtifactsError("artifacts: dest must be a non-empty path, got %r" % (dest,), dest=dest)
    path = os.path.abspath(dest)
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return path
    if not stat.S_ISDIR(mode):
        raise ArtifactsError("artifacts: dest %s exists and is not a folder" % path, dest=path)
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


def plan(dest, files):
    """``(folder, [(name, before, after)])`` for every file, in name order; nothing is written.

    ``before`` is the file's bytes now (None when missing), ``after`` the wanted bytes.
    """
    folder = _check_dest(dest)
    if not isinstance(files, dict) or not files:
        raise ArtifactsError("artifacts: files must be a non-empty mapping of file name to content", dest=folder)
    entries = []
    for name in sorted(files, key=str):
        after = _content(check_name(name), files[name])
        entries.append((name, _current(os.path.join(folder, name)), after))
    return folder, entries


def _replace(folder, name, data):
    handle, temp = tempfile.mkstemp(prefix=".%s." % name, suffix=".tmp", dir=folder)
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        os.chmod(temp, FILE_MODE)
        os.replace(temp, os.path.join(folder, name))
    except BaseException:
        try:
            os.unlink(temp)
        except FileNotFoundError:
            pass
        raise


def write(dest, files, check_mode=False):
    """Write ``files`` (name -> text) into ``dest``; returns ``(folder, changed names, entries)``.

    Only files whose content differs are replaced; in check mode nothing is written.
    """
    folder, entries = plan(dest, files)
    changed = [name for name, before, after in entries if before != after]
    if changed and not check_mode:
        os.makedirs(folder, mode=DIR_MODE, exist_ok=True)
        for name, before, after in entries:
            if before != after:
                _replace(folder, name, after)
    return folder, changed, entries


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
