# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Creating a pod through the double's API resets its status as the real registry does, with the QoS class."""

import json

from apiserver import objects


def _pod(name, node, resources=None, pod_resources=None):
    spec = {"nodeName": node, "containers": [{"name": "main", "image": "registry.k8s.io/pause:3.10", "resources": resources or {}}]}
    if pod_resources:
        spec["resources"] = pod_resources
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name}, "spec": spec, "status": {"phase": "Running"}}


def test_apiserver_create_pod_status_is_pending_with_its_qos(api, kubectl, tmp_path):
    api.add_node("node-1")
    exact = {"requests": {"cpu": "2", "memory": "2Gi"}, "limits": {"cpu": "2", "memory": "2Gi"}}
    manifests = [_pod("plain", "node-1"), _pod("exact", "node-1", exact), _pod("some", "node-1", {"requests": {"cpu": "1"}}),
                 _pod("budget", "node-1", pod_resources={"limits": {"cpu": "4", "memory": "4Gi"}})]
    path = tmp_path / "pods.json"
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": manifests}))
    result = kubectl("create", "--validate=false", "-f", str(path))  # the double serves no OpenAPI schema
    assert result.returncode == 0, result.stderr
    assert {name: api.pod(name)["status"] for name in ("plain", "exact", "some", "budget")} == {
        "plain": {"phase": "Pending", "qosClass": "BestEffort"},
        "exact": {"phase": "Pending", "qosClass": "Guaranteed"},
        "some": {"phase": "Pending", "qosClass": "Burstable"},
        "budget": {"phase": "Pending", "qosClass": "Guaranteed"},
    }


def test_apiserver_create_qos_class_defaults_requests_to_limits():
    assert objects.qos_class({"containers": [{"resources": {"limits": {"cpu": "1", "memory": "1Gi"}}}]}) == "Guaranteed"
    assert objects.qos_class({"containers": [{"resources": {"limits": {"cpu": "1"}}}]}) == "Burstable"
    assert objects.qos_class({"containers": [{"resources": {"limits": {"cpu": "1", "memory": "1Gi"}, "requests": {"cpu": "500m"}}}]}) == "Burstable"
    assert objects.qos_class({"containers": [{}], "initContainers": [{"resources": {"requests": {"memory": "1Gi"}}}]}) == "Burstable"
