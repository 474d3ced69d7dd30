# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The kubelet's checkpoint checksums, recomputed from a decoded JSON checkpoint.

Public: `fnv1a_32`, `data_checksum`, `legacy_checksum`, and the Go type descriptions `Basic`, `Map`,
`Slice`, `Struct`, `Pointer`, `CpuSet`.

The kubelet (pkg/kubelet/checkpointmanager/checksum) hashes a Go struct, not file bytes:
FNV-1a 32 over ``dump.ForHash(obj)`` (k8s.io/utils/dump), which is go-spew's ``%#v`` with
SortKeys, DisableMethods, SpewKeys, DisablePointerAddresses and DisableCapacities. So the JSON
is first decoded the way ``json.Unmarshal`` fills the struct (absent field: the constructor's
value; ``null``: a nil map or slice), then printed as spew prints it:

- a value whose type is shown prints ``(type)`` first; the top-level pointer prints
  ``(*pkg.Type){...}``; map keys, map values and slice elements print without a type, and a
  pointer there prints ``<*>`` before its value;
- JSON keys match struct fields as ``encoding/json`` matches them (exactly, else ignoring case);
- a struct prints ``{Name:value Name:value}`` in field order; a map ``map[k:v k:v]`` with keys
  sorted; a nil map or slice ``<nil>``; strings unquoted; numbers in decimal.

The new-format ``dataChecksum`` (CPU V4, memory V3) is ``checksum.New(string)``: the hash of
``"(string)" + data``.
"""

from __future__ import annotations

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base.errors import NumaGateError
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base.fileio import short_repr

_FNV_OFFSET = 0x811C9DC5
_FNV_PRIME = 0x01000193


def fnv1a_32(data):
    """FNV-1a 32-bit of ``data`` (bytes or str, UTF-8), as Go's ``hash/fnv.New32a``."""
    if isinstance(data, str):
        data = data.encode("utf-8")
    value = _FNV_OFFSET
    for byte in data:
        value ^= byte
        value = (value * _FNV_PRIME) & 0xFFFFFFFF
    return value


def data_checksum(data):
    """The ``dataChecksum`` the kubelet writes for a V4 CPU or V3 memory ``data`` string."""
    return fnv1a_32("(string)" + data)


class Basic:
    """A Go string or integer type, named as ``reflect.Type.String()`` names it."""

    def __init__(self, name, kind):
        self.name = name
        self.kind = kind  # "string" or "int"

    def decode(self, value, where):
        if value is None:
            return "" if self.kind == "string" else 0
        if self.kind == "string":
            if not isinstance(value, str):
                raise NumaGateError("%s is %s, not a string" % (where, short_repr(value)))
            return value
        if isinstance(value, bool) or not isinstance(value, int) or (self.name.startswith("uint") and value < 0):
            raise NumaGateError("%s is %s, not an integer of Go type %s" % (where, short_repr(value), self.name))
        return value

    def zero(self):
        return "" if self.kind == "string" else 0

    def dump(self, value):
        return str(value)


class Map:
    """A Go map; ``initial`` is what the kubelet's constructor puts there (``{}`` or None)."""

    def __init__(self, name, key, value, initial=None):
        self.name = name
        self.key = key
        self.value = value
        self.initial = initial

    def decode(self, value, where):
        if value is None:
            return None
        if not isinstance(value, dict):
            raise NumaGateError("%s is %s, not a JSON object" % (where, short_repr(value)))
        decoded = {}
        for key, item in value.items():
            if self.key.kind == "int":
                try:
                    go_key = int(key)
                except ValueError:
                    raise NumaGateError("%s key %s is not an integer" % (where, short_repr(key)))
            else:
                go_key = key
            decoded[go_key] = self.value.decode(item, "%s[%s]" % (where, key))
        return decoded

    def zero(self):
        return None if self.initial is None else dict(self.initial)

    def dump(self, value):
        if value is None:
            return "<nil>"
        parts = ["%s:%s" % (self.key.dump(key), _untyped(self.value, value[key])) for key in sorted(value)]
        return "map[" + " ".join(parts) + "]"


class Slice:
    """A Go slice."""

    def __init__(self, name, element):
        self.name = name
        self.element = element

    def decode(self, value, where):
        if value is None:
            return None
        if not isinstance(value, list):
            raise NumaGateError("%s is %s, not a JSON array" % (where, short_repr(value)))
        return [self.element.decode(item, "%s[%d]" % (where, index)) for index, item in enumerate(value)]

    def zero(self):
        return None

    def dump(self, value):
        if value is None:
            return "<nil>"
        return "[" + " ".join(_untyped(self.element, item) for item in value) + "]"


class Struct:
    """A Go struct: ``fields`` are (GoName, jsonKey, type) in declaration order."""

    def __init__(self, name, fields):
        self.name = name
        self.fields = fields

    def decode(self, value, where):
        if value is None:
            return self.zero()
        if not isinstance(value, dict):
            raise NumaGateError("%s is %s, not a JSON object" % (where, short_repr(value)))
        decoded = self.zero()
        # encoding/json: a key matches its field exactly, else case-insensitively; the last one wins.
        for key, item in value.items():
            field = self._field(key)
            if field is not None:
                go_name, json_key, field_type = field
                decoded[go_name] = field_type.decode(item, "%s.%s" % (where, json_key))
        return decoded

    def _field(self, key):
        for field in self.fields:
            if field[1] == key:
                return field
        for field in self.fields:
            if field[1].lower() == key.lower():
                return field
        return None

    def zero(self):
        return {go_name: field_type.zero() for go_name, _key, field_type in self.fields}

    def dump(self, value):
        parts = ["%s:%s" % (go_name, _typed(field_type, value[go_name])) for go_name, _key, field_type in self.fields]
        return "{" + " ".join(parts) + "}"


class Pointer:
    """A Go pointer to a struct (nil when the JSON value is null)."""

    def __init__(self, target):
        self.target = target
        self.name = "*" + target.name

    def decode(self, value, where):
        if value is None:
            return None
        return self.target.decode(value, where)

    def zero(self):
        return None

    def dump(self, value):  # only reached untyped: map values, slice elements
        return "<nil>" if value is None else "<*>" + self.target.dump(value)


class CpuSet:
    """k8s.io/utils/cpuset.CPUSet, stored in JSON as a cpulist string and hashed as its private map.

    ``cpuset.Parse`` of the string (``""`` gives an empty, non-nil map) fills
    ``elems map[int]struct{}``, which spew prints as ``{elems:(map[int]struct {})map[7:{} 8:{}]}``.
    """

    name = "cpuset.CPUSet"

    def __init__(self, parse):
        self._parse = parse

    def decode(self, value, where):
        if value is None:
            value = ""
        if not isinstance(value, str):
            raise NumaGateError("%s is %s, not a cpulist string" % (where, short_repr(value)))
        try:
            return sorted(set(self._parse(value)))
        except ValueError as exc:
            raise NumaGateError("%s: %s" % (where, exc))

    def zero(self):
        return []

    def dump(self, value):
        return "{elems:(map[int]struct {})map[" + " ".join("%d:{}" % cpu for cpu in value) + "]}"


def _typed(go_type, value):
    if isinstance(go_type, Pointer):
        if value is None:
            return "(%s)<nil>" % go_type.name
        return "(%s)%s" % (go_type.name, go_type.target.dump(value))
    return "(%s)%s" % (go_type.name, go_type.dump(value))


def _untyped(go_type, value):
    return go_type.dump(value)


def legacy_checksum(document, struct, type_name):
    """The legacy ``checksum`` of a decoded checkpoint, with its Checksum field zeroed.

    ``struct`` describes the Go struct (its last field is ``Checksum``); ``type_name`` is the
    name the kubelet hashes under (``state.CPUManagerCheckpoint`` for every renamed V1/V2/V3).
    """
    decoded = struct.decode(document, "checkpoint")
    decoded["Checksum"] = 0
    return fnv1a_32("(*%s)%s" % (type_name, struct.dump(decoded)))
