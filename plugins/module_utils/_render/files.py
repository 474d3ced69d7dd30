# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The kubelet's configuration files on a node, and the change this collection makes to them.

Public: `Layout`, `Change`, `apply`, `render`, `FilesError` (the last from _kubelet/config/layout.py,
where the files are located and read).

`Layout` (the reading `_kubelet.config.layout.Layout`) computes the file this collection manages
before and after, and the effective configuration the kubelet would then run with; it refuses,
before anything is written, to replace a symlink it did not create. `apply` is the only writer:
``_node_files`` backups, baseline and atomic writes.
"""

from __future__ import annotations

import os

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kubelet.config import layout as _layout
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kubelet.config import merge
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._node_files import atomic
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._node_files import backups
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._node_files.baseline import file as baseline

DROPIN_HEADER = ("# Managed by the gpusmith.numa_gate collection (kubelet_config module).\n"
                 "# Changes here are overwritten; to roll back run kubelet_config with state: absent.\n")
MAIN_HEADER = ("# Settings merged by the gpusmith.numa_gate collection (kubelet_config, mode: main).\n"
               "# The original file is kept byte for byte in the collection's backup directory.\n")
CONFIG_DIR_MODE = 0o755
FilesError = _layout.FilesError


def render(doc, header, dump):
    """The bytes written for doc: header, then apiVersion and kind, then the other keys sorted (stable)."""
    ordered = {"apiVersion": merge.API_VERSION, "kind": merge.KIND}
    for key in sorted(k for k in doc if k not in ("apiVersion", "kind")):
        ordered[key] = doc[key]
    return (header + dump(ordered)).encode("utf-8")


def _without_type_meta(settings):
    """settings without apiVersion and kind: the collection always writes its own."""
    return {key: value for key, value in settings.items() if key not in ("apiVersion", "kind")}


class Change:
    """The managed file before and after, and the effective configuration after.

    ``link``: the target text when the managed path is a symlink (only ever removed, never written).
    """

    def __init__(self, path, before, after, target, restore_from=None, keep_baseline=False, link=None):
        self.path = path
        self.before = before
        self.after = after
        self.target = target
        self.restore_from = restore_from
        self.keep_baseline = keep_baseline
        self.link = link

    @property
    def changed(self):
        return self.before != self.after or (self.after is None and self.link is not None)


class Layout(_layout.Layout):
    """The node's kubelet files as read (`_kubelet.config.layout.Layout`), and the changes this collection makes to them."""

    def dropin_change(self, settings, dump):
        """Our drop-in set to settings (None: removed)."""
        if settings is None:
            after, target_dropins = None, list(self.dropins)
        else:
            if self.own_link is not None:
                raise FilesError("%s is a symlink (to %s) that this collection did not create; not replaced: remove the link "
                                 "or choose another dropin_name" % (self.own, self.own_link))
            doc = _without_type_meta(settings)
            after = render(doc, DROPIN_HEADER, dump)
            target_dropins = self.dropins + [(self.own, doc)]
        target = merge.effective_config(self.main_doc, target_dropins, self.main_path)
        return Change(self.own, self.own_bytes, after, target, link=self.own_link)

    def _refuse_main_link(self):
        if self.main_link is not None:
            raise FilesError("%s is a symlink (to %s); mode=main does not replace a link it did not create: set path to the file itself"
                             % (self.main_path, self.main_link))

    def main_change(self, settings, dump):
        """settings merged into the main file (JSON merge patch, as the kubelet merges).

        The main file's original bytes are kept once as the baseline before the first write.
        """
        self._refuse_main_link()
        if self.main_doc is None:
            raise merge.KubeletConfigError("does not exist; mode=main needs it", self.main_path)
        patch = _without_type_meta(settings)
        new_doc = merge.merge_patch(self.main_doc, patch)
        after = self.main_bytes if new_doc == self.main_doc else render(new_doc, MAIN_HEADER, dump)
        target = merge.effective_config(new_doc, self.dropins, self.main_path)
        return Change(self.main_path, self.main_bytes, after, target, keep_baseline=True)

    def main_restore(self, backup_dir):
        """The main file back to its baseline: the bytes it had before this collection first wrote it."""
        self._refuse_main_link()
        copy = baseline.baseline_of(self.main_path, backup_dir)
        if not copy:
            raise merge.KubeletConfigError(
                "no baseline kept by this collection in %s: nothing to restore" % os.path.join(backup_dir, baseline.BASELINE_DIR),
                self.main_path)
        after = baseline.baseline_bytes(copy)
        backups.load(copy)  # its record and sha256 checked now, before apply() backs up the current file
        restored = merge.load_document(after, copy)
        target = merge.effective_config(restored, self.dropins, self.main_path)
        return Change(self.main_path, self.main_bytes, after, target, restore_from=copy)


def apply(change, backup_dir):
    """Make the change on disk; returns the backup of what was replaced or removed (or None).

    The backup folder is made (0700) before anything is written, so a folder that cannot be made
    stops the run with the node unchanged.
    """
    if change.before is not None or change.link is not None:
        atomic.make_private_dir(backup_dir)
    if change.after is None:
        return backups.remove(change.path, backup_dir)
    if change.restore_from is not None:
        saved = backups.backup(change.path, backup_dir) if change.before is not None else None
        backups.restore(change.restore_from, change.path)
        return saved
    if change.keep_baseline and change.before is not None:
        baseline.keep_baseline(change.path, backup_dir)
    directory = os.path.dirname(change.path)
    if not os.path.isdir(directory):
        os.makedirs(directory, CONFIG_DIR_MODE)
    return backups.replace(change.path, change.after, backup_dir)
