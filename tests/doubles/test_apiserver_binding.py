# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The double's pods/binding subresource and events, through the real Python client."""

import kubernetes
import pytest


@pytest.fixture(name="core")
def fixture_core(kubeconfig):
    """A CoreV1Api client of the double."""
    return kubernetes.client.CoreV1Api(kubernetes.config.new_client_from_config(config_file=kubeconfig))


def _binding(name, node):
    return kubernetes.client.V1Binding(metadata=kubernetes.client.V1ObjectMeta(name=name),
                                       target=kubernetes.client.V1ObjectReference(kind="Node", name=node))


def test_apiserver_binding_assigns_a_pending_pod_once(api, core):
    api.add_node("node-1")
    api.store.create("pods", {"metadata": {"name": "canary", "namespace": "default"}, "spec": {"containers": [{"name": "main"}]},
                              "status": {"phase": "Pending"}})
    core.create_namespaced_pod_binding("canary", "default", _binding("canary", "node-1"), _preload_content=False)
    pod = api.pod("canary")
    assert pod["spec"]["nodeName"] == "node-1"
    assert [c["status"] for c in pod["status"]["conditions"] if c["type"] == "PodScheduled"] == ["True"]
    with pytest.raises(kubernetes.client.ApiException) as again:
        core.create_namespaced_pod_binding("canary", "default", _binding("canary", "node-2"), _preload_content=False)
    assert again.value.status == 409
    assert 'Operation cannot be fulfilled on pods/binding \\"canary\\": pod canary is already assigned to node \\"node-1\\"' in again.value.body
    assert ("POST", "/api/v1/namespaces/default/pods/canary/binding") in api.requests


def test_apiserver_events_are_created_and_listed(api, core):
    event = kubernetes.client.CoreV1Event(metadata=kubernetes.client.V1ObjectMeta(name="canary.1"), reason="TopologyAffinityError",
                                          message="Resources cannot be allocated with Topology locality", type="Warning",
                                          involved_object=kubernetes.client.V1ObjectReference(kind="Pod", name="canary", namespace="default"))
    core.create_namespaced_event("default", event)
    listed = core.list_namespaced_event("default")
    assert [(e.reason, e.involved_object.name) for e in listed.items] == [("TopologyAffinityError", "canary")]
