# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""AMD's device plugin and DRA driver against the facts of the 8x MI300X CPX capture (shared/fixtures/amd, rebuilt as sysfs): exact findings."""

from __future__ import annotations

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._device_path import compare, resource_slices
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._plan import locality
from ansible_collections.gpusmith.numa_gate.tests.unit.plugins.module_utils._device_path import device_path_cases as C

POD = "kube-system/amdgpu-device-plugin-daemonset-x2k9v"
WHO = "the kubelet (PodResources, from amd-gpu-device-plugin %s)" % POD
HOST = "the host's topology facts (locality oracle)"
PARTITION = "(a partition: AMD's plugin gives it the NUMA node of the GPU on its PCI slot, and its ID names no GPU)"
# gather's UUIDs of the capture's GPUs (amd-smi's form, from KFD unique_id and device_id: tests/unit/.../_facts/test_amd.py).
UUID_05 = "e3ff74a1-0000-1000-80aa-140f9a5f9e31"
UUID_27 = "22ff74a1-0000-1000-8050-f807caf2231a"
UUID_85 = "d4ff74a1-0000-1000-8065-af38bcaa89bd"


def _amd_part():
    return {"pod": {"pod": POD}, "vendor": "amd", "container": None, "findings": []}


def _rows(found):
    return [(f["check"], f["result"], f["subject"]) for f in found]


def test_single_naming_gpus_by_pci_address_a_minus_one_node_and_a_name_the_plugin_never_gives(tmp_path):
    oracle = locality.build(C.mi300x_facts(tmp_path))
    ids = sorted(C.MI300X_GPUS)
    allocatable = {"devices": [{"resource_name": "amd.com/gpu", "device_ids": [pci], "numa_nodes": [C.MI300X_GPUS[pci]]} for pci in ids[:6]] + [
        {"resource_name": "amd.com/gpu", "device_ids": [ids[6]], "numa_nodes": [-1]},
        {"resource_name": "amd.com/gpu", "device_ids": [ids[7]], "numa_nodes": [0]},
        {"resource_name": "amd.com/gpu", "device_ids": ["card9"], "numa_nodes": [1]},
        {"resource_name": "nvidia.com/gpu", "device_ids": ["GPU-x"], "numa_nodes": [0]}]}
    result = compare.compare(oracle, {"gpu_device_plugin": [_amd_part()]}, allocatable)
    assert _rows(result["findings"]) == [("device_numa", "agree", "amd.com/gpu device " + pci) for pci in ids[:6]] + [
        ("device_numa_unaligned", "disagree", "amd.com/gpu device 0000:c7:00.0"),
        ("device_numa", "disagree", "amd.com/gpu device 0000:e5:00.0"),
        ("device_name", "unknown", "amd.com/gpu device card9")]
    unaligned, moved, named = result["findings"][6:]
    assert unaligned == {
        "check": "device_numa_unaligned", "result": "disagree", "subject": "amd.com/gpu device 0000:c7:00.0", "expected": 1, "observed": -1,
        "message": "amd.com/gpu device 0000:c7:00.0 (b8ff74a1-0000-1000-80f1-59dcba049de9) is advertised on NUMA node -1 (PodResources "
                   "GetAllocatableResources topology), sysfs' 'no NUMA affinity' passed through; the host puts it on NUMA node 1 (sysfs): the kubelet's "
                   "device manager (generateDeviceTopologyHints) counts a device in a NUMA mask only when one of its nodes is set in it, which -1 never "
                   "is, so under single-numa-node the kubelet cannot align it",
        "sources": {"expected": HOST, "observed": WHO}}
    assert moved["message"] == ("amd.com/gpu device 0000:e5:00.0 (ddff74a1-0000-1000-8019-7ad1b50577f6) is advertised on NUMA node 0 (PodResources "
                                "GetAllocatableResources topology), the host puts it on NUMA node 1 (sysfs)")
    assert (moved["expected"], moved["observed"]) == (1, 0)
    assert named == {
        "check": "device_name", "result": "unknown", "subject": "amd.com/gpu device card9", "expected": "a PCI address or amdgpu_xcp_<n>",
        "observed": "card9", "message": "amd.com/gpu device card9: AMD's device plugin names a GPU by its PCI address and a partition amdgpu_xcp_<n>; "
                                        "card9 is neither, so it is no device of the host's that can be compared",
        "sources": {"expected": "ROCm/k8s-device-plugin internal/pkg/amdgpu GetAMDGPUs", "observed": WHO}}
    assert result["summary"] == {"agree": 6, "disagree": 2, "unknown": 1}


def test_a_minus_one_where_the_host_does_not_know_the_node_either_is_unknown_never_agreement(tmp_path):
    oracle = locality.build(C.mi300x_facts(tmp_path, no_numa=["0000:05:00.0"]))
    allocatable = {"devices": [{"resource_name": "amd.com/gpu", "device_ids": ["0000:05:00.0"], "numa_nodes": [-1]}]}
    found = compare.advertised_numa(oracle, allocatable, list(compare.GPU_PLUGINS["amd"]["resources"]), "amd-gpu-device-plugin " + POD, vendor="amd")
    assert [(f["check"], f["result"], f["expected"], f["observed"]) for f in found] == [("device_numa_unaligned", "unknown", None, -1)]
    assert found[0]["message"] == (
        "amd.com/gpu device 0000:05:00.0 (%s) is advertised on NUMA node -1 (PodResources GetAllocatableResources topology), sysfs' 'no NUMA "
        "affinity' passed through; the host's NUMA node for it is unknown too: the kubelet's device manager (generateDeviceTopologyHints) counts a "
        "device in a NUMA mask only when one of its nodes is set in it, which -1 never is, so under single-numa-node the kubelet cannot align it" % UUID_05)


def test_cpx_partitions_by_platform_device_agree_only_where_every_gpu_is_on_their_node(tmp_path):
    allocatable = {"devices": [
        {"resource_name": "amd.com/cpx_nps1", "device_ids": ["0000:05:00.0"], "numa_nodes": [0]},
        {"resource_name": "amd.com/cpx_nps1", "device_ids": ["amdgpu_xcp_0"], "numa_nodes": [0]},
        {"resource_name": "amd.com/cpx_nps1", "device_ids": ["amdgpu_xcp_55"], "numa_nodes": [1]},
        {"resource_name": "amd.com/cpx_nps1", "device_ids": ["amdgpu_xcp_56"], "numa_nodes": []}]}
    resources = list(compare.GPU_PLUGINS["amd"]["resources"])
    two = compare.advertised_numa(locality.build(C.mi300x_facts(tmp_path / "two")), allocatable, resources, "amd-gpu-device-plugin " + POD, vendor="amd")
    assert [(f["check"], f["result"], f["subject"], f["message"], f["expected"], f["observed"]) for f in two[1:]] == [
        ("device_numa", "unknown", "amd.com/cpx_nps1 device amdgpu_xcp_0",
         "amd.com/cpx_nps1 device amdgpu_xcp_0 %s is advertised on NUMA node 0; the host's GPUs are on NUMA nodes 0, 1, so which GPU's node it "
         "carries cannot be told" % PARTITION, [0, 1], 0),
        ("device_numa", "unknown", "amd.com/cpx_nps1 device amdgpu_xcp_55",
         "amd.com/cpx_nps1 device amdgpu_xcp_55 %s is advertised on NUMA node 1; the host's GPUs are on NUMA nodes 0, 1, so which GPU's node it "
         "carries cannot be told" % PARTITION, [0, 1], 1),
        ("device_numa", "unknown", "amd.com/cpx_nps1 device amdgpu_xcp_56",
         "amd.com/cpx_nps1 device amdgpu_xcp_56 %s is advertised with no NUMA node: a device without NUMA is never agreement" % PARTITION, None, None)]
    assert _rows(two[:1]) == [("device_numa", "agree", "amd.com/cpx_nps1 device 0000:05:00.0")]
    # The same GPUs all on CPU node 0: a partition on node 0 agrees, one on node 1 is where no GPU is.
    one = compare.advertised_numa(locality.build(C.mi300x_facts(tmp_path / "one", dict.fromkeys(C.MI300X_GPUS, 0))), allocatable, resources,
                                  "amd-gpu-device-plugin " + POD, vendor="amd")
    assert [(f["result"], f["message"], f["expected"], f["observed"]) for f in one[1:3]] == [
        ("agree", "amd.com/cpx_nps1 device amdgpu_xcp_0 %s is advertised on NUMA node 0, where every GPU of the host is" % PARTITION, 0, 0),
        ("disagree", "amd.com/cpx_nps1 device amdgpu_xcp_55 %s is advertised on NUMA node 1, where the host has no GPU (its GPUs are on NUMA "
         "nodes 0)" % PARTITION, [0], 1)]


def test_amd_dra_slice_is_joined_to_the_facts_gpus_by_pciaddr_and_a_partition_by_parentpciaddr(tmp_path):
    oracle = locality.build(C.mi300x_facts(tmp_path))
    # As ROCm/k8s-gpu-dra-driver cmd/gpu-kubeletplugin/deviceinfo.go (c2b31bd) writes them: its own uuid, pciAddr, no NUMA attribute.
    gpu = {"type": {"string": "amdgpu"}, "uuid": {"string": "9b2f0c59-1f4e-5a8e-8a1c-3f0c2b7d4e11"}, "pciAddr": {"string": "0000:05:00.0"},
           "cardIndex": {"int": 1}, "renderIndex": {"int": 128}, "deviceID": {"string": "0x74a1"}, "productName": {"string": "AMD Instinct MI300X"},
           "driverVersion": {"version": "6.12.12"}, "partitionProfile": {"string": "cpx_nps1"},
           "resource.kubernetes.io/pcieRoot": {"string": "pci0000:00"}}
    other = dict(gpu, uuid={"string": "0c1d2e3f-0000-5000-8000-000000000085"}, pciAddr={"string": "0000:85:00.0"})
    part = {"type": {"string": "amdgpu-partition"}, "uuid": {"string": "5d9e7a10-7c1b-5b0e-9f3a-2a1b0c9d8e27"}, "parentPciAddr": {"string": "0000:27:00.0"},
            "cardIndex": {"int": 10}, "renderIndex": {"int": 137}, "partitionProfile": {"string": "cpx_nps1"}}
    slices = [C.resource_slice([C.amd_slice_device("gpu-1-128", gpu), C.amd_slice_device("gpu-10-137", part), C.amd_slice_device("gpu-33-160", other)],
                               driver="gpu.amd.com", name="gpu-1-gpu.amd.com-q8r4t")]
    devices = resource_slices.devices(slices, "gpu-1")
    assert [(d["name"], d["pci_address"], d["parent_pci_address"], d["pcie_root"], d["numa_node"], d["numa_attribute"], d["driver_version"])
            for d in devices] == [("gpu-1-128", "0000:05:00.0", None, "pci0000:00", None, None, "6.12.12"),
                                  ("gpu-10-137", None, "0000:27:00.0", None, None, None, None),
                                  ("gpu-33-160", "0000:85:00.0", None, "pci0000:00", None, None, "6.12.12")]
    result = compare.compare(oracle, {"slice_devices": devices})
    assert _rows(result["findings"]) == [
        ("dra_device_numa", "unknown", "gpu.amd.com device gpu-1/gpu-1-128"),
        ("dra_device_numa", "unknown", "gpu.amd.com device gpu-1/gpu-10-137"),
        ("dra_device_numa", "unknown", "gpu.amd.com device gpu-1/gpu-33-160")] + [
        ("dra_device_published", "unknown", "gpu (%s, %s)" % (uuid, pci)) for uuid, pci in (
            ("d8ff74a1-0000-1000-8002-d560d4ba851d", "0000:47:00.0"), ("a7ff74a1-0000-1000-8007-57a01276547a", "0000:65:00.0"),
            ("bdff74a1-0000-1000-805b-5286da906cea", "0000:a7:00.0"), ("b8ff74a1-0000-1000-80f1-59dcba049de9", "0000:c7:00.0"),
            ("ddff74a1-0000-1000-8019-7ad1b50577f6", "0000:e5:00.0"))]
    assert [f["message"] for f in result["findings"][:3]] == [
        "gpu.amd.com device gpu-1/gpu-1-128 (%s, 0000:05:00.0) is advertised with no NUMA node (ResourceSlice gpu-1-gpu.amd.com-q8r4t, no NUMA "
        "attribute); the host puts it on NUMA node 0 (sysfs): a device without NUMA is never agreement" % UUID_05,
        "gpu.amd.com device gpu-1/gpu-10-137 (%s, 0000:27:00.0) is advertised with no NUMA node (ResourceSlice gpu-1-gpu.amd.com-q8r4t, no NUMA "
        "attribute); the host puts it on NUMA node 0 (sysfs): a device without NUMA is never agreement" % UUID_27,
        "gpu.amd.com device gpu-1/gpu-33-160 (%s, 0000:85:00.0) is advertised with no NUMA node (ResourceSlice gpu-1-gpu.amd.com-q8r4t, no NUMA "
        "attribute); the host puts it on NUMA node 1 (sysfs): a device without NUMA is never agreement" % UUID_85]
    # A slice that publishes the GPUs is the GPU path: no gpu_path finding though no device plugin runs.
    assert "gpu_path" not in [f["check"] for f in result["findings"]]


def test_an_amd_host_with_no_plugin_and_no_slice_names_both_vendors(tmp_path):
    result = compare.compare(locality.build(C.mi300x_facts(tmp_path)), {})
    assert [(f["check"], f["message"]) for f in result["findings"]] == [
        ("gpu_path", "the host has 8 GPUs but no GPU device plugin pod (NVIDIA's or AMD's) runs on this node and no ResourceSlice of it publishes "
                     "one of them: the GPU path is not identified")]
