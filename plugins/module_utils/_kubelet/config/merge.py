# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The kubelet's effective configuration: the main file plus its drop-ins.

Mirrors what the kubelet does at start-up (cmd/kubelet/app/server.go):

* ``loadConfigFile`` decodes the main file (``--config``) and, when it sets no
  ``evictionHard``, fills in the built-in defaults (pkg/kubelet/eviction,
  ``DefaultEvictionHard``);
* ``mergeKubeletConfigurations`` walks the drop-in directory (``--config-dir``)
  with ``filepath.WalkDir`` (lexical order, subdirectories included, visited
  where their name sorts), takes every non-directory whose name ends in
  ``.conf``, decodes it (it must carry ``apiVersion``/``kind`` like the main
  file) and applies it to the running result with ``jsonpatch.MergePatch``:
  an RFC 7386 JSON merge patch. Maps merge key by key, lists (such as
  ``reservedMemory``) are replaced whole, ``null`` deletes a key.

The result keeps, for every key, the file that set it last (`origin_of`), so
a validation error can name the file to fix.

Public: `merge_patch`, `effective_config`, `EffectiveConfig`, `dropin_sort_key`, `is_dropin_name`,
`API_VERSION`, `KIND`, `DEFAULT_ORIGIN`, `HAS_YAML`; `load_document` and `KubeletConfigError` live in
`documents` (one file's loading) and are importable from here too.
"""

from __future__ import annotations

import copy
import os

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kubelet.rules.allocatable import DEFAULT_EVICTION_HARD
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kubelet.config.documents import (  # re-exported: merge.py is where callers find them
    API_VERSION, HAS_YAML, KIND, KubeletConfigError, load_document)

__all__ = ("API_VERSION", "KIND", "DEFAULT_ORIGIN", "HAS_YAML", "EffectiveConfig", "KubeletConfigError", "load_document",
           "merge_patch", "effective_config", "dropin_sort_key", "is_dropin_name")

DROPIN_SUFFIX = ".conf"
DEFAULT_ORIGIN = "(kubelet default)"


def merge_patch(base, patch):
    """Apply an RFC 7386 JSON merge patch; returns a new value, inputs untouched.

    Maps merge recursively, any other value (lists included) replaces the
    target whole, and ``None`` (JSON null) removes the key.
    """
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    result = copy.deepcopy(base) if isinstance(base, dict) else {}
    for key, value in patch.items():
        if value is None:
            result.pop(key, None)
        else:
            result[key] = merge_patch(result.get(key), value)
    return result


def dropin_sort_key(path):
    """Order of ``filepath.WalkDir``: compare path components lexically."""
    return tuple(p for p in os.path.normpath(path).split(os.sep) if p)


def is_dropin_name(name):
    """``filepath.Ext(name) == ".conf"``: the name's last dot-suffix is .conf."""
    return name.endswith(DROPIN_SUFFIX)


class EffectiveConfig(dict):
    """The merged configuration (a plain dict) plus where each key came from."""

    def __init__(self, data=None, origins=None, files=None):
        super().__init__(data or {})
        self.origins = dict(origins or {})
        self.files = list(files or [])

    def origin_of(self, key):
        """The file that set ``key`` last; ``key`` is a name or a path tuple.

        Falls back to the nearest enclosing key that has an origin, so
        ``origin_of(("kubeReserved", "memory"))`` is the file of the map when
        that leaf was never set on its own. None when nobody set it.
        """
        if isinstance(key, str):
            key = (key,)
        key = tuple(key)
        while key:
            if key in self.origins:
                return self.origins[key]
            key = key[:-1]
        return None


def _drop_origins(origins, prefix):
    for known in [k for k in origins if k[:len(prefix)] == prefix]:
        del origins[known]


def _record(origins, prefix, value, source):
    _drop_origins(origins, prefix)
    origins[prefix] = source
    if isinstance(value, dict):
        for key, item in value.items():
            _record(origins, prefix + (key,), item, source)


def _record_patch(origins, target, prefix, patch, source):
    """Track origins the way merge_patch changes ``target`` (before the change)."""
    for key, value in patch.items():
        path = prefix + (key,)
        if value is None:
            _drop_origins(origins, path)
            continue
        current = target.get(key) if isinstance(target, dict) else None
        if isinstance(value, dict) and isinstance(current, dict):
            origins[path] = source
            _record_patch(origins, current, path, value, source)
        else:
            _record(origins, path, merge_patch(None, value), source)


def effective_config(main_doc, dropins, main_path="<main config>"):
    """Merge the main document and the drop-ins as the kubelet does.

    ``dropins`` is a list of ``(path, doc)``; entries whose file name does not
    end in ``.conf`` are ignored and the rest are applied in ``WalkDir`` order.
    Returns an EffectiveConfig.
    """
    origins = {}
    data = copy.deepcopy(main_doc) if main_doc else {}
    for key, value in data.items():
        _record(origins, (key,), value, main_path)
    if data.get("evictionHard") is None:
        # cmd/kubelet/app/server.go: loadConfigFile fills DefaultEvictionHard when unset,
        # before the drop-ins merge, so a drop-in's partial evictionHard merges into it.
        data["evictionHard"] = dict(DEFAULT_EVICTION_HARD)
        _record(origins, ("evictionHard",), data["evictionHard"], DEFAULT_ORIGIN)
    files = [main_path]
    ordered = sorted((item for item in dropins if is_dropin_name(os.path.basename(item[0]))),
                     key=lambda item: dropin_sort_key(item[0]))
    for path, doc in ordered:
        if doc is None:
            continue
        if not isinstance(doc, dict):
            raise KubeletConfigError("expected a mapping, found %s" % type(doc).__name__, path)
        _record_patch(origins, data, (), doc, path)
        data = merge_patch(data, doc)
        files.append(path)
    return EffectiveConfig(data, origins, files)
