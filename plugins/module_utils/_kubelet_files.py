# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The kubelet's configuration files on a node, and the change this collection makes to them.

Reads the main file and every drop-in the kubelet would read, computes the
file this collection manages before and after, and the effective
configuration the kubelet would then run with. Nothing here writes.
"""

from __future__ import annotations

import os

from ansible_collections.gpusmith.numa_gate.plugins.module_utils import _atomic_file
from ansible_collections.gpusmith.numa_gate.plugins.module_utils import _kubelet_merge

DROPIN_HEADER = ("# Managed by the gpusmith.numa_gate collection (kubelet_config module).\n"
                 "# Changes here are overwritten; to roll back run kubelet_config with state: absent.\n")
MAIN_HEADER = ("# Settings merged by the gpusmith.numa_gate collection (kubelet_config, mode: main).\n"
               "# The original file is kept byte for byte in the collection's backup directory.\n")


def under(root, path):
    """path as seen from root ("/" is the node itself; a folder in tests)."""
    if root in ("", "/"):
        return path
    return os.path.join(root, path.lstrip("/"))


def _read(path):
    with open(path, "rb") as handle:
        return handle.read()


def load(path):
    """(bytes, document) of a kubelet config file; (None, None) when it does not exist."""
    if not os.path.lexists(path):
        return None, None
    try:
        data = _read(path)
    except OSError as exc:
        raise _kubelet_merge.KubeletConfigError("cannot read: %s" % (exc.strerror or exc), path)
    return data, _kubelet_merge.load_document(data, path)


def dropin_paths(config_dir):
    """*.conf files under config_dir in the kubelet's filepath.WalkDir order (links to directories not followed)."""
    found = []
    for directory, dirnames, filenames in os.walk(config_dir):
        dirnames.sort()
        for name in filenames + [d for d in dirnames if os.path.islink(os.path.join(directory, d))]:
            if _kubelet_merge.is_dropin_name(name):
                found.append(os.path.join(directory, name))
    return sorted(found, key=_kubelet_merge.dropin_sort_key)


def render(doc, header, dump):
    """The bytes written for doc: header, then apiVersion and kind, then the other keys sorted (stable)."""
    ordered = {"apiVersion": _kubelet_merge.API_VERSION, "kind": _kubelet_merge.KIND}
    for key in sorted(k for k in doc if k not in ("apiVersion", "kind")):
        ordered[key] = doc[key]
    return (header + dump(ordered)).encode("utf-8")


class Change:
    """The managed file before and after, and the effective configuration after."""

    def __init__(self, path, before, after, target, restore_from=None):
        self.path = path
        self.before = before
        self.after = after
        self.target = target
        self.restore_from = restore_from

    @property
    def changed(self):
        return self.before != self.after


class Layout:
    """The kubelet configuration files of one node, as they are now."""

    def __init__(self, main_path, config_dir):
        self.main_path = main_path
        self.config_dir = config_dir
        self.main_bytes, self.main_doc = load(main_path)
        self.dropins = []
        self.dropin_bytes = {}
        if os.path.isdir(config_dir):
            for path in dropin_paths(config_dir):
                data, doc = load(path)
                self.dropins.append((path, doc))
                self.dropin_bytes[path] = data

    def dropin_change(self, name, settings, dump):
        """Our drop-in set to settings (None: removed)."""
        own = os.path.join(self.config_dir, name)
        others = [(path, doc) for path, doc in self.dropins if path != own]
        if settings is None:
            after, target_dropins = None, others
        else:
            doc = {key: value for key, value in settings.items() if key not in ("apiVersion", "kind")}
            after = render(doc, DROPIN_HEADER, dump)
            target_dropins = others + [(own, doc)]
        target = _kubelet_merge.effective_config(self.main_doc, target_dropins, self.main_path)
        return Change(own, self.dropin_bytes.get(own), after, target)

    def main_change(self, settings, dump):
        """settings merged into the main file (JSON merge patch, as the kubelet merges)."""
        if self.main_doc is None:
            raise _kubelet_merge.KubeletConfigError("does not exist; mode=main needs it", self.main_path)
        patch = {key: value for key, value in settings.items() if key not in ("apiVersion", "kind")}
        new_doc = _kubelet_merge.merge_patch(self.main_doc, patch)
        after = self.main_bytes if new_doc == self.main_doc else render(new_doc, MAIN_HEADER, dump)
        target = _kubelet_merge.effective_config(new_doc, self.dropins, self.main_path)
        return Change(self.main_path, self.main_bytes, after, target)

    def main_restore(self, backup_dir):
        """The main file back to the first backup this collection made of it."""
        backups = _atomic_file.backups_of(self.main_path, backup_dir)
        if not backups:
            raise _kubelet_merge.KubeletConfigError(
                "no backup made by this collection in %s: nothing to restore" % backup_dir, self.main_path)
        after = _read(backups[0])
        restored = _kubelet_merge.load_document(after, backups[0])
        target = _kubelet_merge.effective_config(restored, self.dropins, self.main_path)
        return Change(self.main_path, self.main_bytes, after, target, restore_from=backups[0])


def apply(change, backup_dir):
    """Make the change on disk; returns the backup of what was replaced or removed (or None)."""
    if change.after is None:
        return _atomic_file.remove(change.path, backup_dir)
    if change.restore_from is not None:
        saved = _atomic_file.backup(change.path, backup_dir) if change.before is not None else None
        _atomic_file.restore(change.restore_from, change.path)
        return saved
    directory = os.path.dirname(change.path)
    if not os.path.isdir(directory):
        os.makedirs(directory, 0o755)
    return _atomic_file.write_atomic(change.path, change.after, backup_dir=backup_dir)
