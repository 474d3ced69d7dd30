# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The device_path_info action end to end: the real kubernetes client against the API server TEST DOUBLE
(tests/doubles/apiserver) seeded with a node's device path, in-process (through the real ``ansible``: tests/playbooks/test_device_path_info_adhoc.py)."""

from __future__ import annotations

import json

import pytest

from ansible_collections.gpusmith.numa_gate.plugins.action import device_path_info as action_file
from ansible_collections.gpusmith.numa_gate.plugins.modules import device_path_info as module_file
from ansible_collections.gpusmith.numa_gate.tests.unit.plugins.action import in_process
from ansible_collections.gpusmith.numa_gate.tests.unit.plugins.module_utils._device_path import device_path_cases as C

# The double's package is importable once in_process has put tests/doubles on sys.path.
from apiserver import device_objects  # noqa: E402  pylint: disable=wrong-import-position,import-error,wrong-import-order

SRIOV_CONFIG = json.dumps({"resourceList": [{"resourceName": "mlnx_sriov_rdma", "resourcePrefix": "nvidia.com", "excludeTopology": True,
                                             "selectors": [{"vendors": ["15b3"], "devices": ["101e"], "isRdma": True}]}]})
ALLOCATABLE = {"cpu_ids": "2-31", "memory": [], "devices": [
    {"resource_name": "nvidia.com/gpu", "device_ids": [C.GPU0["uuid"]], "numa_nodes": []},
    {"resource_name": "nvidia.com/gpu", "device_ids": [C.GPU1["uuid"]], "numa_nodes": [1]},
    {"resource_name": "nvidia.com/mlnx_sriov_rdma", "device_ids": ["0000:ca:00.2"], "numa_nodes": []}]}
SLICE = "gpu-1-gpu.nvidia.com-x7k2p"
NVDP = "kube-system/nvidia-device-plugin-gpu-1"
SRIOV = "kube-system/kube-sriov-device-plugin-gpu-1"


def seed(double, nvidia_env=None, nvidia_volumes=None):
    """gpu-1: an NVIDIA device plugin, NVIDIA's DRA kubelet plugin and two slices, the SR-IOV plugin with excludeTopology; gpu-2 too."""
    for node in ("gpu-1", "gpu-2"):
        double.add_node(node)
    device_objects.set_node_resources(double, "gpu-1", {"nvidia.com/gpu": 2, "nvidia.com/mlnx_sriov_rdma": 4})
    env = [{"name": k, "value": v} for k, v in (nvidia_env or {"PASS_DEVICE_SPECS": "true"}).items()]
    nvidia = [{"name": "nvidia-device-plugin-ctr", "image": C.DEVICE_PLUGIN_IMAGE, "env": env, "securityContext": {"privileged": True}}]
    device_objects.add_plugin(double, "nvidia-device-plugin", "kube-system", "gpu-1", {"app.kubernetes.io/name": "nvidia-device-plugin"},
                              nvidia, volumes=nvidia_volumes)
    double.store.create("pods", device_objects.plugin_pod("nvidia-device-plugin-gpu-2", "kube-system", "gpu-2", "2026-12-01T00:00:00Z",
                                                          {"app.kubernetes.io/name": "nvidia-device-plugin"}, nvidia, "u-2", "nvidia-device-plugin"))
    dra = [{"name": "gpus", "image": "registry.example/nvidia/k8s-dra-driver-gpu:v25.12.0"}]
    device_objects.add_plugin(double, "nvidia-dra-driver-gpu-kubelet-plugin", "kube-system", "gpu-1",
                              {"nvidia-dra-driver-gpu-component": "kubelet-plugin"}, dra)
    double.store.create("resourceslices", device_objects.resource_slice(SLICE, "gpu-1", "gpu.nvidia.com", [
        C.slice_device("gpu-0", C.GPU0["uuid"], "0000:17:00.0", 1), C.slice_device("gpu-1", C.GPU1["uuid"], "0000:9a:00.0", 1)]))
    double.store.create("resourceslices", device_objects.resource_slice("gpu-2-gpu.nvidia.com-aaaaa", "gpu-2", "gpu.nvidia.com", [
        C.slice_device("gpu-0", "GPU-22222222-0000-0000-0000-000000000000", "0000:17:00.0", 0)]))
    double.store.create("configmaps", device_objects.configmap("sriovdp-config", "kube-system", {"config.json": SRIOV_CONFIG}))
    sriov_containers = [{"name": "kube-sriovdp", "image": "registry.example/k8snetworkplumbingwg/sriov-network-device-plugin:v3.9.0",
                         "args": ["--log-dir=sriovdp", "--log-level=10"], "securityContext": {"privileged": True}}]
    device_objects.add_plugin(double, "kube-sriov-device-plugin", "kube-system", "gpu-1", {"app": "sriovdp"}, sriov_containers,
                              volumes=[{"name": "config-volume", "configMap": {"name": "sriovdp-config", "items": [
                                  {"key": "config.json", "path": "config.json"}]}}])


@pytest.fixture(name="double")
def fixture_double():
    with in_process.api_double() as started:
        yield started


@pytest.fixture(name="kubeconfig")
def fixture_kubeconfig(double, tmp_path):
    return double.write_kubeconfig(tmp_path / "kubeconfig")


def run_in_process(args, check_mode=False):
    return in_process.run(action_file, args, check_mode)


def test_the_device_path_of_a_node_is_every_must_show_finding_exactly(double, kubeconfig):
    seed(double)
    result = run_in_process({"kubeconfig": kubeconfig, "node": "gpu-1", "topology": C.facts(), "allocatable": ALLOCATABLE}, check_mode=True)
    assert "failed" not in result, result.get("msg")
    assert [(f["check"], f["result"], f["subject"]) for f in result["findings"]] == [
        ("gpu_plugin_cpu_manager", "agree", "nvidia-device-plugin " + NVDP),
        ("device_numa", "unknown", "nvidia.com/gpu device " + C.GPU0["uuid"]),
        ("device_numa", "agree", "nvidia.com/gpu device " + C.GPU1["uuid"]),
        ("dra_device_numa", "disagree", "gpu.nvidia.com device gpu-1/gpu-0"),
        ("dra_device_numa", "agree", "gpu.nvidia.com device gpu-1/gpu-1"),
        # both GPUs are in the plugin's allocatable and in the DRA driver's slice: two mechanisms for one device (issue 27)
        ("device_advertised_twice", "disagree", "gpu.nvidia.com/gpu-1/gpu-0"),
        ("device_advertised_twice", "disagree", "gpu.nvidia.com/gpu-1/gpu-1"),
        ("nic_topology_advertised", "disagree", "sriov resource nvidia.com/mlnx_sriov_rdma"),
        ("nic_resource_advertised", "agree", "sriov resource nvidia.com/mlnx_sriov_rdma"),
        ("device_numa", "unknown", "nvidia.com/mlnx_sriov_rdma device 0000:ca:00.2")]
    by_subject = {f["subject"]: f["message"] for f in result["findings"] if f["check"] != "nic_resource_advertised"}
    assert by_subject["gpu.nvidia.com device gpu-1/gpu-0"] == (
        "gpu.nvidia.com device gpu-1/gpu-0 (GPU-0a1b2c3d-0000-0000-0000-000000000000, 0000:17:00.0) is advertised on NUMA node 1 "
        "(ResourceSlice %s, resource.kubernetes.io/numaNode), the host puts it on NUMA node 0 (sysfs)" % SLICE)
    assert by_subject["nvidia.com/gpu device " + C.GPU0["uuid"]] == (
        "nvidia.com/gpu device GPU-0a1b2c3d-0000-0000-0000-000000000000 (0000:17:00.0) is advertised with no NUMA node (PodResources "
        "GetAllocatableResources topology); the host puts it on NUMA node 0 (sysfs): a device without NUMA is never agreement")
    assert by_subject["sriov resource nvidia.com/mlnx_sriov_rdma"] == (
        "sriov resource nvidia.com/mlnx_sriov_rdma (ConfigMap kube-system/sriovdp-config key config.json): excludeTopology is true, so the "
        "plugin advertises its devices with no NUMA node: the kubelet's Topology Manager cannot align them with the pod's CPUs and memory")
    assert result["versions"] == {"gpu_device_plugin": "v0.18.0", "dra_kubelet_plugin": "v25.12.0", "sriov_device_plugin": "v3.9.0"}
    assert by_subject["gpu.nvidia.com/gpu-1/gpu-0"] == (
        "gpu.nvidia.com/gpu-1/gpu-0 (ResourceSlice %s) and device plugin resource nvidia.com/gpu device %s are the same device (UUID %s): "
        "one device advertised by two mechanisms at once (PodResources GetAllocatableResources and this node's ResourceSlices)"
        % (SLICE, C.GPU0["uuid"], C.GPU0["uuid"]))
    assert result["summary"] == {"agree": 4, "disagree": 4, "unknown": 2}
    assert [d["slice"] for d in result["slice_devices"]] == [SLICE, SLICE]
    assert result["plugins"]["gpu_device_plugin"][0]["settings"]["pass_device_specs"] == {"value": True, "source": "env PASS_DEVICE_SPECS=true"}
    assert result["plugins"]["sriov_device_plugin"][0]["advertised"] == {"nvidia.com/mlnx_sriov_rdma": {"capacity": "4", "allocatable": "4"}}
    assert (result["changed"], result["notes"]) == (False, [])
    asked = [path for method, path in double.requests if method == "GET"]
    assert "/apis/resource.k8s.io/v1/resourceslices?fieldSelector=spec.nodeName%3Dgpu-1&limit=500" in asked
    assert "/api/v1/namespaces/kube-system/configmaps/sriovdp-config" in asked
    assert result["requests"] == len(asked) == 1 + 7 + 3 + 1 + 1


def test_the_nvidia_config_file_is_read_from_the_helm_configmap_and_without_allocatable_numa_is_unknown(double, kubeconfig):
    config = "version: v1\nflags:\n  migStrategy: none\n  plugin:\n    passDeviceSpecs: false\n    deviceListStrategy: [envvar, cdi-cri]\n"
    seed(double, nvidia_env={"CONFIG_FILE": "/config/config.yaml"},
         nvidia_volumes=[{"name": "available-configs", "configMap": {"name": "nvidia-device-plugin-configs"}}])
    double.store.create("configmaps", device_objects.configmap("nvidia-device-plugin-configs", "kube-system", {"default": config}))
    selectors = {"dra_kubelet_plugin": [], "sriov_device_plugin": []}
    result = run_in_process({"kubeconfig": kubeconfig, "node": "gpu-1", "oracle": C.oracle(), "selectors": selectors})
    settings = result["plugins"]["gpu_device_plugin"][0]["settings"]
    where = "config file /config/config.yaml (ConfigMap kube-system/nvidia-device-plugin-configs key default)"
    assert settings["pass_device_specs"] == {"value": False, "source": where + ": flags.plugin.passDeviceSpecs"}
    assert settings["device_list_strategy"] == {"value": ["envvar", "cdi-cri"], "source": where + ": flags.plugin.deviceListStrategy"}
    assert [(f["check"], f["result"]) for f in result["findings"]] == [
        ("gpu_plugin_cpu_manager", "disagree"), ("device_numa", "unknown"), ("dra_device_numa", "disagree"), ("dra_device_numa", "agree")]
    assert result["findings"][1]["message"] == (
        "nvidia-device-plugin %s: the NUMA nodes it advertises to the kubelet are not in the API and PodResources "
        "GetAllocatableResources was not read (give pod_resources_info's allocatable)" % NVDP)
    assert result["versions"] == {"gpu_device_plugin": "v0.18.0"}


AMD_SLICE = "mi300x-1-gpu.amd.com-q8r4t"
AMDDP = "kube-system/amdgpu-device-plugin-daemonset-mi300x-1"


def seed_amd(double):
    """mi300x-1: AMD's device plugin as its health manifest runs it (label name=amdgpu-dp-ds) and a slice of AMD's DRA driver."""
    double.add_node("mi300x-1")
    device_objects.set_node_resources(double, "mi300x-1", {"amd.com/gpu": 8})
    container = C.amd_container(command=["./k8s-device-plugin"], args=["-logtostderr=true", "-stderrthreshold=INFO", "-pulse=10"],
                                name="amdgpu-dp-cntr-health")
    device_objects.add_plugin(double, "amdgpu-device-plugin-daemonset", "kube-system", "mi300x-1", {"name": "amdgpu-dp-ds"}, [container])
    # As ROCm/k8s-gpu-dra-driver deviceinfo.go (c2b31bd) publishes a GPU: pciAddr and pcieRoot, its own uuid, no NUMA attribute.
    gpu = {"type": {"string": "amdgpu"}, "uuid": {"string": "9b2f0c59-1f4e-5a8e-8a1c-3f0c2b7d4e11"}, "pciAddr": {"string": "0000:85:00.0"},
           "productName": {"string": "AMD Instinct MI300X"}, "resource.kubernetes.io/pcieRoot": {"string": "pci0000:80"}}
    double.store.create("resourceslices", device_objects.resource_slice(AMD_SLICE, "mi300x-1", "gpu.amd.com", [
        C.amd_slice_device("gpu-33-160", gpu)]))


def test_an_amd_node_reads_amds_plugin_and_dra_driver_against_the_mi300x_facts(double, kubeconfig, tmp_path):
    seed_amd(double)
    gpus = sorted(C.MI300X_GPUS)
    allocatable = {"cpu_ids": "0-3", "memory": [], "devices": [
        {"resource_name": "amd.com/gpu", "device_ids": [pci], "numa_nodes": [C.MI300X_GPUS[pci]]} for pci in gpus[:7]] + [
        {"resource_name": "amd.com/gpu", "device_ids": [gpus[7]], "numa_nodes": [-1]}]}
    result = run_in_process({"kubeconfig": kubeconfig, "node": "mi300x-1", "topology": C.mi300x_facts(tmp_path), "allocatable": allocatable,
                             "selectors": {"sriov_device_plugin": []}}, check_mode=True)
    assert "failed" not in result, result.get("msg")
    assert [(f["check"], f["result"], f["subject"]) for f in result["findings"]] == [
        ("gpu_plugin_cpu_manager", "agree", "amd-gpu-device-plugin " + AMDDP)] + [
        ("device_numa", "agree", "amd.com/gpu device " + pci) for pci in gpus[:7]] + [
        ("device_numa_unaligned", "disagree", "amd.com/gpu device 0000:e5:00.0"),
        ("dra_device_numa", "unknown", "gpu.amd.com device mi300x-1/gpu-33-160")] + [
        ("dra_device_published", "unknown", "gpu (%s, %s)" % (gpu["uuid"], gpu["pci_address"]))
        for gpu in C.mi300x_facts(tmp_path / "again")["gpus"] if gpu["pci_address"] != "0000:85:00.0"] + [
        # 0000:85:00.0 is in the plugin's allocatable and in the DRA driver's slice (by PCI address: AMD's UUIDs are its own)
        ("device_advertised_twice", "disagree", "gpu.amd.com/mi300x-1/gpu-33-160")]
    shown = result["plugins"]["gpu_device_plugin"][0]
    assert (shown["vendor"], shown["container"], shown["version"], shown["privileged"]) == ("amd", "amdgpu-dp-cntr-health", "1.31.0.9", True)
    assert shown["settings"] == {"resource_naming_strategy": {"value": "single", "source": "default"}, "pulse": {"value": 10, "source": "flag -pulse=10"}}
    assert result["versions"] == {"gpu_device_plugin": "1.31.0.9"}
    assert [(d["driver"], d["name"], d["pci_address"], d["pcie_root"], d["numa_node"]) for d in result["slice_devices"]] == [
        ("gpu.amd.com", "gpu-33-160", "0000:85:00.0", "pci0000:80", None)]
    asked = [path for method, path in double.requests if method == "GET"]
    assert "/api/v1/pods?fieldSelector=spec.nodeName%3Dmi300x-1&labelSelector=name%3Damdgpu-dp-ds&limit=500" in asked


def test_bad_arguments_are_failed_results_naming_the_rule(kubeconfig):
    result = run_in_process({"kubeconfig": kubeconfig, "node": "gpu-1", "oracle": {}, "selectors": {"gpu": ["a=b"]}})
    assert result["failed"] is True
    assert result["msg"] == ("oracle must be the locality_oracle filter's result (a mapping with a devices list); give topology "
                             "(topology_facts) instead to have it built here")
    result = run_in_process({"kubeconfig": kubeconfig, "node": "gpu-1", "oracle": C.oracle(), "selectors": {"gpu": ["a=b"]}})
    assert result["msg"] == "selectors: unknown plugin role 'gpu' (known: gpu_device_plugin, dra_kubelet_plugin, sriov_device_plugin)"
    result = run_in_process({"kubeconfig": kubeconfig, "node": "Bad_Node", "oracle": C.oracle()})
    assert result["failed"] is True and "Bad_Node" in result["msg"]


def test_a_node_the_api_does_not_know_fails_with_the_apis_message(double, kubeconfig):
    result = run_in_process({"kubeconfig": kubeconfig, "node": "gpu-9", "oracle": C.oracle()})
    assert (result["failed"], result["msg"]) == (True, 'nodes "gpu-9" not found')


def test_the_module_file_documents_the_action():
    assert module_file.ARGUMENT_SPEC == action_file.ARGUMENT_SPEC
