# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Shared cases for the device path tests: a two-node host (topology facts) and plugin pods as the API returns them."""

from __future__ import annotations

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._plan import locality

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
