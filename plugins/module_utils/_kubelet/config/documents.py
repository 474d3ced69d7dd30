# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Load one kubelet configuration file (YAML or JSON) the way the kubelet's decoder would.

Public: `load_document(text, path)`, `KubeletConfigError`, `API_VERSION`, `KIND`, `HAS_YAML`, `missing_yaml(python)`,
and the bounds `MAX_DOCUMENT_BYTES`, `MAX_EXPANDED_NODES`, `MAX_DEPTH`.

Strict like the kubelet's codec (duplicate keys refused), and bounded where PyYAML is not: a file
over `MAX_DOCUMENT_BYTES` is not parsed; nesting deeper than `MAX_DEPTH` and aliases that would
expand the document beyond `MAX_EXPANDED_NODES` nodes are refused before anything is built, in
go-yaml's words (the kubelet's YAML library: "yaml: document contains excessive aliasing",
"yaml: exceeded max depth of %d"). PyYAML shares aliased objects, so a 411-byte "billion laughs"
loads in microseconds, and then every copy, merge or ``json.dumps`` of it expands 9**9 nodes.
"""

from __future__ import annotations

import json
import sys

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base.errors import NumaGateError

try:
    import yaml
    HAS_YAML = True
except ImportError:  # pragma: no cover - PyYAML is a requirement of ansible-core
    yaml = None
    HAS_YAML = False

API_VERSION = "kubelet.config.k8s.io/v1beta1"
KIND = "KubeletConfiguration"
# A kubelet configuration with every field set is a few KiB and under 1000 YAML nodes.
MAX_DOCUMENT_BYTES = 1024 * 1024
MAX_EXPANDED_NODES = 10000
MAX_DEPTH = 64


def missing_yaml(python):
    """What to install when the node's Python has no PyYAML: the package by name, not Ansible's generic import message."""
    return ("PyYAML is not installed for the Python that runs this module on the node (%s), and reading the kubelet's "
            "configuration needs it: install the OS package python3-yaml (Debian, Ubuntu; python3-pyyaml on RHEL, Fedora, "
            "SUSE) or PyYAML with that Python's pip; the gpusmith.numa_gate.kubelet_render role's tasks_from: packages installs it"
            % python)


class KubeletConfigError(NumaGateError, ValueError):
    """A kubelet configuration file that the kubelet would refuse to load (or that we will not)."""

    def __init__(self, message, path=None, line=None):
        self.path = path
        self.line = line
        where = path or "<config>"
        if line is not None:
            where = "%s:%d" % (where, line)
        super().__init__("%s: %s" % (where, message))  # the message names the file; ``path`` stays an attribute
        self.reason = message


class _Refused(Exception):
    """A bound the document breaks; the message is go-yaml's."""


if HAS_YAML:
    class _StrictLoader(yaml.SafeLoader):  # pylint: disable=too-many-ancestors
        """SafeLoader that refuses duplicate keys (as the kubelet's strict decoder does) and deep nesting."""

        def __init__(self, stream):
            super().__init__(stream)
            self._depth = 0

        def compose_node(self, parent, index):
            self._depth += 1
            try:
                if self._depth > MAX_DEPTH:
                    raise _Refused("yaml: exceeded max depth of %d" % MAX_DEPTH)
                return super().compose_node(parent, index)
            finally:
                self._depth -= 1

    def _construct_mapping(loader, node, deep=False):
        loader.flatten_mapping(node)
        mapping = {}
        for key_node, value_node in node.value:
            key = loader.construct_object(key_node, deep=deep)
            try:
                hash(key)
            except TypeError as exc:
                raise yaml.constructor.ConstructorError(
                    "while constructing a mapping", node.start_mark, "found an unhashable key", key_node.start_mark) from exc
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


def _children(node):
    if isinstance(node, yaml.SequenceNode):
        return node.value
    if isinstance(node, yaml.MappingNode):
        return [item for pair in node.value for item in pair]
    return []


def _distinct(root):
    seen = {id(root)}
    pending = [root]
    while pending:
        for child in _children(pending.pop()):
            if id(child) not in seen:
                seen.add(id(child))
                pending.append(child)
    return len(seen)


def _check_aliases(root):
    """Refuse a node graph whose aliases expand it beyond MAX_EXPANDED_NODES, or that contains itself."""
    distinct = _distinct(root)
    cap = max(MAX_EXPANDED_NODES, distinct) + 1
    sizes = {}
    active = set()
    stack = [(root, False)]
    while stack:
        node, finished = stack.pop()
        key = id(node)
        if finished:
            active.discard(key)
            sizes[key] = min(cap, 1 + sum(sizes[id(child)] for child in _children(node)))
            continue
        if key in sizes:
            continue
        active.add(key)
        stack.append((node, True))
        for child in _children(node):
            if id(child) in active:
                raise _Refused("yaml: an anchor's value contains itself (a recursive alias)")
            if id(child) not in sizes:
                stack.append((child, False))
    expanded = sizes[id(root)]
    if expanded > MAX_EXPANDED_NODES and expanded > distinct:
        raise _Refused("yaml: document contains excessive aliasing (its %d YAML nodes would expand through aliases to more than %d)"
                       % (distinct, MAX_EXPANDED_NODES))


def _parse(text):
    loader = _StrictLoader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        _check_aliases(node)
        return loader.construct_document(node)
    finally:
        loader.dispose()


def parse_yaml(text, max_bytes=MAX_DOCUMENT_BYTES):
    """One YAML document of any shape (a device plugin's config) within the same bounds: size, depth, alias expansion.

    Raises ValueError in go-yaml's words ("yaml: document contains excessive aliasing ...; not loaded").
    """
    size = len(text.encode("utf-8", "surrogatepass")) if isinstance(text, str) else len(text)
    if size > max_bytes:
        raise ValueError("%d bytes is over the %d-byte bound for a YAML document; not parsed" % (size, max_bytes))
    try:
        return _parse(text)
    except _Refused as exc:
        raise ValueError("%s; not loaded" % exc) from None
    except yaml.YAMLError as exc:
        raise ValueError(getattr(exc, "problem", None) or str(exc).splitlines()[0]) from None


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
    size = len(text) if isinstance(text, bytes) else len(text.encode("utf-8", "surrogatepass"))
    if size > MAX_DOCUMENT_BYTES:
        raise KubeletConfigError("%d bytes is over the %d-byte bound for a kubelet configuration file; not parsed" % (size, MAX_DOCUMENT_BYTES), path)
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise KubeletConfigError("not UTF-8 text (%s)" % exc, path) from exc
    if not HAS_YAML:
        raise KubeletConfigError(missing_yaml(sys.executable), path)
    if not text.strip():
        # pkg/kubelet/kubeletconfig/configfiles/configfiles.go: Load
        raise KubeletConfigError("kubelet config file %s was empty" % json.dumps(path), path)
    try:
        doc = _parse(text)
    except _Refused as exc:
        raise KubeletConfigError("%s; not loaded" % exc, path) from None
    except yaml.YAMLError as exc:
        line = _mark_line(exc)
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise KubeletConfigError("cannot parse as YAML or JSON: %s" % problem, path, line) from exc
    return _checked(doc, path)


def _checked(doc, path):
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
