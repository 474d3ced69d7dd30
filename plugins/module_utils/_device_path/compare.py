# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The device path against the host: what the plugins and DRA drivers advertise, compared with the locality oracle (pure).

Public: `compare`, `versions`, `advertised_numa`, `dra_numa`.

The host's side is the locality oracle (`_plan.locality.build` over topology facts): each GPU and NIC
with its UUID, PCI address and NUMA node. The advertised side is:

- for a device plugin (NVIDIA's, SR-IOV's), the NUMA nodes it gave the kubelet with each device, which
  the API does not carry: they come from the kubelet's PodResources ``GetAllocatableResources``
  (``ContainerDevices.topology``, as `pod_resources_info` returns it in ``allocatable.devices``).
  NVIDIA's plugin sets a device's topology only when sysfs gives it a NUMA node
  (NVIDIA/k8s-device-plugin internal/rm/devices.go, nvml_devices.go GetNumaNode); device IDs are GPU
  UUIDs (``DEVICE_ID_STRATEGY`` uuid) or indexes, with ``::<n>`` added for a shared replica
  (internal/rm/devices.go AnnotatedID); the SR-IOV plugin's IDs are PCI addresses. AMD's plugin names a GPU by
  its PCI address and a partition ``amdgpu_xcp_<n>``, and passes sysfs' -1 through as node -1 (`amd_plugin`):
  -1 is ``device_numa_unaligned``, a name of neither form ``device_name``; a partition's ID names no GPU, so
  its node agrees only where every host GPU is on that node;
- for a DRA driver, each ResourceSlice device's NUMA attribute (`resource_slices`); AMD's (``gpu.amd.com``)
  publishes none, and a partition is joined to its GPU by ``parentPciAddr``.

Rules: a device advertised with no NUMA node is ``unknown``, never agreement; a NUMA node that differs
from the host's is ``disagree`` naming the device, the advertised and the host's node; a device the
host's facts do not list is ``unknown``; a plugin whose advertised NUMA nodes were not read is
``unknown`` (the API alone cannot show them). Equal values are ``agree``. A device a device plugin lists that a
ResourceSlice also lists (same UUID or PCI function) is ``device_advertised_twice`` (`dra_claims.advertised_twice`).
"""

from __future__ import annotations

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._device_path import amd_plugin
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._device_path import devices as _devices
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._device_path import dra_claims
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._device_path.common import DevicePathError, finding

# NVIDIA's plugin names: nvidia.com/gpu, nvidia.com/gpu.shared (time-slicing renameByDefault), nvidia.com/mig-<profile>
# (MIG_STRATEGY mixed) (NVIDIA/k8s-device-plugin README); a Mellanox SR-IOV pool may also live under nvidia.com/, so no wider prefix.
GPU_RESOURCES = ("nvidia.com/gpu", "nvidia.com/gpu.shared", "nvidia.com/mig-*")
# Per GPU vendor: its device plugin's resource names and how its findings name it (`read` tells a pod's vendor).
GPU_PLUGINS = {
    "nvidia": {"resources": GPU_RESOURCES, "subject": "nvidia-device-plugin"},
    "amd": {"resources": amd_plugin.RESOURCES, "subject": "amd-gpu-device-plugin"},
}
_HINTS = "the kubelet's device manager (generateDeviceTopologyHints) counts a device in a NUMA mask only when one of its nodes is set in it"
_HOST = "the host's topology facts (locality oracle)"


def _label(device, subject=""):
    """`` (uuid, pci address)`` of a host device, leaving out what ``subject`` already names."""
    parts = [p for p in (device.get("uuid"), device.get("pci_address")) if p and p not in subject]
    return " (%s)" % ", ".join(parts) if parts else ""


def _host_node(device):
    return "NUMA node %s (%s)" % (device["numa_node"], device.get("numa_source") or "facts")


def _by_index(oracle, device_id):
    for device in (oracle or {}).get("devices", []):
        if device.get("kind") == "gpu" and device.get("index") is not None and str(device["index"]) == device_id:
            return dict(device, resource_name=None, id=device_id)
    return None


def _judge(check, subject, host, advertised, how, source):
    """agree / disagree / unknown for one device: ``host`` the oracle entry (or None), ``advertised`` its NUMA nodes."""
    sources = {"expected": _HOST, "observed": source}
    if host is None or host.get("kind") is None:
        return finding(check, "unknown", subject, "%s is not among the host's GPUs and NICs (topology facts): its locality cannot be compared"
                       % subject, None, advertised or None, sources)
    if not advertised:
        return finding(check, "unknown", subject, "%s%s is advertised with no NUMA node (%s); the host puts it on %s: a device without "
                       "NUMA is never agreement" % (subject, _label(host, subject), how, _host_node(host)), host["numa_node"], None, sources)
    if host.get("numa_node") is None:
        return finding(check, "unknown", subject, "%s%s is advertised on NUMA node %s (%s) but the host's NUMA node for it is unknown"
                       % (subject, _label(host, subject), ",".join(str(n) for n in advertised), how), None, advertised[0], sources)
    if advertised[0] != host["numa_node"] or (len(advertised) > 1 and how.startswith("PodResources")):
        return finding(check, "disagree", subject, "%s%s is advertised on NUMA node %s (%s), the host puts it on %s"
                       % (subject, _label(host, subject), ",".join(str(n) for n in advertised), how, _host_node(host)),
                       host["numa_node"], advertised[0] if len(advertised) == 1 else advertised, sources)
    return finding(check, "agree", subject, "%s%s is advertised on NUMA node %s (%s), as the host has it" % (
        subject, _label(host, subject), advertised[0], how), host["numa_node"], advertised[0], sources)


def _unaligned(subject, host, nodes, source):
    """A device advertised on NUMA node -1 (AMD's plugin passes sysfs' -1 through): the Topology Manager cannot align it."""
    known = host is not None and host.get("kind") is not None and host.get("numa_node") is not None
    where = "the host puts it on %s" % _host_node(host) if known else "the host's NUMA node for it is unknown too"
    return finding("device_numa_unaligned", "disagree" if known else "unknown", subject, "%s%s is advertised on NUMA node %s (PodResources "
                   "GetAllocatableResources topology), sysfs' 'no NUMA affinity' passed through; %s: %s, which -1 never is, so under "
                   "single-numa-node the kubelet cannot align it" % (subject, _label(host or {}, subject), ",".join(str(n) for n in nodes), where,
                                                                     _HINTS), host["numa_node"] if known else None, -1,
                   {"expected": _HOST, "observed": source})


def _partition(oracle, subject, nodes, source):
    """An AMD partition (``amdgpu_xcp_<n>``): its ID names no GPU, so its node is compared with the node of every host GPU."""
    sources = {"expected": _HOST, "observed": source}
    gpus = sorted({d["numa_node"] for d in oracle.get("devices", []) if d.get("kind") == "gpu"}, key=lambda n: (n is None, n))
    said = "%s (a partition: AMD's plugin gives it the NUMA node of the GPU on its PCI slot, and its ID names no GPU)" % subject
    if not nodes:
        return finding("device_numa", "unknown", subject, "%s is advertised with no NUMA node: a device without NUMA is never agreement"
                       % said, None, None, sources)
    host_nodes = ", ".join("unknown" if n is None else str(n) for n in gpus) or "none"
    if gpus == [nodes[0]]:
        return finding("device_numa", "agree", subject, "%s is advertised on NUMA node %s, where every GPU of the host is" % (said, nodes[0]),
                       nodes[0], nodes[0], sources)
    if None not in gpus and nodes[0] not in gpus:
        return finding("device_numa", "disagree", subject, "%s is advertised on NUMA node %s, where the host has no GPU (its GPUs are on "
                       "NUMA nodes %s)" % (said, nodes[0], host_nodes), gpus, nodes[0], sources)
    return finding("device_numa", "unknown", subject, "%s is advertised on NUMA node %s; the host's GPUs are on NUMA nodes %s, so which "
                   "GPU's node it carries cannot be told" % (said, nodes[0], host_nodes), gpus, nodes[0], sources)


def _one_device(oracle, name, device_id, nodes, who, id_strategy, vendor):
    """The finding for one device the kubelet lists (see `advertised_numa`)."""
    base = str(device_id).split("::", 1)[0]
    subject = "%s device %s" % (name, device_id)
    source = "the kubelet (PodResources, from %s)" % who
    if vendor == "amd" and amd_plugin.device_kind(base) is None:
        return finding("device_name", "unknown", subject, "%s: AMD's device plugin names a GPU by its PCI address and a partition "
                       "amdgpu_xcp_<n>; %s is neither, so it is no device of the host's that can be compared" % (subject, base),
                       "a PCI address or amdgpu_xcp_<n>", base, {"expected": "ROCm/k8s-device-plugin internal/pkg/amdgpu GetAMDGPUs",
                                                                 "observed": source})
    if vendor == "amd" and amd_plugin.device_kind(base) == "partition" and -1 not in nodes:
        return _partition(oracle, subject, nodes, source)
    host = _by_index(oracle, base) if id_strategy == "index" and base.isdigit() else None
    host = host or _devices.map_device(name, base, oracle)
    if -1 in nodes:
        return _unaligned(subject, host, nodes, source)
    return _judge("device_numa", subject, host, nodes, "PodResources GetAllocatableResources topology", source)


def advertised_numa(oracle, allocatable, resources, who, id_strategy="uuid", vendor=None):
    """Findings for each device of ``resources`` (exact names, or names ending in ``*`` as prefixes) that the kubelet lists
    in ``allocatable`` (PodResources GetAllocatableResources), or one unknown finding when it was not read. ``vendor``
    ``amd`` reads device IDs as AMD's plugin gives them (`amd_plugin.device_kind`)."""
    if allocatable is None:
        return [finding("device_numa", "unknown", who, "%s: the NUMA nodes it advertises to the kubelet are not in the API and "
                        "PodResources GetAllocatableResources was not read (give pod_resources_info's allocatable)" % who,
                        None, None, {"observed": "nothing read"})]
    groups = allocatable.get("devices") if isinstance(allocatable, dict) else None
    if not isinstance(groups, list):
        raise DevicePathError("allocatable must be PodResources GetAllocatableResources (pod_resources_info's allocatable: a mapping with "
                              "a devices list), got %r" % (type(allocatable).__name__,))
    out = []
    for index, group in enumerate(groups):
        if not isinstance(group, dict) or not isinstance(group.get("resource_name"), str) or not isinstance(group.get("device_ids"), list):
            raise DevicePathError("allocatable.devices[%d] must have resource_name (a string) and device_ids (a list)" % index)
        name = group["resource_name"]
        if not any(name == r or (r.endswith("*") and name.startswith(r[:-1])) for r in resources):
            continue
        nodes = sorted(group.get("numa_nodes") or [])
        for device_id in group["device_ids"]:
            out.append(_one_device(oracle, name, device_id, nodes, who, id_strategy, vendor))
    if not out:
        out.append(finding("device_numa", "unknown", who, "%s: the kubelet lists no device of %s (PodResources GetAllocatableResources)"
                           % (who, ", ".join(resources)), None, None, {"observed": "PodResources GetAllocatableResources"}))
    return out


def _dra_host(oracle, device):
    """The host device a slice device is, or is a partition of (``parent_pci_address``); by UUID, else by PCI address."""
    for host in (oracle or {}).get("devices", []):
        if device["uuid"] and host.get("uuid") and host["uuid"].lower() == device["uuid"].lower():
            return host
        if device["pci_address"] and host.get("pci_address") == device["pci_address"]:
            return host
        if device.get("parent_pci_address") and host.get("pci_address") == device["parent_pci_address"]:
            return host
    return None


def dra_numa(oracle, slice_devices):
    """Findings for each ResourceSlice device (`resource_slices.devices`), and for host GPUs a GPU driver does not publish."""
    out, matched, gpu_drivers = [], set(), set()
    for device in slice_devices:
        host = _dra_host(oracle, device)
        subject = "%s device %s/%s" % (device["driver"], device["pool"], device["name"])
        how = device["numa_attribute"] or "no NUMA attribute"
        out.append(_judge("dra_device_numa", subject, host, device["numa_nodes"], "ResourceSlice %s, %s" % (device["slice"], how),
                          "ResourceSlice %s" % device["slice"]))
        if host is None:
            continue
        matched.add(host.get("pci_address"))
        if host.get("kind") == "gpu":
            gpu_drivers.add(device["driver"])
        if device["pci_address"] and host.get("pci_address") and device["pci_address"] != host["pci_address"]:
            out.append(finding("dra_device_identity", "disagree", subject, "%s: published with PCI address %s, the host has %s at %s"
                               % (subject, device["pci_address"], device["uuid"], host["pci_address"]), host["pci_address"],
                               device["pci_address"], {"expected": _HOST, "observed": "ResourceSlice %s" % device["slice"]}))
    if gpu_drivers:
        for host in (oracle or {}).get("devices", []):
            if host.get("kind") == "gpu" and host.get("pci_address") not in matched:
                out.append(finding("dra_device_published", "unknown", "gpu%s" % _label(host), "host GPU%s is in no ResourceSlice of %s on this node"
                                   % (_label(host), ", ".join(sorted(gpu_drivers))), "published", None,
                                   {"expected": _HOST, "observed": "this node's ResourceSlices"}))
    return out


def _version(container):
    if container is None:
        return None
    version = container.get("version")
    digest = container.get("image_id") or ""
    if "@sha256:" in digest and (version or "").find("sha256:") < 0:
        return "%s@%s" % (version or "untagged", digest.split("@", 1)[1])
    return version


def versions(parts):
    """{component: version} of what runs the device path: ``gpu_device_plugin``, ``dra_kubelet_plugin``, ``sriov_device_plugin``
    (a second pod of the same role gets its pod's name added), each the image tag (plus the running digest when the kubelet reports one)."""
    out = {}
    for role in ("gpu_device_plugin", "dra_kubelet_plugin", "sriov_device_plugin"):
        for part in parts.get(role) or []:
            key = role if role not in out else "%s %s" % (role, part["pod"]["pod"])
            out[key] = _version(part.get("container"))
    return out


def _gpu_path(oracle, parts):
    """A host with GPUs whose device path was not found: no GPU plugin pod and no ResourceSlice device that is one of its GPUs."""
    gpus = [d for d in oracle["devices"] if d.get("kind") == "gpu"]
    if not gpus or parts.get("gpu_device_plugin"):
        return []
    published = set()
    for device in parts.get("slice_devices") or []:
        host = _dra_host(oracle, device)
        if host is not None and host.get("kind") == "gpu":
            published.add(device["driver"])
    if published:
        return []
    return [finding("gpu_path", "unknown", "gpu path", "the host has %d GPU%s but no GPU device plugin pod (NVIDIA's or AMD's) runs on this node and no "
                    "ResourceSlice of it publishes one of them: the GPU path is not identified" % (len(gpus), "" if len(gpus) == 1 else "s"),
                    "a device plugin or a DRA driver", None, {"expected": _HOST, "observed": "the plugin pods and ResourceSlices read"})]


def _twice(oracle, allocatable, slice_devices):
    """A device the kubelet's device plugins list (GetAllocatableResources) that a ResourceSlice of the node also lists (`dra_claims`)."""
    groups = allocatable.get("devices") if isinstance(allocatable, dict) else None
    if not slice_devices or not isinstance(groups, list):
        return []
    plugin = [_devices.map_device(g["resource_name"], str(i), oracle) for g in groups if isinstance(g, dict) and isinstance(g.get("resource_name"), str)
              for i in g.get("device_ids") or []]
    return dra_claims.advertised_twice(plugin, slice_devices, "PodResources GetAllocatableResources and this node's ResourceSlices")


def compare(oracle, parts, allocatable=None):
    """{"findings", "versions", "summary"}: every finding of the device path (see the module docstring).

    ``parts``: ``gpu_device_plugin``, ``dra_kubelet_plugin``, ``sriov_device_plugin`` (lists of {"pod", "container",
    "findings", ...}), ``slice_devices`` (`resource_slices.devices`), ``sriov_resources`` (the configured resource names).
    """
    if not isinstance(oracle, dict) or not isinstance(oracle.get("devices"), list):
        raise DevicePathError("the device path is compared with a locality oracle (locality_oracle: a mapping with devices), got %s"
                              % type(oracle).__name__)
    found = []
    for part in parts.get("gpu_device_plugin") or []:
        found += part.get("findings") or []
        vendor = GPU_PLUGINS[part.get("vendor") or "nvidia"]
        strategy = ((part.get("settings") or {}).get("device_id_strategy") or {}).get("value") or "uuid"
        found += advertised_numa(oracle, allocatable, list(vendor["resources"]), "%s %s" % (vendor["subject"], part["pod"]["pod"]), strategy,
                                 part.get("vendor"))
    for part in parts.get("dra_kubelet_plugin") or []:
        found += part.get("findings") or []
    found += dra_numa(oracle, parts.get("slice_devices") or [])
    found += _twice(oracle, allocatable, parts.get("slice_devices") or [])
    for part in parts.get("sriov_device_plugin") or []:
        found += part.get("findings") or []
        if part.get("resources"):
            found += advertised_numa(oracle, allocatable, [r["resource"] for r in part["resources"]],
                                     "sriov-network-device-plugin %s" % part["pod"]["pod"])
    found += _gpu_path(oracle, parts)
    summary = {result: sum(1 for f in found if f["result"] == result) for result in ("agree", "disagree", "unknown")}
    return {"findings": found, "versions": versions(parts), "summary": summary}
