# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Where a node's kubelet configuration files are, and reading them as the kubelet would.

Public: `DEFAULT_PATH`, `DEFAULT_CONFIG_DIR`, `DEFAULT_DROPIN_NAME`, `DEFAULT_KUBELET_ROOT_DIR`,
`DEFAULTS`, `Layout`, `layout_argument_spec`, `locate`, `check_dropin_name`, `load`, `dropin_paths`,
`FilesError`, `CONFIG_READ_LIMIT`.

The ``DEFAULT_*`` constants are the one place in Python where the layout's defaults are written: every
module's argument spec takes them from here (`layout_argument_spec`), the doc fragment
gpusmith.numa_gate.kubelet_layout states them literally (ansible-doc reads literals) and
roles/settings/defaults/main.yml (``numa_gate_kubelet_layout``) holds the roles' one copy; a unit
test (tests/unit/test_shared_defaults.py) keeps the three equal.

Every path is resolved inside ``root`` (``_fileio.resolve_within``: ``..`` and absolute links stay
inside it) and every file is read with ``_fileio.read_regular`` (no FIFO or device ever blocks, a
size bound). `Layout` reads the main file and every drop-in the kubelet would read; the change made
to them is _render/files.py's.
"""

from __future__ import annotations

import os
import stat

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import fileio as _fileio
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base.errors import NumaGateError
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kubelet.config import merge

DEFAULT_PATH = "/var/lib/kubelet/config.yaml"
DEFAULT_CONFIG_DIR = "/etc/kubernetes/kubelet.conf.d"
DEFAULT_DROPIN_NAME = "50-numa-gate.conf"
DEFAULT_KUBELET_ROOT_DIR = "/var/lib/kubelet"
DEFAULT_ROOT = "/"
# The layout options and their defaults, as the modules name them.
DEFAULTS = {"path": DEFAULT_PATH, "config_dir": DEFAULT_CONFIG_DIR, "dropin_name": DEFAULT_DROPIN_NAME,
            "kubelet_root_dir": DEFAULT_KUBELET_ROOT_DIR, "root": DEFAULT_ROOT}
CONFIG_READ_LIMIT = 4 * 1024 * 1024
# A document without YAML aliases has at most about one value or character per byte of its text.
_EXPANSION_SLACK = 4096


class FilesError(NumaGateError, ValueError):
    """A kubelet file or path option the collection refuses; nothing was written."""


def layout_argument_spec():
    """The options of doc fragment gpusmith.numa_gate.kubelet_layout, for a module's argument_spec."""
    return dict(
        path=dict(type="str", default=DEFAULT_PATH),
        config_dir=dict(type="str", default=DEFAULT_CONFIG_DIR),
        dropin_name=dict(type="str", default=DEFAULT_DROPIN_NAME),
        kubelet_root_dir=dict(type="str", default=DEFAULT_KUBELET_ROOT_DIR),
        root=dict(type="path", default=DEFAULT_ROOT),
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


def _link_of(path):
    """The target text of ``path`` when it is a symlink, else None."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return None
    return os.readlink(path) if stat.S_ISLNK(info.st_mode) else None


class Layout:
    """The kubelet configuration files of one node, as they are now, every path inside ``root``.

    The changes the collection makes to them are added by _render/files.py's ``Layout``.

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
