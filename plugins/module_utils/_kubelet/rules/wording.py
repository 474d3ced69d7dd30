# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""How the kubelet words values in its messages, so ours read like the line it would log.

Public: `quote` (Go's ``%q``), `unmarshal` (encoding/json's type error), `go_map` (``%v`` of a
``map[string]string``), `go_bool` (strconv.ParseBool), `float32` (a float32 round trip),
`format_bytes` and `format_millicpu` (resource.Quantity's String()), `near_miss` (a likely typo of
a known name), and the texts `QUANTITY_FORMAT` and `STRICT_DECODING`.
"""

from __future__ import annotations

import json
import struct

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base.quantity import MAX_VALUE, from_bytes

# k8s.io/apimachinery/pkg/api/resource/quantity.go: ErrFormatWrong
QUANTITY_FORMAT = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
# Where a type or unknown-field error comes from in the kubelet.
STRICT_DECODING = "k8s.io/apimachinery/pkg/runtime/serializer/json (strict decoding)"

_GO_TRUE = ("1", "t", "T", "TRUE", "true", "True")
_GO_FALSE = ("0", "f", "F", "FALSE", "false", "False")


def quote(text):
    """Go's %q for plain strings."""
    return json.dumps(text if isinstance(text, str) else str(text))


def json_type(value):
    """The JSON type name encoding/json puts in a type error."""
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return "null" if value is None else type(value).__name__


def unmarshal(value, field, go_type):
    """encoding/json's UnmarshalTypeError text for ``value`` in ``field`` of Go type ``go_type``."""
    return "json: cannot unmarshal %s into Go struct field %s of type %s" % (json_type(value), field, go_type)


def go_map(mapping):
    """Go's %v of a map[string]string: map[a:b c:d], keys sorted."""
    return "map[%s]" % " ".join("%s:%s" % (k, mapping[k]) for k in sorted(mapping))


def go_bool(value):
    """strconv.ParseBool: True, False, or None when Go would refuse the text."""
    if value in _GO_TRUE:
        return True
    if value in _GO_FALSE:
        return False
    return None


def float32(value):
    """``value`` rounded to a Go float32, as the kubelet's percentage parsing does."""
    return struct.unpack("f", struct.pack("f", value))[0]


def format_bytes(count):
    """Quantity.String() of a byte count: binary suffix when exact, else plain."""
    if -1024 < count < 1024 or count > MAX_VALUE:
        return str(count)  # beyond int64 the kubelet's Value() saturates; show the number itself
    return from_bytes(count) if count >= 0 else str(count)


def format_millicpu(milli):
    """Quantity.String() of a CPU amount in millicores."""
    return str(milli // 1000) if milli % 1000 == 0 else "%dm" % milli


def near_miss(name, known):
    """A known name within two edits of ``name`` (a likely typo), else None."""
    for candidate in known:
        if abs(len(candidate) - len(name)) <= 2 and len(name) > 8 and _distance(name, candidate) <= 2:
            return candidate
    return None


def _distance(first, second):
    previous = list(range(len(second) + 1))
    for i, a in enumerate(first, 1):
        current = [i]
        for j, b in enumerate(second, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a != b)))
        previous = current
    return previous[-1]
