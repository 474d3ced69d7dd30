# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Shared cases for the device path tests: a two-node host (topology facts) and plugin pods as the API returns them."""

from __future__ import annotations

import os

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts.gather import gather
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._plan import locality
from ansible_collections.gpusmith.numa_gate.tests.unit.plugins.module_utils._facts import amd_trees

GPU0 = {"index": 0, "uuid": "GPU-0a1b2c3d-0000-0000-0000-000000000000", "pci_address": "0000:17:00.0", "name": "NVIDIA H200",
        "sysfs_numa_node": 0, "numa_node": 0, "numa_source": "sysfs", "local_cpus": "0-7,16-23", "vendor_affinity": None}
GPU1 = {"index": 1, "uuid": "GPU-0a1b2c3d-1111-1111-1111-111111111111", "pci_address": "0000:9a:00.0", "name": "NVIDIA H200",
        "sysfs_numa_node": 1, "numa_node": 1, "numa_source": "sysfs", "local_cpus": "8-15,24-31", "vendor_affinity": None}
VF = {"name": "ens5f0v0", "pci_address": "0000:ca:00.2", "driver": "mlx5_core", "sysfs_numa_node": 1, "numa_node": 1,
      "numa_source": "sysfs", "local_cpus": "8-15,24-31", "rdma_devices": ["mlx5_2"], "virtual_function": True}
DEVICE_PLUGIN_IMAGE = "registry.example:5000/nvidia/k8s-device-plugin:v0.18.0"


def facts():
    """Topology facts (schema v1) of a host with two NUMA nodes, a GPU on each, and an SR-IOV VF on node 1."""
    return {"schema_version": 1, "cpus": {"online": "0-31", "isolated": ""},
            "numa_nodes": [{"id": 0, "cpus": "0-7,16-23"}, {"id": 1, "cpus": "8-15,24-31"}],
            "gpus": [dict(GPU0), dict(GPU1)], "nics": [dict(VF)]}


def oracle():
    """The locality oracle of `facts`."""
    return locality.build(facts())


def pod(name, containers, namespace="kube-system", node="gpu-1", phase="Running", volumes=None, owner="nvidia-device-plugin-daemonset",
        labels=None, image_ids=None):
    """A Pod as the API returns it, owned by the DaemonSet ``owner``."""
    return {"metadata": {"name": name, "namespace": namespace, "labels": dict(labels or {}),
                         "ownerReferences": [{"apiVersion": "apps/v1", "kind": "DaemonSet", "name": owner, "uid": "u-1", "controller": True}]},
            "spec": {"nodeName": node, "containers": containers, "volumes": volumes or []},
            "status": {"phase": phase, "containerStatuses": [{"name": c["name"], "imageID": (image_ids or {}).get(c["name"], "")} for c in containers]}}


def nvidia_container(env=None, args=None, privileged=True, image=DEVICE_PLUGIN_IMAGE, name="nvidia-device-plugin-ctr"):
    """The NVIDIA device plugin container (env as a mapping of name to value)."""
    container = {"name": name, "image": image, "env": [{"name": k, "value": v} for k, v in (env or {}).items()]}
    if args is not None:
        container["args"] = list(args)
    if privileged is not None:
        container["securityContext"] = {"privileged": privileged}
    return container


def slice_device(name, uuid, pci, numa=None, numa_name="resource.kubernetes.io/numaNode"):
    """A ResourceSlice device of NVIDIA's GPU DRA driver (attributes as in its deviceinfo.go), NUMA added when given."""
    attributes = {"type": {"string": "gpu"}, "uuid": {"string": uuid}, "productName": {"string": "NVIDIA H200"},
                  "driverVersion": {"version": "580.95.5"}, "resource.kubernetes.io/pciBusID": {"string": pci},
                  "resource.kubernetes.io/pcieRoot": {"string": "pci0000:%s" % pci.split(":")[1]}}
    if numa is not None:
        attributes[numa_name] = {"int": numa} if isinstance(numa, int) else {"ints": list(numa)}
    return {"name": name, "attributes": attributes}


def resource_slice(devices, node="gpu-1", driver="gpu.nvidia.com", name="gpu-1-gpu.nvidia.com-x7k2p"):
    """A resource.k8s.io/v1 ResourceSlice as the API returns it."""
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": name},
            "spec": {"driver": driver, "nodeName": node, "pool": {"name": node, "generation": 1, "resourceSliceCount": 1}, "devices": devices}}


# 8x MI300X in CPX (tests/unit/.../_facts/test_amd.py): the KFD dump of shared/fixtures/amd rebuilt as sysfs, GPU -> CPU node from its header.
MI300X = "kfd-topology_8x-mi300x-cpx-63-partitions-2numa_k8s-device-plugin-testdata.txt"
MI300X_GPUS = dict(("0000:%s:00.0" % bus, 0 if i < 4 else 1) for i, bus in enumerate(("05", "27", "47", "65", "85", "a7", "c7", "e5")))
AMD_PLUGIN_IMAGE = "registry.example/rocm/k8s-device-plugin:1.31.0.9"


def mi300x_facts(tmp_path, gpus=None, no_numa=()):
    """Topology facts (gather, sysfs) of the 8x MI300X CPX capture; ``gpus`` overrides the GPU -> CPU node map, ``no_numa`` GPUs read -1."""
    root = amd_trees.build_host(tmp_path, MI300X, gpus or MI300X_GPUS, {0: [0, 1], 1: [2, 3]}, "0x120000",
                                extra={"current_compute_partition": "CPX\n"})
    for address in no_numa:
        amd_trees.write(os.path.join(root, "sys/devices/pci%s:00" % address[:4], address, "numa_node"), "-1\n")
    return gather(root, gpu_source="sysfs")


def amd_container(args=None, command=None, name="amdgpu-dp-cntr", image=AMD_PLUGIN_IMAGE):
    """The AMD device plugin container as ROCm/k8s-device-plugin's manifests write it (privileged, args only where given)."""
    container = {"name": name, "image": image, "securityContext": {"privileged": True, "capabilities": {"drop": ["ALL"]}}}
    if command is not None:
        container["command"] = list(command)
    if args is not None:
        container["args"] = list(args)
    return container


def amd_slice_device(name, attributes):
    """A ResourceSlice device of AMD's DRA driver (gpu.amd.com): ``attributes`` as its deviceinfo.go writes them, unqualified."""
    return {"name": name, "attributes": attributes}
