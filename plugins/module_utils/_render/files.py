# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The kubelet's configuration files on a node, and the change this collection makes to them.

Public: `Layout`, `Change`, `apply`, `layout_argument_spec`, `locate`, `check_dropin_name`,
`dropin_paths`, `render`, `FilesError`.

Every path is resolved inside ``root`` (``_fileio.resolve_within``: ``..`` and absolute links stay
inside it) and every file is read with ``_fileio.read_regular`` (no FIFO or device ever blocks, a
size bound). `Layout` reads the main file and every drop-in the kubelet would read and computes
the file this collection manages before and after, and the effective configuration the kubelet
would then run with; it refuses, before anything is written, to replace a symlink it did not
create. `apply` is the only writer: ``_node_state`` backups, baseline and atomic writes.
"""

from __future__ import annotations

import os
import stat

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import fileio as _fileio
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base.errors import NumaGateError
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kubelet.config import merge
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._node_files import atomic
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._node_files import backups
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._node_files.baseline import file as baseline

DROPIN_HEADER = ("# Managed by the gpusmith.numa_gate collection (kubelet_config module).\n"
                 "# Changes here are overwritten; to roll back run kubelet_config with state: absent.\n")
MAIN_HEADER = ("# Settings merged by the gpusmith.numa_gate collection (kubelet_config, mode: main).\n"
               "# The original file is kept byte for byte in the collection's backup directory.\n")
CONFIG_READ_LIMIT = 4 * 1024 * 1024
CONFIG_DIR_MODE = 0o755
# A document without YAML aliases has at most about one value or character per byte of its text.
_EXPANSION_SLACK = 4096


class FilesError(NumaGateError, ValueError):
    """A kubelet file or path option the collection refuses; nothing was written."""


def layout_argument_spec():
    """The options of doc fragment gpusmith.numa_gate.kubelet_layout, for a module's argument_spec."""
    return dict(
        path=dict(type="str", default="/var/lib/kubelet/config.yaml"),
        config_dir=dict(type="str", default="/etc/kubernetes/kubelet.conf.d"),
        dropin_name=dict(type="str", default="50-numa-gate.conf"),
        kubelet_root_dir=dict(type="str", default="/var/lib/kubelet"),
        root=dict(type="path", default="/"),
    )


def locate(params, names):
    """``root`` and the resolved path of each option in ``names``, all inside root; empty values refused."""
    for name in ("root",) + tuple(names):
        value = params.get(name)
        if not isinstance(value, str) or not value.strip():
            if name == "root":
                raise FilesError('root must not be empty (an empty value is not a default): give "/" for the node itself, or a folder')
            raise FilesError("%s must not be empty (an empty value is not a default): give a path, or leave the option out" % name)
    root = os.path.realpath(params["root"])
    if not os.path.isdir(root):
        raise FilesError("root %s is not a folder" % params["root"])
    return root, {name: _fileio.resolve_within(root, params[name]) for name in names}


def check_dropin_name(name):
    """Refuse a drop-in name the kubelet would not read, or one that is not a plain file name."""
    if not name or "/" in name or name in (".", "..") or not merge.is_dropin_name(name):
        raise FilesError("dropin_name %r must be a file name ending in .conf (the kubelet reads only *.conf drop-ins)" % name)


def _inside(root, host_path):
    """``host_path`` (already under root) with its symlinks resolved, still inside root."""
    return _fileio.resolve_within(root, os.path.relpath(host_path, root))


def _expanded_size(value, limit):
    """Values and characters in ``value``, counting no further than ``limit``."""
    count = 0
    pending = [value]
    while pending and count <= limit:
        item = pending.pop()
        count += 1
        if isinstance(item, dict):
            pending.extend(item.keys())
            pending.extend(item.values())
        elif isinstance(item, list):
            pending.extend(item)
        elif isinstance(item, str):
            count += len(item)
    return count


def load(root, path):
    """(bytes, document) of a kubelet config file inside root; (None, None) when it does not exist.

    A FIFO, device or folder raises ``_fileio.FileIOError`` naming it (never opened for a blocking read).
    """
    try:
        data = _fileio.read_regular(_inside(root, path), CONFIG_READ_LIMIT)
    except FileNotFoundError:
        return None, None
    except OSError as exc:
        raise merge.KubeletConfigError("cannot read: %s" % (exc.strerror or exc), path)
    doc = merge.load_document(data, path)
    limit = 2 * len(data) + _EXPANSION_SLACK
    if _expanded_size(doc, limit) > limit:
        raise merge.KubeletConfigError("expands to more than %d values from %d bytes (YAML aliases); refused" % (limit, len(data)), path)
    return data, doc


def dropin_paths(config_dir):
    """*.conf files under config_dir in the kubelet's filepath.WalkDir order (links to directories not followed)."""
    found = []
    for directory, dirnames, filenames in os.walk(config_dir):
        dirnames.sort()
        for name in filenames + [d for d in dirnames if os.path.islink(os.path.join(directory, d))]:
            if merge.is_dropin_name(name):
                found.append(os.path.join(directory, name))
    return sorted(found, key=merge.dropin_sort_key)


def render(doc, header, dump):
    """The bytes written for doc: header, then apiVersion and kind, then the other keys sorted (stable)."""
    ordered = {"apiVersion": merge.API_VERSION, "kind": merge.KIND}
    for key in sorted(k for k in doc if k not in ("apiVersion", "kind")):
        ordered[key] = doc[key]
    return (header + dump(ordered)).encode("utf-8")


def _without_type_meta(settings):
    """settings without apiVersion and kind: the collection always writes its own."""
    return {key: value for key, value in settings.items() if key not in ("apiVersion", "kind")}


def _link_of(path):
    """The target text of ``path`` when it is a symlink, else None."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return None
    return os.readlink(path) if stat.S_ISLNK(info.st_mode) else None


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


class Layout:
    """The kubelet configuration files of one node, as they are now, every path inside ``root``.

    ``main`` and ``config_dir`` are the paths as the kubelet names them (read inside root). ``own``
    is the drop-in this collection manages: only its bytes are read, never parsed, so a damaged
    copy of it can always be replaced or removed; if it is a symlink, ``own_link`` holds its target
    and it is never read or written through. With ``tolerant`` (removal), other drop-ins that
    cannot be read or parsed are skipped and listed in ``skipped``: a rollback is never blocked.
    """

    def __init__(self, root, main, config_dir, own=None, tolerant=False):
        self.root = os.path.realpath(root)
        self.main_path = _fileio.resolve_within(self.root, main, follow_last=False)
        self.config_dir = _fileio.resolve_within(self.root, config_dir)
        self.own = os.path.join(self.config_dir, own) if own else None
        self.main_link = _link_of(self.main_path)
        self.skipped = []
        self.main_bytes, self.main_doc = self._load(self.main_path, tolerant)
        self.dropins = []
        self.own_bytes = None
        self.own_link = _link_of(self.own) if self.own else None
        if self.own and self.own_link is None:
            try:
                self.own_bytes = _fileio.read_regular(self.own, CONFIG_READ_LIMIT)
            except FileNotFoundError:
                pass
        if os.path.isdir(self.config_dir):
            for path in dropin_paths(self.config_dir):
                if path == self.own:
                    continue
                _data, doc = self._load(path, tolerant)
                if doc is not None:
                    self.dropins.append((path, doc))

    def _load(self, path, tolerant):
        try:
            return load(self.root, path)
        except (merge.KubeletConfigError, _fileio.FileIOError) as exc:
            if not tolerant:
                raise
            self.skipped.append(str(exc))
            return None, None

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

    def base(self):
        """The effective configuration without our drop-in: what a plan is merged over."""
        return merge.effective_config(self.main_doc, self.dropins, self.main_path)

    def current(self):
        """The effective configuration now, our drop-in included (parsed here, and only here)."""
        own = []
        if self.own_link is not None:
            _data, doc = load(self.root, self.own)
            own = [(self.own, doc)] if doc is not None else []
        elif self.own_bytes is not None:
            own = [(self.own, merge.load_document(self.own_bytes, self.own))]
        return merge.effective_config(self.main_doc, self.dropins + own, self.main_path)

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
