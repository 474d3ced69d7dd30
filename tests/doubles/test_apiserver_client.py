# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The real ``kubernetes`` Python client (37.0.2) against the API server double."""

import json
import threading
import time

import pytest
from kubernetes import client, config, watch
from kubernetes.client.exceptions import ApiException

PDB_STATUS = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
              "message": "Cannot evict pod as it would violate the pod's disruption budget.", "reason": "TooManyRequests",
              "details": {"causes": [{"reason": "DisruptionBudget", "message": "The disruption budget web-pdb needs 2 healthy pods and has 2 currently"}]},
              "code": 429}


@pytest.fixture(name="core")
def fixture_core(kubeconfig):
    """A CoreV1Api built from the double's kubeconfig."""
    api_client = config.new_client_from_config(config_file=kubeconfig)
    try:
        yield client.CoreV1Api(api_client)
    finally:
        api_client.close()


def _seed(api):
    api.add_node("node-1")
    api.add_node("node-2")
    api.add_pod("web-1", "node-1", owner_kind="ReplicaSet", owner_name="web", labels={"app": "web"}, grace=0)
    api.add_pod("web-2", "node-2", owner_kind="ReplicaSet", owner_name="web", labels={"app": "web"}, grace=0)
    api.add_pod("agent-1", "node-1", namespace="kube-system", owner_kind="DaemonSet", owner_name="agent", labels={"app": "agent"})


def test_apiserver_client_lists_pods_by_field_selector(api, core):
    _seed(api)
    pods = core.list_pod_for_all_namespaces(field_selector="spec.nodeName=node-1")
    assert sorted((p.metadata.namespace, p.metadata.name) for p in pods.items) == [("default", "web-1"), ("kube-system", "agent-1")]
    assert [p.metadata.name for p in core.list_namespaced_pod("default", field_selector="spec.nodeName!=node-1").items] == ["web-2"]
    assert [p.metadata.name for p in core.list_namespaced_pod("kube-system", label_selector="app in (agent,x)").items] == ["agent-1"]
    owner = core.read_namespaced_pod("agent-1", "kube-system").metadata.owner_references[0]
    assert (owner.kind, owner.name, owner.controller) == ("DaemonSet", "agent", True)
    assert client.AppsV1Api(core.api_client).read_namespaced_daemon_set("agent", "kube-system").metadata.uid == owner.uid


def test_apiserver_client_unknown_field_selector_is_a_400(api, core):
    _seed(api)
    with pytest.raises(ApiException) as caught:
        core.list_pod_for_all_namespaces(field_selector="spec.colour=blue")
    assert (caught.value.status, json.loads(caught.value.body)["message"]) == (400, "field label not supported: spec.colour")


def test_apiserver_client_patches_the_node(api, core):
    api.add_node("node-1")
    node = core.patch_node("node-1", {"spec": {"unschedulable": True}})
    assert node.spec.unschedulable is True
    assert api.node("node-1")["spec"] == {"unschedulable": True}
    core.patch_node("node-1", [{"op": "remove", "path": "/spec/unschedulable"}])
    assert api.node("node-1")["spec"] == {}
    with pytest.raises(ApiException) as caught:
        core.patch_node("node-9", {"spec": {"unschedulable": True}})
    assert caught.value.status == 404
    assert json.loads(caught.value.body) == {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                                             "message": 'nodes "node-9" not found', "reason": "NotFound",
                                             "details": {"name": "node-9", "kind": "nodes"}, "code": 404}


def test_apiserver_client_eviction_blocked_by_a_pdb_is_the_apis_429(api, core):
    _seed(api)
    api.add_pdb("web-pdb", {"app": "web"}, min_available=2)
    body = client.V1Eviction(metadata=client.V1ObjectMeta(name="web-1", namespace="default"))
    with pytest.raises(ApiException) as caught:
        core.create_namespaced_pod_eviction("web-1", "default", body)
    assert (caught.value.status, caught.value.reason) == (429, "Too Many Requests")
    assert caught.value.headers.get("Content-Type") == "application/json"
    assert caught.value.headers.get("Retry-After") is None
    assert json.loads(caught.value.body) == PDB_STATUS
    assert api.pod("web-1")["metadata"].get("deletionTimestamp") is None


def test_apiserver_client_eviction_allowed_by_the_pdb_deletes_the_pod(api, core):
    _seed(api)
    api.add_pdb("web-pdb", {"app": "web"}, max_unavailable=1)
    body = client.V1Eviction(metadata=client.V1ObjectMeta(name="web-1", namespace="default"))
    result = core.create_namespaced_pod_eviction_with_http_info("web-1", "default", body)
    assert result[1] == 201
    assert api.pod("web-1") is None
    policy = client.PolicyV1Api(core.api_client).read_namespaced_pod_disruption_budget("web-pdb", "default")
    # The ReplicaSet "web" wants 1 replica here; 1 healthy pod left, maxUnavailable 1: 0 desired.
    assert (policy.status.expected_pods, policy.status.desired_healthy, policy.status.current_healthy, policy.status.disruptions_allowed) == (1, 0, 1, 1)


def test_apiserver_client_graceful_delete_keeps_uid_until_the_pod_is_gone(api, core):
    api.add_node("node-1")
    uid = api.add_pod("slow", "node-1", grace=1)["metadata"]["uid"]
    deleted = core.delete_namespaced_pod("slow", "default")
    assert (deleted.metadata.uid, deleted.metadata.deletion_grace_period_seconds) == (uid, 1)
    assert deleted.metadata.deletion_timestamp is not None
    assert core.read_namespaced_pod("slow", "default").metadata.uid == uid
    time.sleep(1.2)
    with pytest.raises(ApiException) as caught:
        core.read_namespaced_pod("slow", "default")
    assert (caught.value.status, json.loads(caught.value.body)["message"]) == (404, 'pods "slow" not found')


def test_apiserver_client_watch_sees_the_node_turn_not_ready(api, core):
    api.add_node("node-1")
    threading.Timer(0.3, api.set_node_ready, args=("node-1", "Unknown")).start()
    seen = []
    for event in watch.Watch().stream(core.list_node, timeout_seconds=3):
        ready = [c for c in event["object"].status.conditions if c.type == "Ready"][0]
        seen.append((event["type"], ready.status, ready.reason))
        if ready.status == "Unknown":
            break
    assert seen == [("ADDED", "True", "KubeletReady"), ("MODIFIED", "Unknown", "NodeStatusUnknown")]
