"""Unit tests for a pod's DRA devices joined to their ResourceClaim and ResourceSlice (_device_path/dra_claims.py), through
the PodResources reconciliation that calls them (_evidence/podresources/allocations.py).

The objects are as the real components write them: ResourceSlices as NVIDIA's DRA driver publishes a full GPU (``gpu-<minor>``,
``type``, ``uuid``, and the standard ``resource.kubernetes.io/pciBusID`` and ``numaNode``; cmd/gpu-kubelet-plugin deviceinfo.go)
and a MIG device (``gpu-<minor>-mig-<profile>-<id>-<start>``, its own ``uuid``, the parent's ``pciBusID`` and ``numaNode``);
a ResourceClaim's ``status.allocation.devices.results`` (KEP-4381); the pod as pod_resources_info returns PodResources.
"""

import pytest

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._device_path import dra_claims, resource_slices
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._device_path.common import DevicePathError
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence.podresources.allocations import reconcile_allocations
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._plan import locality

NODE = "gpu-1"
GPU0 = "GPU-9c73eb7b-8d6d-6c0e-dc13-97873e2ede40"
GPU1 = "GPU-c92e2d5d-4a69-f1cd-4df0-305f8606705a"
MIG1 = "MIG-d5a46a2e-1d77-575d-99e3-1f96c8555a2e"
FACTS = {"schema_version": 1, "cpus": {"online": "0-31", "isolated": ""},
         "numa_nodes": [{"id": 0, "cpus": "0-7,16-23"}, {"id": 1, "cpus": "8-15,24-31"}],
         "gpus": [{"index": 0, "uuid": GPU0, "pci_address": "0000:07:00.0", "numa_node": 0, "numa_source": "nvidia-smi", "local_cpus": "0-7,16-23"},
                  {"index": 1, "uuid": GPU1, "pci_address": "0000:87:00.0", "numa_node": 1, "numa_source": "nvidia-smi", "local_cpus": "8-15,24-31",
                   "mig_devices": [{"uuid": MIG1}]}],
         "nics": []}


def attrs(**values):
    return {name: ({"int": v} if isinstance(v, int) else {"string": v}) for name, v in values.items()}


def gpu_device(name, uuid, bus, numa):
    device = {"name": name, "attributes": attrs(type="gpu", uuid=uuid)}
    device["attributes"].update({"resource.kubernetes.io/pciBusID": {"string": bus}, "resource.kubernetes.io/numaNode": {"int": numa}})
    return device


SLICE = {"metadata": {"name": "gpu-1-gpu.nvidia.com-x7k2p"},
         "spec": {"driver": "gpu.nvidia.com", "nodeName": NODE, "pool": {"name": NODE, "generation": 1, "resourceSliceCount": 1},
                  "devices": [gpu_device("gpu-0", GPU0, "0000:07:00.0", 0), gpu_device("gpu-1-mig-1g10gb-19-0", MIG1, "0000:87:00.0", 1),
                              {"name": "gpu-2", "attributes": attrs(type="gpu", uuid="GPU-no-numa")}]}}
SLICE_DEVICES = resource_slices.devices([SLICE], NODE)


def claim(name, *devices, namespace="ml"):
    return {"metadata": {"name": name, "namespace": namespace},
            "status": {"allocation": {"devices": {"results": [{"request": "gpu", "driver": "gpu.nvidia.com", "pool": NODE, "device": d}
                                                              for d in devices]}}}}


def pod(cpus, devices=(), claimed=(), memory_nodes=(0,)):
    """A pod-scope pod with one container holding ``cpus``, plugin ``devices`` and DRA ``claimed`` (claim, device) pairs."""
    container = {"name": "main", "cpu_ids": cpus, "memory": [], "devices": [{"resource_name": "nvidia.com/gpu", "device_ids": list(devices)}]
                 if devices else [],
                 "dynamic_resources": [{"claim_name": c, "claim_namespace": "ml", "claim_resources": [
                     {"driver_name": "gpu.nvidia.com", "pool_name": NODE, "device_name": d, "cdi_devices": []}]} for c, d in claimed]}
    return {"name": "trainer", "namespace": "ml", "cpu_ids": cpus, "containers": [container],
            "memory": [{"memory_type": "memory", "size": 1 << 30, "numa_nodes": list(memory_nodes)}]}


def reconcile(the_pod, claims):
    dra = {"claims": claims, "slice_devices": SLICE_DEVICES, "node": NODE}
    return reconcile_allocations([the_pod], "pod", "0-31", oracle=locality.build(FACTS), dra=dra)["pods"][0]


def checks(result):
    return [(f["check"], f["result"]) for f in result["findings"]]


def test_claim_joined_to_its_slice_numa_node_agrees_with_cpus_and_memory():
    result = reconcile(pod("2-3", claimed=[("gpu-claim", "gpu-0")]), [claim("gpu-claim", "gpu-0")])
    (device,) = result["devices"]["main"]
    assert (device["id"], device["claim"], device["request"], device["slice"], device["slice_numa_node"], device["slice_numa_attribute"]) == (
        "gpu.nvidia.com/gpu-1/gpu-0", "ml/gpu-claim", "gpu", "gpu-1-gpu.nvidia.com-x7k2p", 0, "resource.kubernetes.io/numaNode")
    assert (device["kind"], device["uuid"], device["pci_address"], device["numa_node"], device["numa_source"]) == ("gpu", GPU0, "0000:07:00.0", 0, "nvidia-smi")
    assert checks(result) == [("dra_device_numa", "agree"), ("dra_device_memory_numa", "agree")]
    assert result["findings"][0]["message"] == ("pod ml/trainer container main: DRA device gpu.nvidia.com/gpu-1/gpu-0 (claim ml/gpu-claim): on NUMA "
                                                "node 0 (ResourceSlice gpu-1-gpu.nvidia.com-x7k2p resource.kubernetes.io/numaNode); the pod's CPUs are "
                                                "on NUMA node(s) 0")


def test_claim_on_the_other_node_disagrees_and_a_mig_slice_device_maps_to_its_parent():
    result = reconcile(pod("2-3", claimed=[("mig-claim", "gpu-1-mig-1g10gb-19-0")]), [claim("mig-claim", "gpu-1-mig-1g10gb-19-0")])
    (device,) = result["devices"]["main"]
    assert (device["mig_uuid"], device["uuid"], device["numa_node"], device["slice_numa_node"]) == (MIG1, GPU1, 1, 1)
    assert checks(result) == [("dra_device_numa", "disagree"), ("dra_device_memory_numa", "disagree")]
    assert (result["findings"][0]["expected"], result["findings"][0]["observed"]) == ([1], [0])


def test_claim_naming_a_device_no_slice_lists_is_named():
    result = reconcile(pod("2-3", claimed=[("gpu-claim", "gpu-7")]), [claim("gpu-claim", "gpu-7")])
    assert checks(result) == [("dra_slice_device", "disagree")]
    assert result["findings"][0]["message"] == ("pod ml/trainer container main: DRA device gpu.nvidia.com/gpu-1/gpu-7 (claim ml/gpu-claim): no "
                                                "ResourceSlice of node gpu-1 lists device gpu-7 of driver gpu.nvidia.com pool gpu-1; the claim names "
                                                "a device that does not exist there")
    assert result["devices"]["main"][0]["kind"] is None


def test_claim_missing_not_allocated_or_without_numa_are_each_named():
    missing = reconcile(pod("2-3", claimed=[("gone", "gpu-0")]), [])
    assert checks(missing) == [("dra_claim", "unknown")]
    other = reconcile(pod("2-3", claimed=[("gpu-claim", "gpu-0")]), [claim("gpu-claim", "gpu-2")])
    assert checks(other) == [("dra_allocation", "disagree")]
    assert other["findings"][0]["message"] == ("pod ml/trainer container main: DRA device gpu.nvidia.com/gpu-1/gpu-0 (claim ml/gpu-claim): PodResources "
                                               "lists it but the claim's status.allocation.devices.results does not")
    no_numa = reconcile(pod("2-3", claimed=[("gpu-claim", "gpu-2")]), [claim("gpu-claim", "gpu-2")])
    assert checks(no_numa) == [("dra_device_numa", "unknown")]


def test_slice_numa_that_differs_from_the_host_is_named():
    wrong = {"metadata": SLICE["metadata"], "spec": dict(SLICE["spec"], devices=[gpu_device("gpu-0", GPU0, "0000:07:00.0", 1)])}
    dra = {"claims": [claim("gpu-claim", "gpu-0")], "slice_devices": resource_slices.devices([wrong], NODE), "node": NODE}
    result = reconcile_allocations([pod("10-11", claimed=[("gpu-claim", "gpu-0")], memory_nodes=(1,))], "pod", "0-31",
                                   oracle=locality.build(FACTS), dra=dra)["pods"][0]
    assert checks(result)[0] == ("dra_numa_attribute", "disagree")
    assert "ResourceSlice gpu-1-gpu.nvidia.com-x7k2p says NUMA node 1 (resource.kubernetes.io/numaNode), the host's facts say 0 (nvidia-smi)" in (
        result["findings"][0]["message"])


def test_a_device_from_a_plugin_and_a_claim_at_once_is_a_finding():
    result = reconcile(pod("2-3", devices=[GPU0], claimed=[("gpu-claim", "gpu-0")]), [claim("gpu-claim", "gpu-0")])
    twice = [f for f in result["findings"] if f["check"] == "device_advertised_twice"]
    assert len(twice) == 1 and twice[0]["result"] == "disagree"
    assert twice[0]["message"] == ("gpu.nvidia.com/gpu-1/gpu-0 (ResourceSlice gpu-1-gpu.nvidia.com-x7k2p) and device plugin resource nvidia.com/gpu "
                                   "device %s are the same device (UUID %s): one device advertised by two mechanisms at once (pod ml/trainer: "
                                   "PodResources devices and dynamic_resources)" % (GPU0, GPU0))


def test_advertised_twice_by_uuid_and_by_pci_address_but_not_two_mig_devices_of_one_gpu():
    plugin_mig = {"resource_name": "nvidia.com/mig-1g.10gb", "id": "MIG-other", "mig_uuid": "MIG-other", "uuid": GPU1, "pci_address": "0000:87:00.0"}
    plugin_gpu = {"resource_name": "nvidia.com/gpu", "id": "0", "mig_uuid": None, "uuid": GPU1, "pci_address": "0000:87:00.0"}
    mig_slice = SLICE_DEVICES[1]
    assert dra_claims.advertised_twice([plugin_mig], [mig_slice], "x") == []
    (found,) = dra_claims.advertised_twice([plugin_gpu], [mig_slice], "x")
    assert "(PCI address 0000:87:00.0)" in found["message"] and found["subject"] == "gpu.nvidia.com/gpu-1/gpu-1-mig-1g10gb-19-0"


@pytest.mark.parametrize("claims, message", [
    ({"items": []}, "ResourceClaims must be a list (the items of a ResourceClaimList), got dict"),
    ([{"metadata": {"name": "x"}}], "resourceclaims[0] must be a ResourceClaim with metadata.name and metadata.namespace (strings)"),
    ([{"metadata": {"name": "gpu-claim", "namespace": "ml"}, "status": {"allocation": {"devices": {"results": "gpu-0"}}}}],
     "ResourceClaim ml/gpu-claim: status.allocation.devices.results must be a list of mappings, got 'gpu-0'"),
])
def test_claims_of_the_wrong_shape_are_refused_naming_them(claims, message):
    resource = {"driver_name": "gpu.nvidia.com", "pool_name": NODE, "device_name": "gpu-0"}
    with pytest.raises(DevicePathError) as err:
        dra_claims.join({"claim_name": "gpu-claim", "claim_namespace": "ml"}, resource, claims, SLICE_DEVICES)
    assert str(err.value) == message


def sliced(name, generation, count, devices):
    return {"metadata": {"name": name}, "spec": {"driver": "gpu.nvidia.com", "nodeName": NODE,
                                                 "pool": {"name": NODE, "generation": generation, "resourceSliceCount": count}, "devices": devices}}


def test_only_the_newest_generation_of_a_pool_is_read():
    old = sliced("old", 1, 1, [gpu_device("gpu-0", GPU0, "0000:07:00.0", 1)])
    new = sliced("new", 2, 1, [gpu_device("gpu-0", GPU0, "0000:07:00.0", 0)])
    other = dict(sliced("elsewhere", 9, 1, []), spec=dict(sliced("elsewhere", 9, 1, [])["spec"], nodeName="gpu-2"))
    dra = dra_claims.prepare([claim("gpu-claim", "gpu-0")], [old, new, other], NODE)
    assert ([(d["slice"], d["numa_node"]) for d in dra["slice_devices"]], dra["incomplete"]) == ([("new", 0)], {})
    result = reconcile_allocations([pod("2-3", claimed=[("gpu-claim", "gpu-0")])], "pod", "0-31", oracle=locality.build(FACTS), dra=dra)
    assert checks(result["pods"][0]) == [("dra_device_numa", "agree"), ("dra_device_memory_numa", "agree")]


def test_a_device_missing_from_a_pool_with_unpublished_slices_is_unknown():
    dra = dra_claims.prepare([claim("gpu-claim", "gpu-7")], [sliced("part-1", 3, 2, [gpu_device("gpu-0", GPU0, "0000:07:00.0", 0)])], NODE)
    assert dra["incomplete"] == {("gpu.nvidia.com", NODE): (1, 2, 3)}
    result = reconcile_allocations([pod("2-3", claimed=[("gpu-claim", "gpu-7")])], "pod", "0-31", oracle=locality.build(FACTS), dra=dra)["pods"][0]
    assert checks(result) == [("dra_slice_device", "unknown")]
    assert result["findings"][0]["message"] == (
        "pod ml/trainer container main: DRA device gpu.nvidia.com/gpu-1/gpu-7 (claim ml/gpu-claim): not in the 1 of 2 ResourceSlices of "
        "driver gpu.nvidia.com pool gpu-1 (generation 3) that node gpu-1 has; the others are not published, so whether the device exists is unknown")


def test_claims_not_read_leave_each_claim_device_unknown_naming_it():
    result = reconcile_allocations([pod("2-3", claimed=[("gpu-claim", "gpu-0")])], "pod", "0-31", oracle=locality.build(FACTS))["pods"][0]
    (device,) = result["devices"]["main"]
    assert (device["id"], device["claim"], device["dra_unjoined"], device["kind"]) == ("gpu-0", "ml/gpu-claim", True, None)
    assert checks(result) == [("dra_claim", "unknown")]
    assert result["findings"][0]["message"] == ("pod ml/trainer container main: gpu-0 from ResourceClaim ml/gpu-claim was not joined to its "
                                                "claim's allocation or its ResourceSlice (the ResourceClaims and ResourceSlices were not read), "
                                                "so its locality is unknown, not agreement")
