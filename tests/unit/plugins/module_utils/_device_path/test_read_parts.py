# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The device path's readers, each alone: plugin pods, NVIDIA settings, ResourceSlice devices, the SR-IOV config (pure)."""

from __future__ import annotations

import pytest

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._device_path import nvidia_plugin, pods, read, resource_slices, sriov
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._device_path.common import DevicePathError
from ansible_collections.gpusmith.numa_gate.tests.unit.plugins.module_utils._device_path import device_path_cases as C

WHERE = "ConfigMap kube-system/sriovdp-config key config.json"
FROM_FILE = "config file /config/config.yaml (ConfigMap kube-system/nvdp-configs key default): "


@pytest.mark.parametrize("image, version", [
    ("registry.example:5000/nvidia/k8s-device-plugin:v0.18.0", "v0.18.0"),
    ("registry.example:5000/nvidia/k8s-device-plugin", None),
    ("registry.example/nvidia/k8s-device-plugin@sha256:abc", "sha256:abc"),
    ("registry.example/nvidia/k8s-device-plugin:v0.17.1@sha256:abc", "v0.17.1"),
    ("", None), (None, None)])
def test_image_version_reads_the_tag_never_a_registry_port(image, version):
    assert pods.image_version(image) == version


def _nvidia(env=None, args=None, privileged=True, phase="Running"):
    described = pods.describe(C.pod("nvidia-device-plugin-daemonset-abcde", [C.nvidia_container(env=env, args=args, privileged=privileged)],
                                    phase=phase))
    return described, pods.main_container(described, nvidia_plugin.DEFAULT_CONTAINER)


def test_nvidia_settings_precedence_flag_over_env_over_config_file_over_default():
    described, container = _nvidia(env={"PASS_DEVICE_SPECS": "false", "DEVICE_LIST_STRATEGY": "cdi-cri,envvar", "CONFIG_FILE": "/config/config.yaml"},
                                   args=["--pass-device-specs"])
    config = {"version": "v1", "flags": {"migStrategy": "single", "plugin": {"passDeviceSpecs": False, "deviceIDStrategy": "index"}}}
    found = nvidia_plugin.settings(container, config, "ConfigMap kube-system/nvdp-configs key default")
    assert found == {
        "pass_device_specs": {"value": True, "source": "flag --pass-device-specs=true"},
        "device_list_strategy": {"value": ["cdi-cri", "envvar"], "source": "env DEVICE_LIST_STRATEGY=cdi-cri,envvar"},
        "device_id_strategy": {"value": "index", "source": FROM_FILE + "flags.plugin.deviceIDStrategy"},
        "mig_strategy": {"value": "single", "source": FROM_FILE + "flags.migStrategy"},
        "fail_on_init_error": {"value": True, "source": "default"},
        "driver_root": {"value": "/", "source": "default"},
        "config_file": {"value": "/config/config.yaml", "source": "env CONFIG_FILE=/config/config.yaml"}}
    assert [f["result"] for f in nvidia_plugin.findings(described, container, found)] == ["agree"]


def test_nvidia_pass_device_specs_default_false_is_a_disagree_with_the_documented_reason():
    described, container = _nvidia()
    (found,) = nvidia_plugin.findings(described, container, nvidia_plugin.settings(container))
    assert found == {
        "check": "gpu_plugin_cpu_manager", "result": "disagree", "subject": "nvidia-device-plugin kube-system/nvidia-device-plugin-daemonset-abcde",
        "message": "nvidia-device-plugin kube-system/nvidia-device-plugin-daemonset-abcde: PASS_DEVICE_SPECS is false (default); NVIDIA documents "
                   "this option as the way the plugin interoperates with the kubelet's CPU Manager (static policy), which this node is being given",
        "expected": True, "observed": False,
        "sources": {"expected": "NVIDIA k8s-device-plugin README (PASS_DEVICE_SPECS)", "observed": "the plugin's pod on this node"}}


def test_nvidia_pass_device_specs_without_privileges_and_an_unread_config_file():
    described, container = _nvidia(env={"PASS_DEVICE_SPECS": "True"}, privileged=False)
    (found,) = nvidia_plugin.findings(described, container, nvidia_plugin.settings(container))
    assert (found["result"], found["message"]) == ("disagree", "nvidia-device-plugin kube-system/nvidia-device-plugin-daemonset-abcde: "
                                                   "PASS_DEVICE_SPECS is true (env PASS_DEVICE_SPECS=True), but container nvidia-device-plugin-ctr "
                                                   "is not privileged; NVIDIA documents that setting it requires the DaemonSet to run with "
                                                   "elevated privileges")
    described, container = _nvidia(env={"CONFIG_FILE": "/config/config.yaml"}, phase="Pending")
    settings = nvidia_plugin.settings(container)
    assert settings["pass_device_specs"] == {"value": None, "source": "config file /config/config.yaml (not read)"}
    assert [(f["check"], f["result"], f["message"]) for f in nvidia_plugin.findings(described, container, settings)] == [
        ("gpu_plugin_cpu_manager", "unknown", "nvidia-device-plugin kube-system/nvidia-device-plugin-daemonset-abcde: PASS_DEVICE_SPECS is "
         "unknown (config file /config/config.yaml (not read)); CPU Manager interoperability is unresolved"),
        ("plugin_running", "unknown", "nvidia-device-plugin kube-system/nvidia-device-plugin-daemonset-abcde is Pending, not Running: what it "
         "advertises now is unknown")]


def test_nvidia_unreadable_boolean_is_never_a_default():
    described, container = _nvidia(env={"PASS_DEVICE_SPECS": "yes"})
    found = nvidia_plugin.settings(container)
    assert found["pass_device_specs"] == {"value": None, "source": "env PASS_DEVICE_SPECS=yes (unreadable)"}
    assert nvidia_plugin.findings(described, container, found)[0]["result"] == "unknown"


def test_nvidia_config_choice_by_node_label_then_default_config():
    described = pods.describe(C.pod("p", [C.nvidia_container(), {"name": "config-manager", "image": "x:1",
                                                                 "env": [{"name": "DEFAULT_CONFIG", "value": "default"}]}]))
    data = {"default": "a", "h200": "b"}
    assert nvidia_plugin.config_choice(described, data, {nvidia_plugin.CONFIG_LABEL: "h200"}) == ("h200", "b")
    assert nvidia_plugin.config_choice(described, data, {}) == ("default", "a")
    assert nvidia_plugin.config_choice(pods.describe(C.pod("q", [C.nvidia_container()])), data, {}) == (None, None)


def test_rollout_and_untagged_image_findings():
    described = pods.describe(C.pod("p", [C.nvidia_container(image="registry.example/k8s-device-plugin")]))
    daemonset = {"metadata": {"name": "d"}, "spec": {"template": {"spec": {"containers": [
        {"name": "nvidia-device-plugin-ctr", "image": "registry.example/k8s-device-plugin:v0.18.1"}]}}}}
    rolled = pods.rollout(described, daemonset)
    assert rolled == {"nvidia-device-plugin-ctr": ("registry.example/k8s-device-plugin:v0.18.1", "registry.example/k8s-device-plugin")}
    assert [(f["check"], f["result"], f["message"]) for f in pods.plugin_findings("x", described, described["containers"][0], rolled)] == [
        ("plugin_version", "unknown", "x: image 'registry.example/k8s-device-plugin' has no tag or digest: the plugin's version is unknown"),
        ("plugin_rollout", "disagree", "x: container nvidia-device-plugin-ctr runs registry.example/k8s-device-plugin but its DaemonSet's "
         "template names registry.example/k8s-device-plugin:v0.18.1: a rollout is not done on this node")]


def test_pod_of_the_wrong_shape_is_refused_by_path():
    bad = C.pod("p", [C.nvidia_container()])
    bad["spec"]["containers"][0]["env"] = [{"value": "true"}]
    with pytest.raises(DevicePathError, match=r"^gpu pod.spec.containers\[0\].env\[0\] has no name: an environment variable has name$"):
        pods.describe(bad, "gpu pod")


def test_resource_slice_devices_of_this_node_only_with_qualified_attributes():
    slices = [C.resource_slice([C.slice_device("gpu-0", C.GPU0["uuid"], "0000:17:00.0", 0)]),
              C.resource_slice([C.slice_device("gpu-0", "GPU-x", "0000:18:00.0", 0)], node="gpu-2", name="other")]
    assert resource_slices.devices(slices, "gpu-1") == [{
        "driver": "gpu.nvidia.com", "pool": "gpu-1", "slice": "gpu-1-gpu.nvidia.com-x7k2p", "name": "gpu-0", "uuid": C.GPU0["uuid"],
        "pci_address": "0000:17:00.0", "parent_pci_address": None, "pcie_root": "pci0000:17", "numa_node": 0, "numa_nodes": [0],
        "numa_attribute": "resource.kubernetes.io/numaNode", "driver_version": "580.95.5"}]


def test_resource_slice_refusals_name_the_slice_and_the_field():
    with pytest.raises(DevicePathError, match=r"^resourceslices\[0\].spec has no driver: a ResourceSlice's spec has driver$"):
        resource_slices.devices([{"metadata": {"name": "s"}, "spec": {}}], "gpu-1")
    bad = C.resource_slice([C.slice_device("gpu-0", "GPU-x", "17:00", 0)])
    with pytest.raises(DevicePathError, match=r"^ResourceSlice gpu-1-gpu.nvidia.com-x7k2p devices\[0\] \(gpu-0\): PCI address '17:00' is not "):
        resource_slices.devices([bad], "gpu-1")


def test_sriov_config_resources_and_the_exclude_topology_finding_names_the_resource():
    text = ('{"resourceList": [{"resourceName": "mlnx_sriov_rdma", "resourcePrefix": "nvidia.com", "excludeTopology": true,'
            ' "selectors": [{"vendors": ["15b3"], "isRdma": true}]}, {"resourceName": "intel_sriov_netdevice"}]}')
    resources = sriov.parse_config(text, WHERE)
    assert [(r["resource"], r["device_type"], r["exclude_topology"]) for r in resources] == [
        ("nvidia.com/mlnx_sriov_rdma", "netDevice", True), ("intel.com/intel_sriov_netdevice", "netDevice", False)]
    node = {"status": {"allocatable": {"nvidia.com/mlnx_sriov_rdma": "4", "intel.com/intel_sriov_netdevice": "0"}}}
    found = sriov.findings(resources, sriov.advertised(node, [r["resource"] for r in resources]), WHERE)
    assert found[0] == {
        "check": "nic_topology_advertised", "result": "disagree", "subject": "sriov resource nvidia.com/mlnx_sriov_rdma",
        "message": "sriov resource nvidia.com/mlnx_sriov_rdma (%s): excludeTopology is true, so the plugin advertises its devices with no NUMA "
                   "node: the kubelet's Topology Manager cannot align them with the pod's CPUs and memory" % WHERE,
        "expected": False, "observed": True, "sources": {"expected": "topology advertised", "observed": WHERE}}
    assert [(f["check"], f["result"], f["message"]) for f in found[1:]] == [
        ("nic_resource_advertised", "agree", "sriov resource nvidia.com/mlnx_sriov_rdma: the node advertises 4"),
        ("nic_resource_advertised", "disagree", "sriov resource intel.com/intel_sriov_netdevice is configured (%s) but the node advertises 0 of it"
         % WHERE)]


def test_sriov_prefix_and_config_key_from_the_plugin_flags():
    container = pods.describe(C.pod("s", [{"name": "kube-sriovdp", "image": "x:v3", "args": ["--resource-prefix=example.com",
                                                                                             "-config-file", "/etc/pcidp/$(NODE_NAME)"]}]))["containers"][0]
    assert sriov.resource_prefix(container) == "example.com"
    assert sriov.config_for_node({"gpu-1": "{}", "config.json": "[]"}, container, "gpu-1") == ("gpu-1", "{}")
    assert sriov.parse_config('{"resourceList": [{"resourceName": "a"}]}', WHERE, sriov.resource_prefix(container))[0]["resource"] == "example.com/a"


@pytest.mark.parametrize("text, message", [
    ("{", r"^%s: the SR-IOV device plugin config is not JSON: " % WHERE),
    ('{"resourceList": {}}', r"^%s: the SR-IOV device plugin config must be an object with a resourceList list$" % WHERE),
    ('{"resourceList": [{"selectors": []}]}', r"^%s: resourceList\[0\] has no resourceName \(a string\): every resource pool names one$" % WHERE),
    ('{"resourceList": [{"resourceName": "a", "excludeTopology": "true"}]}',
     r"^%s: resourceList\[0\] \(a\): excludeTopology must be true or false, got 'true'$" % WHERE)])
def test_sriov_config_refusals_name_the_configmap_key_and_the_rule(text, message):
    with pytest.raises(DevicePathError, match=message):
        sriov.parse_config(text, WHERE)


class _Answers(object):
    """A client with ``request(method, path, query)`` answering from a table (path -> answer, or an error code)."""

    class Error(Exception):
        def __init__(self, code):
            super().__init__("HTTP %d" % code)
            self.code = code

    def __init__(self, table):
        self.table = table
        self.asked = []

    def request(self, method, path, query=None):
        self.asked.append((method, path, dict(query or {})))
        answer = self.table.get(path, 404)
        if isinstance(answer, int):
            raise self.Error(answer)
        return answer


def test_read_without_resource_k8s_io_notes_it_and_a_cut_list_is_a_finding():
    pods_list = {"items": [], "metadata": {"continue": "token"}}
    api = _Answers({"/api/v1/nodes/gpu-1": {"metadata": {"name": "gpu-1"}, "status": {}}, "/api/v1/pods": pods_list})
    selectors = {"gpu_device_plugin": ["app=nvdp"], "dra_kubelet_plugin": [], "sriov_device_plugin": []}
    found = read.read(api, "gpu-1", C.oracle(), selectors=selectors)
    assert found["notes"] == ["the API server does not serve resource.k8s.io/v1 ResourceSlices (404): no DRA driver is read"]
    assert [(f["check"], f["result"], f["message"]) for f in found["findings"]] == [
        ("api_list_complete", "unknown", "GET /api/v1/pods?fieldSelector=spec.nodeName%3Dgpu-1&labelSelector=app%3Dnvdp&limit=500: the server "
         "returned 0 items and more remain (metadata.continue): only those were read"),
        ("gpu_path", "unknown", "the host has 2 GPUs but no GPU device plugin pod (NVIDIA's or AMD's) runs on this node and no ResourceSlice of it "
         "publishes one of them: the GPU path is not identified")]
    assert [path for method, path, query in api.asked] == ["/api/v1/nodes/gpu-1", "/api/v1/pods", "/apis/resource.k8s.io/v1/resourceslices"]
    assert found["requests"] == 3


def test_read_refuses_more_plugin_pods_than_it_reads_and_other_errors_pass_through():
    many = {"items": [C.pod("p%d" % index, [C.nvidia_container()]) for index in range(5)]}
    api = _Answers({"/api/v1/nodes/gpu-1": {"metadata": {"name": "gpu-1"}}, "/api/v1/pods": many})
    with pytest.raises(DevicePathError, match=r"^gpu_device_plugin: 5 pods on node gpu-1 match app=nvdp; at most 4 are read \(narrow the selectors\)$"):
        read.read(api, "gpu-1", C.oracle(), selectors={"gpu_device_plugin": "app=nvdp"})
    with pytest.raises(_Answers.Error, match="HTTP 403"):
        read.read(_Answers({"/api/v1/nodes/gpu-1": 403}), "gpu-1", C.oracle())
