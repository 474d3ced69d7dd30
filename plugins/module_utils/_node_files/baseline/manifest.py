# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The baseline's manifest: the shape every entry must have, and where an entry's copy may be.

Public: `ROLES`, `check(manifest, shown)`, `copy_path(store_real, entry, shown)`.

A manifest is read back on every run and its entries steer what is read (``copy``) and written
(``path``, ``mode``, ``uid``, ``gid``) on a restore, so nothing in it is taken on trust: every entry is
one of ``{path, role, absent: true}``, ``{path, role, symlink}`` or ``{path, role, sha256, size, mode,
uid, gid, copy}``, and ``copy`` is exactly ``files/<n>``, the name `baseline_store.record` gives it:
never absolute, never with ``..``, never through a symlinked ``files`` folder. A refusal names the
entry and the field, and changes nothing.
"""

from __future__ import annotations

import os
import re
import stat

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import fileio as _fileio
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._node_files import atomic

ROLES = ("main", "dropin", "checkpoint")
FILES = "files"
_COPY = re.compile(r"^files/(0|[1-9][0-9]{0,8})$")
_SHA = re.compile(r"^[0-9a-f]{64}$")
_MODE = re.compile(r"^[0-7]{3,4}$")


def _count(value):
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _entry_problem(entry):
    """(field, why) of the first thing wrong with one manifest entry, or None."""
    if not isinstance(entry, dict):
        return None, "is a %s, not a mapping" % type(entry).__name__
    path = entry.get("path")
    if not (isinstance(path, str) and path.startswith("/") and "\x00" not in path):
        return "path", "%s is not an absolute node path" % _fileio.short_repr(path)
    if entry.get("role") not in ROLES:
        return "role", "%s is not one of %s" % (_fileio.short_repr(entry.get("role")), ", ".join(ROLES))
    if entry.get("absent") is not None:
        if entry["absent"] is not True or set(entry) - {"path", "role", "absent"}:
            return "absent", "must be true and alone with path and role"
        return None
    if "symlink" in entry:
        if not isinstance(entry["symlink"], str) or not entry["symlink"] or "copy" in entry:
            return "symlink", "%s is not a link's target text (and a symlink entry has no copy)" % _fileio.short_repr(entry["symlink"])
        return None
    copy = entry.get("copy")
    if not (isinstance(copy, str) and _COPY.match(copy)):
        return "copy", "%s is not a copy of the store (files/<n>): never an absolute path or one with '..'" % _fileio.short_repr(copy)
    if not (isinstance(entry.get("sha256"), str) and _SHA.match(entry["sha256"])):
        return "sha256", "%s is not 64 hex digits" % _fileio.short_repr(entry.get("sha256"))
    if not (isinstance(entry.get("mode"), str) and _MODE.match(entry["mode"])):
        return "mode", "%s is not an octal mode such as 0600" % _fileio.short_repr(entry.get("mode"))
    for field in ("size", "uid", "gid"):
        if not _count(entry.get(field)):
            return field, "%s is not a whole number of at least 0" % _fileio.short_repr(entry.get(field))
    return None


def check(manifest, shown):
    """Refuse a manifest whose entries are not the shape `baseline_store.record` writes (``shown`` names the file)."""
    seen = set()
    for index, entry in enumerate(manifest["files"]):
        problem = _entry_problem(entry)
        if problem:
            field, why = problem
            where = "files[%d]" % index + (".%s" % field if field else "")
            raise atomic.NodeStateError("baseline %s: %s %s; nothing was changed" % (shown, where, why))
        if entry["path"] in seen:
            raise atomic.NodeStateError("baseline %s: files[%d].path %s is listed twice; nothing was changed" % (shown, index, entry["path"]))
        seen.add(entry["path"])
    return manifest


def copy_path(store_real, entry, shown):
    """The real path of ``entry``'s copy inside the store; the ``files`` folder must be a folder, not a symlink."""
    folder = os.path.join(store_real, FILES)
    try:
        info = os.lstat(folder)
    except FileNotFoundError:
        raise atomic.NodeStateError("baseline %s has no %s folder; not read" % (shown, FILES))
    if not stat.S_ISDIR(info.st_mode):
        raise atomic.NodeStateError("baseline %s/%s is %s, not a folder; not read" % (
            shown, FILES, "a symlink" if stat.S_ISLNK(info.st_mode) else "a file or device"))
    return os.path.join(folder, entry["copy"][len(FILES) + 1:])
