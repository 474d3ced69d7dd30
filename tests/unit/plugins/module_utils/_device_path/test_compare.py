# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The device path against the locality oracle: each Must-show case an exact finding (compare.py, pure)."""

from __future__ import annotations

import pytest

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._device_path import compare, pods, resource_slices
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._device_path.common import DevicePathError
from ansible_collections.gpusmith.numa_gate.tests.unit.plugins.module_utils._device_path import device_path_cases as C

SLICE = "gpu-1-gpu.nvidia.com-x7k2p"


def _slice_devices(*devices):
    return resource_slices.devices([C.resource_slice(list(devices))], "gpu-1")


def test_dra_slice_whose_gpu_numa_differs_from_the_host_is_a_disagree_naming_device_and_both_nodes():
    devices = _slice_devices(C.slice_device("gpu-0", C.GPU0["uuid"], "0000:17:00.0", 1))
    (found,) = compare.dra_numa(C.oracle(), devices)[:1]
    assert found == {
        "check": "dra_device_numa", "result": "disagree", "subject": "gpu.nvidia.com device gpu-1/gpu-0",
        "message": "gpu.nvidia.com device gpu-1/gpu-0 (GPU-0a1b2c3d-0000-0000-0000-000000000000, 0000:17:00.0) is advertised on NUMA node 1 "
                   "(ResourceSlice %s, resource.kubernetes.io/numaNode), the host puts it on NUMA node 0 (sysfs)" % SLICE,
        "expected": 0, "observed": 1,
        "sources": {"expected": "the host's topology facts (locality oracle)", "observed": "ResourceSlice %s" % SLICE}}


def test_dra_gpu_published_without_numa_is_unknown_never_agreement():
    devices = _slice_devices(C.slice_device("gpu-1", C.GPU1["uuid"], "0000:9a:00.0"))
    found = compare.dra_numa(C.oracle(), devices)
    assert [(f["check"], f["result"], f["message"]) for f in found] == [
        ("dra_device_numa", "unknown", "gpu.nvidia.com device gpu-1/gpu-1 (GPU-0a1b2c3d-1111-1111-1111-111111111111, 0000:9a:00.0) is advertised "
         "with no NUMA node (ResourceSlice %s, no NUMA attribute); the host puts it on NUMA node 1 (sysfs): a device without NUMA is never "
         "agreement" % SLICE),
        ("dra_device_published", "unknown", "host GPU (GPU-0a1b2c3d-0000-0000-0000-000000000000, 0000:17:00.0) is in no ResourceSlice of "
         "gpu.nvidia.com on this node")]


def test_dra_numa_list_compares_its_first_node_and_an_equal_node_agrees():
    devices = _slice_devices(C.slice_device("gpu-0", C.GPU0["uuid"], "0000:17:00.0", [0, 1]),
                             C.slice_device("gpu-1", C.GPU1["uuid"], "0000:9a:00.0", 1, numa_name="numa"))
    found = compare.dra_numa(C.oracle(), devices)
    assert [(f["result"], f["expected"], f["observed"]) for f in found] == [("agree", 0, 0), ("agree", 1, 1)]
    assert found[1]["message"] == ("gpu.nvidia.com device gpu-1/gpu-1 (GPU-0a1b2c3d-1111-1111-1111-111111111111, 0000:9a:00.0) is advertised on "
                                   "NUMA node 1 (ResourceSlice %s, gpu.nvidia.com/numa), as the host has it" % SLICE)


def test_a_published_minus_one_is_no_numa_and_an_unknown_device_is_named():
    devices = _slice_devices(C.slice_device("gpu-9", "GPU-ffffffff-0000-0000-0000-000000000000", "0000:b1:00.0", -1))
    assert devices[0]["numa_node"] is None and devices[0]["numa_nodes"] == []
    (found,) = compare.dra_numa(C.oracle(), devices)
    assert (found["result"], found["message"]) == ("unknown", "gpu.nvidia.com device gpu-1/gpu-9 is not among the host's GPUs and NICs "
                                                   "(topology facts): its locality cannot be compared")


def test_device_plugin_advertising_no_numa_is_an_unknown_finding_per_device():
    allocatable = {"devices": [{"resource_name": "nvidia.com/gpu", "device_ids": [C.GPU0["uuid"]], "numa_nodes": []},
                               {"resource_name": "nvidia.com/gpu", "device_ids": [C.GPU1["uuid"] + "::3"], "numa_nodes": [1]},
                               {"resource_name": "example.com/other", "device_ids": ["x"], "numa_nodes": []}]}
    found = compare.advertised_numa(C.oracle(), allocatable, list(compare.GPU_RESOURCES), "nvidia-device-plugin kube-system/p")
    assert [(f["check"], f["result"], f["subject"], f["message"]) for f in found] == [
        ("device_numa", "unknown", "nvidia.com/gpu device GPU-0a1b2c3d-0000-0000-0000-000000000000",
         "nvidia.com/gpu device GPU-0a1b2c3d-0000-0000-0000-000000000000 (0000:17:00.0) is advertised with no NUMA node (PodResources "
         "GetAllocatableResources topology); the host puts it on NUMA node 0 (sysfs): a device without NUMA is never agreement"),
        ("device_numa", "agree", "nvidia.com/gpu device GPU-0a1b2c3d-1111-1111-1111-111111111111::3",
         "nvidia.com/gpu device GPU-0a1b2c3d-1111-1111-1111-111111111111::3 (0000:9a:00.0) is advertised on NUMA node 1 (PodResources "
         "GetAllocatableResources topology), as the host has it")]


def test_device_plugin_numa_read_nowhere_is_unknown_and_an_index_id_maps_by_index():
    (found,) = compare.advertised_numa(C.oracle(), None, list(compare.GPU_RESOURCES), "nvidia-device-plugin kube-system/p")
    assert (found["result"], found["message"]) == ("unknown", "nvidia-device-plugin kube-system/p: the NUMA nodes it advertises to the kubelet "
                                                   "are not in the API and PodResources GetAllocatableResources was not read (give "
                                                   "pod_resources_info's allocatable)")
    allocatable = {"devices": [{"resource_name": "nvidia.com/gpu", "device_ids": ["1"], "numa_nodes": [0]}]}
    (found,) = compare.advertised_numa(C.oracle(), allocatable, list(compare.GPU_RESOURCES), "p", id_strategy="index")
    assert (found["result"], found["expected"], found["observed"]) == ("disagree", 1, 0)
    assert found["message"] == ("nvidia.com/gpu device 1 (GPU-0a1b2c3d-1111-1111-1111-111111111111, 0000:9a:00.0) is advertised on NUMA node 0 "
                                "(PodResources GetAllocatableResources topology), the host puts it on NUMA node 1 (sysfs)")


def test_sriov_vf_by_pci_address_and_an_empty_kubelet_list_is_named():
    allocatable = {"devices": [{"resource_name": "nvidia.com/mlnx_sriov_rdma", "device_ids": ["0000:ca:00.2"], "numa_nodes": [0]}]}
    (found,) = compare.advertised_numa(C.oracle(), allocatable, ["nvidia.com/mlnx_sriov_rdma"], "sriov-network-device-plugin kube-system/s")
    assert (found["result"], found["message"]) == ("disagree", "nvidia.com/mlnx_sriov_rdma device 0000:ca:00.2 is advertised on NUMA node 0 "
                                                   "(PodResources GetAllocatableResources topology), the host puts it on NUMA node 1 (sysfs)")
    (found,) = compare.advertised_numa(C.oracle(), {"devices": []}, ["nvidia.com/mlnx_sriov_rdma"], "s")
    assert found["message"] == "s: the kubelet lists no device of nvidia.com/mlnx_sriov_rdma (PodResources GetAllocatableResources)"


def test_host_gpus_with_no_plugin_and_no_slice_are_an_unknown_gpu_path():
    result = compare.compare(C.oracle(), {})
    assert result["findings"] == [{
        "check": "gpu_path", "result": "unknown", "subject": "gpu path", "expected": "a device plugin or a DRA driver", "observed": None,
        "message": "the host has 2 GPUs but no GPU device plugin pod (NVIDIA's or AMD's) runs on this node and no ResourceSlice of it publishes one of them: "
                   "the GPU path is not identified",
        "sources": {"expected": "the host's topology facts (locality oracle)", "observed": "the plugin pods and ResourceSlices read"}}]
    assert result["summary"] == {"agree": 0, "disagree": 0, "unknown": 1} and result["versions"] == {}


def test_versions_are_the_image_tags_and_the_running_digest():
    gpu = pods.describe(C.pod("p", [C.nvidia_container()], image_ids={"nvidia-device-plugin-ctr": "registry.example/x@sha256:" + "ab" * 32}))
    sriov_pod = pods.describe(C.pod("s", [{"name": "kube-sriovdp", "image": "registry.example/sriov-network-device-plugin:v3.9.0"}]))
    parts = {"gpu_device_plugin": [{"pod": gpu, "container": gpu["containers"][0]}],
             "sriov_device_plugin": [{"pod": sriov_pod, "container": sriov_pod["containers"][0]}]}
    assert compare.versions(parts) == {"gpu_device_plugin": "v0.18.0@sha256:" + "ab" * 32, "sriov_device_plugin": "v3.9.0"}


def test_compare_refuses_what_is_not_an_oracle_and_a_malformed_allocatable():
    with pytest.raises(DevicePathError, match=r"^the device path is compared with a locality oracle \(locality_oracle: a mapping with devices\), "
                                              r"got list$"):
        compare.compare([], {})
    with pytest.raises(DevicePathError, match=r"^allocatable.devices\[0\] must have resource_name \(a string\) and device_ids \(a list\)$"):
        compare.advertised_numa(C.oracle(), {"devices": [{"resource_name": "nvidia.com/gpu"}]}, list(compare.GPU_RESOURCES), "p")
