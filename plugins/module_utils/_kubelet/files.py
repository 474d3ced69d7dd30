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


def layout_argument_spec():
    """The options of doc fragment gpusmith.numa_gate.kubelet_layout, for a module's argument_spec."""
    return dict(
        path=dict(type="str", default="/var/lib/kubelet/config.yaml"),
        config_dir=dict(type="str", default="/etc/kubernetes/kubelet.conf.d"),
        dropin_name=dict(type="str", default="50-numa-gate.conf"),
        kubelet_root_dir=dict(type="str", default="/var/lib/kubelet"),
        root=dict(type="path", default="/"),
    )


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


def _without_type_meta(settings):
    """settings without apiVersion and kind: the collection always writes its own."""
    return {key: value for key, value in settings.items() if key not in ("apiVersion", "kind")}


class Change:
    """The managed file before and after, and the effective configuration after."""

    def __init__(self, path, before, after, target, restore_from=None, keep_baseline=False):
        self.path = path
        self.before = before
        self.after = after
        self.target = target
        self.restore_from = restore_from
        self.keep_baseline = keep_baseline

    @property
    def changed(self):
        return self.before != self.after


class Layout:
    """The kubelet configuration files of one node, as they are now.

    ``own`` is the drop-in this collection manages: only its bytes are read, never
    parsed, so a damaged copy of it can always be replaced or removed. With
    ``tolerant`` (removal), other drop-ins that do not parse are skipped and
    listed in ``skipped`` instead of stopping the run: a rollback is never blocked.
    """

    def __init__(self, main_path, config_dir, own=None, tolerant=False):
        self.main_path = main_path
        self.config_dir = config_dir
        self.own = os.path.join(config_dir, own) if own else None
        self.main_bytes, self.main_doc = self._load(main_path, tolerant)
        self.dropins = []
        self.own_bytes = None
        self.skipped = []
        if os.path.isdir(config_dir):
            for path in dropin_paths(config_dir):
                if path == self.own:
                    self.own_bytes = _read(path)
                    continue
                _data, doc = self._load(path, tolerant)
                if doc is not None:
                    self.dropins.append((path, doc))

    def _load(self, path, tolerant):
        try:
            return load(path)
        except _kubelet_merge.KubeletConfigError as exc:
            if not tolerant:
                raise
            self.skipped.append(str(exc))
            return None, None

    def dropin_change(self, settings, dump):
        """Our drop-in set to settings (None: removed)."""
        if settings is None:
            after, target_dropins = None, list(self.dropins)
        else:
            doc = _without_type_meta(settings)
            after = render(doc, DROPIN_HEADER, dump)
            target_dropins = self.dropins + [(self.own, doc)]
        target = _kubelet_merge.effective_config(self.main_doc, target_dropins, self.main_path)
        return Change(self.own, self.own_bytes, after, target)

    def base(self):
        """The effective configuration without our drop-in: what a plan is merged over."""
        return _kubelet_merge.effective_config(self.main_doc, self.dropins, self.main_path)

    def current(self):
        """The effective configuration now, our drop-in included (parsed here, and only here)."""
        own = [(self.own, _kubelet_merge.load_document(self.own_bytes, self.own))] if self.own_bytes is not None else []
        return _kubelet_merge.effective_config(self.main_doc, self.dropins + own, self.main_path)

    def main_change(self, settings, dump):
        """settings merged into the main file (JSON merge patch, as the kubelet merges).

        The main file's original bytes are kept once as the baseline before the first write.
        """
        if self.main_doc is None:
            raise _kubelet_merge.KubeletConfigError("does not exist; mode=main needs it", self.main_path)
        patch = _without_type_meta(settings)
        new_doc = _kubelet_merge.merge_patch(self.main_doc, patch)
        after = self.main_bytes if new_doc == self.main_doc else render(new_doc, MAIN_HEADER, dump)
        target = _kubelet_merge.effective_config(new_doc, self.dropins, self.main_path)
        return Change(self.main_path, self.main_bytes, after, target, keep_baseline=True)

    def main_restore(self, backup_dir):
        """The main file back to its baseline: the bytes it had before this collection first wrote it."""
        copy = _atomic_file.baseline_of(self.main_path, backup_dir)
        if not copy:
            raise _kubelet_merge.KubeletConfigError(
                "no baseline kept by this collection in %s: nothing to restore" % os.path.join(backup_dir, _atomic_file.BASELINE_DIR),
                self.main_path)
        after = _atomic_file.baseline_bytes(copy)
        restored = _kubelet_merge.load_document(after, copy)
        target = _kubelet_merge.effective_config(restored, self.dropins, self.main_path)
        return Change(self.main_path, self.main_bytes, after, target, restore_from=copy)


def apply(change, backup_dir):
    """Make the change on disk; returns the backup of what was replaced or removed (or None)."""
    if change.after is None:
        return _atomic_file.remove(change.path, backup_dir)
    if change.restore_from is not None:
        saved = _atomic_file.backup(change.path, backup_dir) if change.before is not None else None
        _atomic_file.restore(change.restore_from, change.path)
        return saved
    if change.keep_baseline and change.before is not None:
        _atomic_file.keep_baseline(change.path, backup_dir)
    directory = os.path.dirname(change.path)
    if not os.path.isdir(directory):
        os.makedirs(directory, 0o755)
    return _atomic_file.write_atomic(change.path, change.after, backup_dir=backup_dir)
