# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The API server double's wire behaviour, asserted over plain HTTP: codes and Status bodies as the
real API server sends them, PDB arithmetic, patch types, discovery, the node proxy."""

import json
import urllib.error
import urllib.request

import pytest

from apiserver import server


def _call(api, method, path, body=None, content_type="application/json"):
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(api.url + path, data=data, method=method, headers={"Content-Type": content_type})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            raw = response.read()
            return response.status, dict(response.headers), raw
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read()


def _json(api, method, path, body=None, content_type="application/json"):
    code, dummy, raw = _call(api, method, path, body, content_type)
    return code, json.loads(raw)


def _evict(api, name, namespace="default", body_name=None):
    body = {"apiVersion": "policy/v1", "kind": "Eviction", "metadata": {"name": body_name or name, "namespace": namespace}}
    return _json(api, "POST", "/api/v1/namespaces/%s/pods/%s/eviction" % (namespace, name), body)


def _web(api, count, ready=True, replicas=None):
    api.add_node("node-1")
    api.add_replicaset("web", {"app": "web"}, replicas=replicas or count)
    for index in range(count):
        api.add_pod("web-%d" % index, "node-1", owner_kind="ReplicaSet", owner_name="web", labels={"app": "web"}, grace=0,
                    ready=ready if index == 0 else True)


def test_apiserver_http_not_found_status_body(api):
    assert _json(api, "GET", "/api/v1/namespaces/default/pods/x") == (404, {
        "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure", "message": 'pods "x" not found',
        "reason": "NotFound", "details": {"name": "x", "kind": "pods"}, "code": 404})
    assert _json(api, "GET", "/apis/apps/v1/namespaces/default/daemonsets/d")[1]["message"] == 'daemonsets.apps "d" not found'
    assert _json(api, "GET", "/api/v1/frobs") == (404, {
        "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure", "message": "the server could not find the requested resource",
        "reason": "NotFound", "details": {}, "code": 404})


def test_apiserver_http_discovery_names_the_eviction_subresource(api):
    code, resources = _json(api, "GET", "/api/v1")
    assert code == 200
    eviction = [r for r in resources["resources"] if r["name"] == "pods/eviction"]
    assert eviction == [{"name": "pods/eviction", "singularName": "", "namespaced": True, "kind": "Eviction", "verbs": ["create"],
                         "group": "policy", "version": "v1"}]
    assert [g["name"] for g in _json(api, "GET", "/apis")[1]["groups"]] == ["apps", "batch", "policy", "resource.k8s.io", "coordination.k8s.io"]
    assert _json(api, "GET", "/version")[1]["gitVersion"] == "v1.37.1"


def test_apiserver_http_pdb_blocked_eviction_is_429_without_retry_after(api):
    _web(api, 2)
    api.add_pdb("web-pdb", {"app": "web"}, min_available=2)
    code, headers, raw = _call(api, "POST", "/api/v1/namespaces/default/pods/web-0/eviction",
                               {"apiVersion": "policy/v1", "kind": "Eviction", "metadata": {"name": "web-0", "namespace": "default"}})
    assert (code, "Retry-After" in headers) == (429, False)
    assert json.loads(raw) == {
        "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
        "message": "Cannot evict pod as it would violate the pod's disruption budget.", "reason": "TooManyRequests",
        "details": {"causes": [{"reason": "DisruptionBudget", "message": "The disruption budget web-pdb needs 2 healthy pods and has 2 currently"}]},
        "code": 429}


def test_apiserver_http_eviction_success_then_budget_spent(api):
    _web(api, 3)
    api.add_pdb("web-pdb", {"app": "web"}, max_unavailable=1)
    assert _evict(api, "web-0") == (201, {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success"})
    assert api.pod("web-0") is None
    # ReplicaSet scale 3, maxUnavailable 1: 2 desired, 2 healthy left, nothing more to give.
    code, body = _evict(api, "web-1")
    assert (code, body["details"]["causes"][0]["message"]) == (429, "The disruption budget web-pdb needs 2 healthy pods and has 2 currently")
    status = _json(api, "GET", "/apis/policy/v1/namespaces/default/poddisruptionbudgets/web-pdb")[1]["status"]
    assert {k: status[k] for k in ("currentHealthy", "desiredHealthy", "expectedPods", "disruptionsAllowed")} == {
        "currentHealthy": 2, "desiredHealthy": 2, "expectedPods": 3, "disruptionsAllowed": 0}
    assert [(c["type"], c["status"], c["reason"]) for c in status["conditions"]] == [("DisruptionAllowed", "False", "InsufficientPods")]


def test_apiserver_http_percent_min_available_rounds_up(api):
    _web(api, 3)
    api.add_pdb("web-pdb", {"app": "web"}, min_available="50%")
    status = _json(api, "GET", "/apis/policy/v1/namespaces/default/poddisruptionbudgets/web-pdb")[1]["status"]
    assert (status["desiredHealthy"], status["disruptionsAllowed"]) == (2, 1)


def test_apiserver_http_unready_pod_is_evicted_while_the_budget_holds(api):
    _web(api, 3, ready=False)
    api.add_pdb("web-pdb", {"app": "web"}, min_available=2)
    assert _evict(api, "web-0")[0] == 201
    assert api.pod("web-0") is None


def test_apiserver_http_eviction_refusals(api):
    _web(api, 2)
    api.add_pdb("a", {"app": "web"}, min_available=1)
    api.add_pdb("b", {"app": "web"}, max_unavailable=1)
    assert _evict(api, "web-0") == (500, {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                                          "message": "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.",
                                          "code": 500})
    assert _evict(api, "web-0", body_name="web-1") == (400, {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                                                             "message": "name in URL does not match name in Eviction object",
                                                             "reason": "BadRequest", "code": 400})
    assert _evict(api, "gone")[1]["message"] == 'pods "gone" not found'


def test_apiserver_http_terminal_pod_is_deleted_without_a_budget_check(api):
    api.add_node("node-1")
    api.add_pod("done", "node-1", labels={"app": "web"}, phase="Succeeded", ready=False)
    api.add_pdb("web-pdb", {"app": "web"}, min_available=5)
    assert _evict(api, "done")[0] == 201
    assert api.pod("done") is None


def test_apiserver_http_strategic_merge_null_and_json_patch(api):
    api.add_node("node-1")
    code, node = _json(api, "PATCH", "/api/v1/nodes/node-1", {"spec": {"unschedulable": True}}, "application/strategic-merge-patch+json")
    assert (code, node["spec"]) == (200, {"unschedulable": True})
    code, node = _json(api, "PATCH", "/api/v1/nodes/node-1", {"spec": {"unschedulable": None}}, "application/strategic-merge-patch+json")
    assert (code, node["spec"]) == (200, {})
    code, node = _json(api, "PATCH", "/api/v1/nodes/node-1", [{"op": "add", "path": "/spec/unschedulable", "value": True}],
                       "application/json-patch+json")
    assert (code, node["spec"]) == (200, {"unschedulable": True})
    code, body = _json(api, "PATCH", "/api/v1/nodes/node-1", {"spec": {}}, "application/json-patch+json")
    assert (code, body["reason"], body["message"]) == (400, "BadRequest", "json: cannot unmarshal object into Go value of type jsonpatch.Patch")


def test_apiserver_http_stale_resource_version_is_a_conflict(api):
    node = api.add_node("node-1")
    api.set_node_ready("node-1", False)
    code, body = _json(api, "PUT", "/api/v1/nodes/node-1", node)
    assert (code, body["reason"], body["message"]) == (
        409, "Conflict",
        'Operation cannot be fulfilled on nodes "node-1": the object has been modified; please apply your changes to the latest version and try again')


def test_apiserver_http_node_registration_and_status_patch(api):
    node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "node-7"},
            "status": {"addresses": [{"type": "InternalIP", "address": "127.0.0.1"}], "daemonEndpoints": {"kubeletEndpoint": {"Port": 9}}}}
    assert _json(api, "POST", "/api/v1/nodes", node)[0] == 201
    assert _json(api, "POST", "/api/v1/nodes", node)[1]["message"] == 'nodes "node-7" already exists'
    patch = {"status": {"conditions": [{"type": "Ready", "status": "True", "reason": "KubeletReady", "message": "kubelet is posting ready status"}]}}
    code, stored = _json(api, "PATCH", "/api/v1/nodes/node-7/status", patch, "application/strategic-merge-patch+json")
    assert (code, stored["status"]["conditions"][0]["status"]) == (200, "True")
    code, body = _json(api, "GET", "/api/v1/nodes/node-7/proxy/healthz")
    assert (code, body["reason"]) == (503, "ServiceUnavailable")
    assert body["message"].startswith("error trying to reach service: dial tcp 127.0.0.1:9: ")


def test_apiserver_http_node_proxy_forwards_metrics(api, fake_kubelet):
    api.add_node("node-1")
    api.register_kubelet("node-1", fake_kubelet.url)
    code, headers, raw = _call(api, "GET", "/api/v1/nodes/node-1/proxy/metrics")
    assert (code, headers["Content-Type"]) == (200, "text/plain; version=0.0.4; charset=utf-8")
    assert b"kubelet_cpu_manager_pinning_requests_total 3\n" in raw
    assert _call(api, "GET", "/api/v1/nodes/node-1/proxy/nothing")[0] == 404


def test_apiserver_http_pod_delete_precondition(api):
    api.add_node("node-1")
    api.add_pod("p", "node-1", grace=0)
    code, body = _json(api, "DELETE", "/api/v1/namespaces/default/pods/p", {"preconditions": {"uid": "other"}})
    assert (code, body["reason"]) == (409, "Conflict")
    assert body["message"].startswith('Operation cannot be fulfilled on pods "p": Precondition failed: UID in precondition: other, UID in object meta: ')
    assert _json(api, "DELETE", "/api/v1/namespaces/default/pods/p")[0] == 200
    assert api.pod("p") is None


def test_apiserver_http_seeding_refuses_bad_values(api):
    with pytest.raises(ValueError, match="exactly one of min_available and max_unavailable"):
        api.add_pdb("x", {"app": "web"})
    with pytest.raises(ValueError, match="node Ready status must be True, False or Unknown, not 'Maybe'"):
        api.add_node("n", ready="Maybe")


def test_apiserver_http_kubeconfig_points_at_the_double(tmp_path):
    with server.ApiServerDouble() as double:
        text = open(double.write_kubeconfig(tmp_path / "kc"), encoding="utf-8").read()
        assert "    server: http://127.0.0.1:%d\n" % double.port in text
