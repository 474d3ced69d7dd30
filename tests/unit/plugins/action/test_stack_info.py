"""The stack_info action through the real kubernetes client, against the API server TEST DOUBLE (tests/doubles/apiserver)."""

import re

import pytest

from ansible_collections.gpusmith.numa_gate.plugins.action import stack_info
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._stack import observe
from ansible_collections.gpusmith.numa_gate.tests.unit.plugins.action import in_process

# in_process puts the double on the path.
from apiserver import store as api_store  # noqa: E402 pylint: disable=wrong-import-position,import-error,wrong-import-order


@pytest.fixture(name="cluster")
def fixture_cluster(tmp_path):
    with in_process.api_double() as api:
        api.add_node("gpu-1", labels={"example.com/pod-managers": "canary"})
        api.add_daemonset("sriov-device-plugin", {"app": "sriov"}, namespace="kube-system")
        kubeconfig = str(tmp_path / "kubeconfig")
        api.write_kubeconfig(kubeconfig)
        yield api, kubeconfig


def test_the_node_and_the_control_plane_dated(cluster):
    api, kubeconfig = cluster
    result = in_process.run(stack_info, {"node": "gpu-1", "kubeconfig": kubeconfig})
    assert result.get("failed") is not True, result
    assert re.match(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$", result["read_at"])
    assert result["versions"]["control_plane"] == "v1.37.1" and result["versions"]["kubelet"] == "v1.37.1"
    assert all(entry["read_at"] == result["read_at"] for entry in result["observed"])
    assert result["control_plane_gates"] == {"PodLevelResources": True}
    assert result["labels"]["example.com/pod-managers"] == "canary"
    assert list(api.requests) == [("GET", "/version"), ("GET", "/metrics"), ("GET", "/api/v1/nodes/gpu-1")]


def test_workloads_each_list_on_its_own(cluster):
    api, kubeconfig = cluster
    result = in_process.run(stack_info, {"node": "gpu-1", "kubeconfig": kubeconfig, "workloads": True})
    images = [entry for entry in result["observed"] if entry["component"] in dict(observe.IMAGES)]
    assert [entry["component"] for entry in images] == ["gpu_operator", "network_operator", "device_plugin", "dra_driver", "sriov_device_plugin"]
    assert list(api.requests)[-2:] == [("GET", "/apis/apps/v1/deployments"), ("GET", "/apis/apps/v1/daemonsets")]
    if "deployments" in api_store.RESOURCES:
        # Both lists answered; the fixture's DaemonSet runs no image of these: each is not installed.
        assert {(entry["state"], entry["error"]) for entry in images} == {("not found", None)}
        assert "network_operator" not in result["versions"]
    else:
        # A double that serves no Deployments: that list fails, and every image not among the DaemonSets is unknown, never "not installed".
        assert {(entry["state"], entry["source"], entry["error"]) for entry in images} == {
            ("read failed", "Deployments (apps/v1, all namespaces)", "the server could not find the requested resource")}
        assert result["versions"]["network_operator"] is None and "network_operator" in result["versions"]


def test_an_unknown_node_is_its_error(cluster):
    _api, kubeconfig = cluster
    result = in_process.run(stack_info, {"node": "nope", "kubeconfig": kubeconfig})
    assert result.get("failed") is not True
    assert result["node_error"] == 'nodes "nope" not found'
    assert result["labels"] is None
