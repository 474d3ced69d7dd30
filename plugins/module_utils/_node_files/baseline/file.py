# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The write-once baseline: a node file as it was before this collection first changed it.

Public: `keep_baseline`, `baseline_of`, `baseline_bytes`, `BASELINE_DIR`.

``<backup_dir>/baseline/<prefix>orig`` holds the bytes (0600, folder 0700), ``….orig.sha256`` a
``sha256sum``-style line, and ``….orig.meta`` the original's mode and owner (see ``backups``).
A baseline is never overwritten, and never used once its bytes no longer match their sha256.
"""

from __future__ import annotations

import hashlib
import os

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import fileio as _fileio
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._node_files import atomic
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._node_files import backups

BASELINE_DIR = "baseline"
_SUM_LIMIT = 64 * 1024


def _copy_path(path, backup_dir):
    return os.path.join(backup_dir, BASELINE_DIR, backups.backup_prefix(path) + "orig")


def baseline_of(path, backup_dir):
    """The write-once baseline copy of ``path`` in ``backup_dir``, or None."""
    copy = _copy_path(path, backup_dir)
    return copy if os.path.lexists(copy) else None


def keep_baseline(path, backup_dir):
    """Copy ``path`` as its baseline, once: an existing baseline is never overwritten.

    A sha256 file beside it lets `baseline_bytes` prove the copy is intact. Returns the baseline's path.
    """
    existing = baseline_of(path, backup_dir)
    if existing:
        return existing
    copy = _copy_path(path, backup_dir)
    atomic.make_private_dir(os.path.dirname(copy))
    try:
        data = _fileio.read_regular(os.path.abspath(path), backups.BACKUP_READ_LIMIT)
    except OSError as exc:
        raise atomic.NodeStateError("cannot read %s to keep its baseline: %s" % (path, exc.strerror or exc))
    line = "%s  %s\n" % (hashlib.sha256(data).hexdigest(), os.path.abspath(path))
    atomic.write_atomic(copy + ".sha256", line.encode("utf-8"), mode=atomic.NEW_FILE_MODE, owner=atomic.private_owner())
    backups.keep_copy(path, copy)
    return copy


def baseline_bytes(copy):
    """The baseline's bytes, checked against its sha256 file."""
    try:
        data = _fileio.read_regular(copy, backups.BACKUP_READ_LIMIT)
    except OSError as exc:
        raise atomic.NodeStateError("cannot read baseline %s: %s" % (copy, exc.strerror or exc))
    try:
        recorded = _fileio.read_regular(copy + ".sha256", _SUM_LIMIT)
    except OSError as exc:
        raise atomic.NodeStateError("cannot read the checksum of baseline %s: %s" % (copy, exc.strerror or exc))
    expected = recorded.decode("utf-8", "replace").split()[0] if recorded.strip() else ""
    actual = hashlib.sha256(data).hexdigest()
    if actual != expected:
        raise atomic.NodeStateError("baseline %s does not match its recorded sha256 (%s, found %s); not restoring it" % (copy, expected, actual))
    return data
