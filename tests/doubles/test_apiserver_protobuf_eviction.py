# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The API server double over plain HTTP: protobuf request bodies (protobuf_body.py), dry-run and
failing evictions (eviction.py). The real kubectl's side of the same is in test_drain_side_by_side.py."""

import json
import urllib.error
import urllib.request

import pytest

from apiserver import protobuf_body

# What kubectl 1.37.1 sent for `kubectl drain node-1 --disable-eviction --grace-period=3` (captured from the double's socket).
KUBECTL_DELETE_OPTIONS = b'k8s\x00\n\x13\n\x02v1\x12\rDeleteOptions\x12\x02\x08\x03\x1a\x00"\x00'


def _varint(value):
    value &= (1 << 64) - 1
    out = b""
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out += bytes([byte | 0x80])
        else:
            return out + bytes([byte])


def _field(number, payload):
    """A length-delimited field (wire type 2)."""
    if isinstance(payload, str):
        payload = payload.encode()
    return _varint(number << 3 | 2) + _varint(len(payload)) + payload


def _wrapped(api_version, kind, raw):
    return protobuf_body.MAGIC + _field(1, _field(1, api_version) + _field(2, kind)) + _field(2, raw)


def _call(api, method, path, data, content_type):
    request = urllib.request.Request(api.url + path, data=data, method=method, headers={"Content-Type": content_type})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def test_apiserver_protobuf_kubectls_delete_options_decode_to_their_json_form():
    assert protobuf_body.to_json_object(KUBECTL_DELETE_OPTIONS) == {"apiVersion": "v1", "kind": "DeleteOptions", "gracePeriodSeconds": 3}


def test_apiserver_protobuf_every_delete_options_field_and_a_negative_grace_period():
    raw = (_varint(1 << 3) + _varint(-1) + _field(2, _field(1, "uid-1") + _field(2, "42")) + _varint(3 << 3) + _varint(1)
           + _field(4, "Foreground") + _field(5, "All") + _field(9, "a field the double does not know"))
    assert protobuf_body.to_json_object(_wrapped("v1", "DeleteOptions", raw)) == {
        "apiVersion": "v1", "kind": "DeleteOptions", "gracePeriodSeconds": -1, "preconditions": {"uid": "uid-1", "resourceVersion": "42"},
        "orphanDependents": True, "propagationPolicy": "Foreground", "dryRun": ["All"]}


def test_apiserver_protobuf_an_eviction_decodes_with_its_metadata_and_delete_options():
    raw = _field(1, _field(1, "web-1") + _field(3, "default")) + _field(2, _varint(1 << 3) + _varint(0) + _field(5, "All"))
    assert protobuf_body.to_json_object(_wrapped("policy/v1", "Eviction", raw)) == {
        "apiVersion": "policy/v1", "kind": "Eviction", "metadata": {"name": "web-1", "namespace": "default"},
        "deleteOptions": {"gracePeriodSeconds": 0, "dryRun": ["All"]}}


@pytest.mark.parametrize("body, why", [
    (b'{"kind": "DeleteOptions"}', "the body does not start with the protobuf magic k8s\\x00"),
    (_wrapped("v1", "Pod", b""), "the double decodes protobuf bodies of kind DeleteOptions, Eviction only, not 'Pod' (v1)"),
    (protobuf_body.MAGIC + b"\n\x13\n\x02v1", "field 1: 19 bytes announced, 4 left"),
])
def test_apiserver_protobuf_bodies_it_cannot_read_are_named(body, why):
    with pytest.raises(protobuf_body.Unsupported) as caught:
        protobuf_body.to_json_object(body)
    assert str(caught.value) == why


def test_apiserver_protobuf_delete_over_http_honours_the_grace_period_and_an_unknown_kind_is_415(api):
    api.add_node("node-1")
    api.add_pod("web-1", "node-1", grace=3600)
    code, answer = _call(api, "DELETE", "/api/v1/namespaces/default/pods/web-1", KUBECTL_DELETE_OPTIONS, protobuf_body.CONTENT_TYPE)
    assert code == 200
    assert answer["metadata"]["deletionGracePeriodSeconds"] == 3
    code, answer = _call(api, "POST", "/api/v1/namespaces/default/pods", _wrapped("v1", "Pod", b""), protobuf_body.CONTENT_TYPE)
    assert code == 415
    assert answer == {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure", "reason": "UnsupportedMediaType", "code": 415,
                      "message": "the body of the request was in an unknown format - accepted media types include: application/json, "
                                 "application/yaml, application/vnd.kubernetes.protobuf (the double: the double decodes protobuf bodies "
                                 "of kind DeleteOptions, Eviction only, not 'Pod' (v1))"}


def _evict(api, name, options=None, query=""):
    body = {"apiVersion": "policy/v1", "kind": "Eviction", "metadata": {"name": name, "namespace": "default"}}
    if options is not None:
        body["deleteOptions"] = options
    return _call(api, "POST", "/api/v1/namespaces/default/pods/%s/eviction%s" % (name, query), json.dumps(body).encode(), "application/json")


def _seed(api):
    api.add_node("node-1")
    api.add_pod("web-1", "node-1", owner_kind="ReplicaSet", owner_name="web", labels={"app": "web"}, grace=30)
    api.add_pod("web-2", "node-1", owner_kind="ReplicaSet", owner_name="web", labels={"app": "web"}, grace=30)
    api.add_pdb("web-pdb", {"app": "web"}, min_available=1)
    return api.pod("web-1")


SUCCESS = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success"}


@pytest.mark.parametrize("options, query", [({"dryRun": ["All"]}, ""), (None, "?dryRun=All"), ({"dryRun": ["All"]}, "?dryRun=All")])
def test_apiserver_dry_run_eviction_answers_success_and_changes_nothing(api, options, query):
    before = _seed(api)
    revision = api.store.revision
    assert _evict(api, "web-1", options, query) == (201, SUCCESS)
    assert api.pod("web-1") == before
    assert "disruptedPods" not in api.store.get("poddisruptionbudgets", "default", "web-pdb").get("status", {})
    assert api.store.revision == revision
    # The budget still allows the one disruption, so a real eviction goes through afterwards.
    assert _evict(api, "web-1") == (201, SUCCESS)
    assert api.pod("web-1")["metadata"]["deletionTimestamp"]


def test_apiserver_dry_run_eviction_still_answers_the_budgets_429(api):
    _seed(api)
    assert _evict(api, "web-1")[0] == 201
    code, answer = _evict(api, "web-2", {"dryRun": ["All"]})
    assert (code, answer["reason"], answer["message"]) == (429, "TooManyRequests", "Cannot evict pod as it would violate the pod's disruption budget.")


def test_apiserver_dry_run_eviction_with_query_and_body_disagreeing_is_a_500(api):
    before = _seed(api)
    code, answer = _evict(api, "web-1", {"dryRun": ["Nope"]}, "?dryRun=All")
    assert code == 500
    assert answer["message"] == "Internal error occurred: Non-matching dry-run options in request and content: [All] and [Nope]"
    assert api.pod("web-1") == before


def test_apiserver_fail_eviction_answers_the_code_and_message_until_allowed(api):
    before = _seed(api)
    api.fail_eviction("web-1", 500, "etcdserver: request timed out")
    assert _evict(api, "web-1") == (500, {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                                          "message": "etcdserver: request timed out", "reason": "InternalError", "code": 500})
    assert api.pod("web-1") == before
    assert _evict(api, "web-2") == (201, SUCCESS)  # other pods are not affected
    api.allow_eviction("web-1")
    api.store.remove("poddisruptionbudgets", "default", "web-pdb")
    assert _evict(api, "web-1") == (201, SUCCESS)
