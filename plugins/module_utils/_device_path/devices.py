# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Device IDs from the kubelet mapped to the facts' GPUs and NICs (through the locality oracle).

Public: `map_device`, `map_container_devices`.

The NVIDIA device plugin names GPUs by UUID (``GPU-...``, MIG devices ``MIG-...``); the SR-IOV
network device plugin names VFs by PCI address. An ID is matched to an oracle device by UUID
(case-insensitive), else by normalised PCI address; one that matches nothing is kept with
``kind`` None, so the reconciliation can name it.
"""

from __future__ import annotations

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import pci as _pci


def map_device(resource_name, device_id, oracle, reported_nodes=()):
    """{"resource_name", "id", "kind", "uuid", "pci_address", "name", "numa_node", "numa_source", "reported_numa_nodes"}."""
    entry = {"resource_name": resource_name, "id": device_id, "kind": None, "uuid": None, "pci_address": None, "name": None,
             "numa_node": None, "numa_source": None, "reported_numa_nodes": sorted(reported_nodes)}
    address = _pci.normalize(device_id) if _pci.is_address(device_id) else None
    for device in (oracle or {}).get("devices", []):
        by_uuid = device.get("uuid") and device["uuid"].lower() == device_id.lower()
        if by_uuid or (address is not None and device.get("pci_address") == address):
            entry.update({key: device.get(key) for key in ("kind", "uuid", "pci_address", "name", "numa_node", "numa_source")})
            break
    return entry


def map_container_devices(container, oracle):
    """Every device of one PodResources container (device plugins and DRA claims), mapped."""
    found = []
    for group in container.get("devices", []):
        for device_id in group["device_ids"]:
            found.append(map_device(group["resource_name"], device_id, oracle, group.get("numa_nodes", ())))
    for claim in container.get("dynamic_resources", []):
        for resource in claim.get("claim_resources", []):
            found.append(map_device("%s/%s" % (resource["driver_name"], resource["pool_name"]), resource["device_name"], oracle))
    return found
