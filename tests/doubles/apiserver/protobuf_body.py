# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Request bodies sent as ``application/vnd.kubernetes.protobuf``, read as kube-apiserver reads them.

kubectl (client-go) sends some bodies as protobuf, for one the ``DeleteOptions`` of a pod DELETE
(``kubectl drain --disable-eviction``, ``kubectl delete pod``). The real server decodes them with
k8s.io/apimachinery/pkg/runtime/serializer/protobuf (protobuf.go): the 4-byte magic ``k8s\\x00``,
then a ``runtime.Unknown`` envelope (the wire format in the Kubernetes docs, "API concepts",
Protobuf encoding, and k8s.io/apimachinery/pkg/runtime/generated.proto)::

    message Unknown  { optional TypeMeta typeMeta = 1; optional bytes raw = 2;
                       optional string contentEncoding = 3; optional string contentType = 4; }
    message TypeMeta { optional string apiVersion = 1; optional string kind = 2; }

``raw`` is the object itself, encoded by the kind's generated.proto. This double decodes the kinds
kubectl sends it (field numbers from k8s.io/apimachinery/pkg/apis/meta/v1/generated.proto and
k8s.io/api/policy/v1/generated.proto):

- ``DeleteOptions``: gracePeriodSeconds = 1 (int64), preconditions = 2 (``Preconditions``: uid = 1,
  resourceVersion = 2), orphanDependents = 3 (bool), propagationPolicy = 4, dryRun = 5 (repeated);
- ``Eviction`` (policy/v1 and v1beta1): metadata = 1 (``ObjectMeta``: name = 1, generateName = 2,
  namespace = 3, uid = 5), deleteOptions = 2.

Fields it does not know are skipped, as protobuf decoders skip unknown fields. The result is the
JSON form of the object (what the JSON decoder would have produced), so the handler serves both
the same way. A body of another kind, or not a valid envelope, raises `Unsupported`; `json_body`
turns it into a 415 UnsupportedMediaType with the real server's wording (apiserver/pkg/endpoints/
handlers/negotiation/errors.go ``errUnsupportedMediaType``) and the reason after it: the real
server knows every built-in kind, the double only these.
"""

import json

from apiserver import status as api_status

MAGIC = b"k8s\x00"
CONTENT_TYPE = "application/vnd.kubernetes.protobuf"

VARINT, FIXED64, LENGTH, FIXED32 = 0, 1, 2, 5


class Unsupported(ValueError):
    """A protobuf body the double cannot read; the message says why."""


def _varint(data, pos):
    value, shift = 0, 0
    while True:
        if pos >= len(data):
            raise Unsupported("truncated varint")
        byte = data[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return value, pos
        shift += 7
        if shift > 63:
            raise Unsupported("varint longer than 10 bytes")


def fields(data):
    """Yield (field number, wire type, value) for each field of one message: an int for varints,
    bytes for length-delimited fields, the raw 4 or 8 bytes for fixed ones."""
    pos = 0
    while pos < len(data):
        key, pos = _varint(data, pos)
        number, wire = key >> 3, key & 7
        if wire == VARINT:
            value, pos = _varint(data, pos)
        elif wire == LENGTH:
            size, pos = _varint(data, pos)
            if pos + size > len(data):
                raise Unsupported("field %d: %d bytes announced, %d left" % (number, size, len(data) - pos))
            value, pos = data[pos:pos + size], pos + size
        elif wire in (FIXED64, FIXED32):
            size = 8 if wire == FIXED64 else 4
            value, pos = data[pos:pos + size], pos + size
        else:
            raise Unsupported("field %d: wire type %d is not one proto2 messages use here" % (number, wire))
        yield number, wire, value


def _int64(value):
    """A varint read as Go's int64 (two's complement over 64 bits)."""
    return value - (1 << 64) if value >= 1 << 63 else value


def _text(value):
    return value.decode("utf-8")


def _preconditions(data):
    names = {1: "uid", 2: "resourceVersion"}
    return {names[n]: _text(v) for n, w, v in fields(data) if n in names and w == LENGTH}


def delete_options(data):
    """metav1.DeleteOptions from its protobuf bytes, as its JSON form."""
    result = {}
    for number, wire, value in fields(data):
        if number == 1 and wire == VARINT:
            result["gracePeriodSeconds"] = _int64(value)
        elif number == 2 and wire == LENGTH:
            result["preconditions"] = _preconditions(value)
        elif number == 3 and wire == VARINT:
            result["orphanDependents"] = bool(value)
        elif number == 4 and wire == LENGTH:
            result["propagationPolicy"] = _text(value)
        elif number == 5 and wire == LENGTH:
            result.setdefault("dryRun", []).append(_text(value))
    return result


def _object_meta(data):
    names = {1: "name", 2: "generateName", 3: "namespace", 5: "uid"}
    return {names[n]: _text(v) for n, w, v in fields(data) if n in names and w == LENGTH}


def eviction(data):
    """policy Eviction from its protobuf bytes, as its JSON form (without TypeMeta)."""
    result = {}
    for number, wire, value in fields(data):
        if number == 1 and wire == LENGTH:
            result["metadata"] = _object_meta(value)
        elif number == 2 and wire == LENGTH:
            result["deleteOptions"] = delete_options(value)
    return result


KINDS = {"DeleteOptions": delete_options, "Eviction": eviction}


def envelope(body):
    """(apiVersion, kind, raw) of a ``k8s\\x00`` + runtime.Unknown body."""
    if not body.startswith(MAGIC):
        raise Unsupported("the body does not start with the protobuf magic k8s\\x00")
    api_version = kind = ""
    raw = b""
    content_type = content_encoding = ""
    for number, wire, value in fields(body[len(MAGIC):]):
        if number == 1 and wire == LENGTH:
            for inner, inner_wire, text in fields(value):
                if inner == 1 and inner_wire == LENGTH:
                    api_version = _text(text)
                elif inner == 2 and inner_wire == LENGTH:
                    kind = _text(text)
        elif number == 2 and wire == LENGTH:
            raw = value
        elif number == 3 and wire == LENGTH:
            content_encoding = _text(value)
        elif number == 4 and wire == LENGTH:
            content_type = _text(value)
    if content_encoding or content_type not in ("", CONTENT_TYPE):
        raise Unsupported("raw content %r encoded %r: the double reads only plain protobuf" % (content_type, content_encoding))
    return api_version, kind, raw


def to_json_object(body):
    """The JSON form (a dict with apiVersion and kind) of a protobuf request body."""
    api_version, kind, raw = envelope(body)
    decode = KINDS.get(kind)
    if decode is None:
        raise Unsupported("the double decodes protobuf bodies of kind %s only, not %r (%s)" % (", ".join(sorted(KINDS)), kind, api_version))
    result = {"apiVersion": api_version, "kind": kind}
    result.update(decode(raw))
    return result


ACCEPTED = "application/json, application/yaml, application/vnd.kubernetes.protobuf"


def json_body(body):
    """The JSON bytes of a protobuf request body, or a 415 ApiError naming why it cannot be read."""
    try:
        return json.dumps(to_json_object(body)).encode("utf-8")
    except (Unsupported, UnicodeDecodeError) as exc:
        message = "the body of the request was in an unknown format - accepted media types include: %s (the double: %s)" % (ACCEPTED, exc)
        raise api_status.ApiError({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure", "message": message,
                                   "reason": "UnsupportedMediaType", "code": 415}) from exc
