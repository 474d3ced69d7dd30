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
"""

from __future__ import annotations

import copy
import json
import os

try:
    import yaml
    HAS_YAML = True
except ImportError:  # pragma: no cover - PyYAML is a requirement of ansible-core
    yaml = None
    HAS_YAML = False

API_VERSION = "kubelet.config.k8s.io/v1beta1"
KIND = "KubeletConfiguration"
DROPIN_SUFFIX = ".conf"
DEFAULT_ORIGIN = "(kubelet default)"

# pkg/kubelet/eviction/defaults_linux.go: DefaultEvictionHard (Linux).
DEFAULT_EVICTION_HARD = {
    "memory.available": "100Mi",
    "nodefs.available": "10%",
    "nodefs.inodesFree": "5%",
    "imagefs.available": "15%",
    "imagefs.inodesFree": "5%",
}


class KubeletConfigError(ValueError):
    """A kubelet configuration file that the kubelet would refuse to load."""

    def __init__(self, message, path=None, line=None):
        self.path = path
        self.line = line
        where = path or "<config>"
        if line is not None:
            where = "%s:%d" % (where, line)
        super().__init__("%s: %s" % (where, message))
        self.reason = message


if HAS_YAML:
    class _StrictLoader(yaml.SafeLoader):  # pylint: disable=too-many-ancestors
        """SafeLoader that refuses duplicate keys, as the kubelet's strict decoder does."""

    def _construct_mapping(loader, node, deep=False):
        loader.flatten_mapping(node)
        mapping = {}
        for key_node, value_node in node.value:
            key = loader.construct_object(key_node, deep=deep)
            try:
                hash(key)
            except TypeError:
                raise yaml.constructor.ConstructorError(
                    "while constructing a mapping", node.start_mark, "found an unhashable key", key_node.start_mark)
            if key in mapping:
                raise yaml.constructor.ConstructorError(
                    "while constructing a mapping", node.start_mark,
                    "found duplicate key %r (the kubelet's strict decoding rejects duplicate fields)" % (key,),
                    key_node.start_mark)
            mapping[key] = loader.construct_object(value_node, deep=deep)
        return mapping

    _StrictLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)
    # Keep dates as text (sigs.k8s.io/yaml hands them to JSON as strings); a datetime is not JSON.
    _StrictLoader.yaml_implicit_resolvers = {
        first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:timestamp"]
        for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
    }


def _mark_line(exc):
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    if mark is None:
        return None
    return mark.line + 1


def load_document(text, path):
    """Parse one kubelet configuration file (YAML or JSON) into a dict.

    The kubelet decodes the main file and every drop-in with the same codec
    (pkg/kubelet/kubeletconfig/configfiles/configfiles.go), so both must be a
    mapping with ``apiVersion: kubelet.config.k8s.io/v1beta1`` and
    ``kind: KubeletConfiguration``; an empty file is refused
    ("kubelet config file %q was empty"). Raises KubeletConfigError naming the
    file and, for a syntax error, the parser's line.
    """
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise KubeletConfigError("not UTF-8 text (%s)" % exc, path)
    if not HAS_YAML:
        raise KubeletConfigError("PyYAML is required to read kubelet configuration files", path)
    if not text.strip():
        # pkg/kubelet/kubeletconfig/configfiles/configfiles.go: Load
        raise KubeletConfigError("kubelet config file %s was empty" % json.dumps(path), path)
    try:
        doc = yaml.load(text, Loader=_StrictLoader)  # nosec B506 - a SafeLoader subclass
    except yaml.YAMLError as exc:
        line = _mark_line(exc)
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise KubeletConfigError("cannot parse as YAML or JSON: %s" % problem, path, line)
    if not isinstance(doc, dict):
        raise KubeletConfigError("expected a mapping (a KubeletConfiguration object), found %s" % type(doc).__name__, path)
    api_version = doc.get("apiVersion")
    kind = doc.get("kind")
    if kind is None or api_version is None:
        missing = "Kind" if kind is None else "Version"
        # k8s.io/apimachinery runtime/serializer: a document without apiVersion/kind
        raise KubeletConfigError("Object '%s' is missing: the kubelet needs apiVersion: %s and kind: %s in every config file"
                                 % (missing, API_VERSION, KIND), path)
    if kind != KIND or api_version != API_VERSION:
        raise KubeletConfigError("apiVersion %r, kind %r is not a kubelet configuration; expected apiVersion: %s, kind: %s"
                                 % (api_version, kind, API_VERSION, KIND), path)
    for key in doc:
        if not isinstance(key, str):
            raise KubeletConfigError("key %r is not a string" % (key,), path)
    return doc


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
