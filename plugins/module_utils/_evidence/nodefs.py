# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Reading node files for the evidence step: inside a root, bounded, never blocking.

Public: `EvidenceError`, `read_text`, `list_dirs`, `is_dir`, `is_file`, `READ_LIMIT`.

A thin layer over `_fileio` (the one shared reader): `read_text` returns None for a file that
is absent (a pod that just ended, a controller not mounted), and raises for anything `_fileio`
refuses, so a FIFO or a symlink out of the root is named, never read. A path under the cgroup
mount (``sys/fs/cgroup``) must also resolve inside that mount: a link (or a ``..``) that leads
from a cgroup to anywhere else under the root is refused, never read as a measurement.
"""

from __future__ import annotations

import os
import stat

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import fileio as _fileio
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base.errors import NumaGateError

READ_LIMIT = 16 * 1024 * 1024  # numa_maps of a large process
CGROUP = "sys/fs/cgroup"


class EvidenceError(NumaGateError):
    """Evidence that cannot be read or does not make sense; the message names the file or value."""


def _inside(root, path):
    where = _fileio.resolve_within(root, path)
    relative = path.lstrip("/")
    if relative == CGROUP or relative.startswith(CGROUP + "/"):
        mount = _fileio.resolve_within(root, CGROUP)
        if where != mount and not where.startswith(mount + os.sep):
            raise EvidenceError("/%s resolves to %s, outside the cgroup mount %s: not read (cgroup files are read only inside it)"
                                % (relative, where, mount), path=path)
    return where


def read_text(root, path, limit=READ_LIMIT):
    """The text of ``path`` under ``root``, or None when it does not exist (or vanished: ESRCH)."""
    try:
        data = _fileio.read_regular(_inside(root, path), limit)
    except (FileNotFoundError, ProcessLookupError, NotADirectoryError):
        return None
    return data.decode("utf-8", "replace")


def is_dir(root, path):
    """True when ``path`` under ``root`` is a directory (links resolved inside the root)."""
    try:
        return stat.S_ISDIR(os.stat(_inside(root, path)).st_mode)
    except OSError:
        return False


def is_file(root, path):
    """True when ``path`` under ``root`` is a regular file."""
    try:
        return stat.S_ISREG(os.stat(_inside(root, path)).st_mode)
    except OSError:
        return False


def list_dirs(root, path):
    """Sorted names of the subdirectories of ``path`` (not followed when symlinks), [] when absent."""
    where = _inside(root, path)
    try:
        names = os.listdir(where)
    except (FileNotFoundError, NotADirectoryError, ProcessLookupError):
        return []
    found = []
    for name in names:
        try:
            if stat.S_ISDIR(os.lstat(os.path.join(where, name)).st_mode):
                found.append(name)
        except OSError:
            continue
    return sorted(found)
