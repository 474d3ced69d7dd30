# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Device IDs from the kubelet mapped to the facts' GPUs and NICs (through the locality oracle).

Public: `map_device`, `map_container_devices`.

The NVIDIA device plugin names GPUs by UUID (``GPU-...``), MIG devices ``MIG-<uuid>`` (legacy drivers
``MIG-GPU-<parent uuid>/<gi>/<ci>``) and shared replicas ``<uuid>::<n>`` (NVIDIA/k8s-device-plugin
api/config/v1/replicas.go IsMigUUID, internal/rm/devices.go AnnotatedID); the SR-IOV network device plugin
names VFs by PCI address. An ID is matched to an oracle device by UUID (case-insensitive), else by
normalised PCI address. A MIG device is its parent GPU's: the legacy UUID names it, an opaque one is found
in the GPU's ``mig_devices`` (the facts' ``nvidia-smi -L``); it maps with the parent's NUMA node, as the
plugin reports it (internal/rm/nvml_devices.go GetNumaNode). One that matches nothing is kept with ``kind``
None, so the reconciliation can name it. A DRA claim's device is joined through its ResourceClaim and
ResourceSlice (`dra_claims`) when they were read, else matched by name and left for the reconciliation.
"""

from __future__ import annotations

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import pci as _pci
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._device_path import dra_claims
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts.nvidia_smi_list import mig_parent

_KEYS = ("kind", "uuid", "pci_address", "name", "numa_node", "numa_source")


def _parent_uuid(mig_uuid, oracle):
    """The UUID of a MIG device's parent GPU (legacy UUID, else the oracle GPU listing it), or None."""
    legacy = mig_parent(mig_uuid)
    if legacy is not None:
        return legacy[0]
    for device in (oracle or {}).get("devices", []):
        if any(uuid.lower() == mig_uuid.lower() for uuid in device.get("mig_devices") or ()):
            return device.get("uuid")
    return None


def map_device(resource_name, device_id, oracle, reported_nodes=()):
    """{"resource_name", "id", "kind", "uuid", "pci_address", "name", "numa_node", "numa_source", "reported_numa_nodes", "mig_uuid"}.

    For a MIG device ``uuid`` is its parent GPU's and ``mig_uuid`` its own (None for any other device).
    """
    entry = {"resource_name": resource_name, "id": device_id, "kind": None, "uuid": None, "pci_address": None, "name": None,
             "numa_node": None, "numa_source": None, "reported_numa_nodes": sorted(reported_nodes), "mig_uuid": None}
    wanted = device_id.split("::", 1)[0]  # a shared replica is its device's
    if wanted.upper().startswith("MIG-"):
        entry["mig_uuid"] = wanted
        wanted = _parent_uuid(wanted, oracle)
        if wanted is None:
            return entry
    address = _pci.normalize(wanted) if _pci.is_address(wanted) else None
    for device in (oracle or {}).get("devices", []):
        by_uuid = device.get("uuid") and device["uuid"].lower() == wanted.lower()
        if by_uuid or (address is not None and device.get("pci_address") == address):
            entry.update({key: device.get(key) for key in _KEYS})
            break
    return entry


def _host(joined, oracle):
    """The host device of a joined DRA device: by the slice's UUID, else its PCI address (AMD's UUIDs are its own)."""
    device = joined["device"] or {}
    host = map_device(joined["resource_name"], device.get("uuid") or "", oracle)
    if host["kind"] is None and device.get("pci_address"):
        host = dict(map_device(joined["resource_name"], device["pci_address"], oracle), mig_uuid=host["mig_uuid"])
    return host


def map_container_devices(container, oracle, dra=None):
    """Every device of one PodResources container (device plugins and DRA claims), mapped.

    ``dra``: {"claims": the ResourceClaims read from the API, "slice_devices": `resource_slices.devices`'} or None
    (not read: each claim device is matched by name, as any other ID).
    """
    found = []
    for group in container.get("devices", []):
        for device_id in group["device_ids"]:
            found.append(map_device(group["resource_name"], device_id, oracle, group.get("numa_nodes", ())))
    for claim in container.get("dynamic_resources", []):
        for resource in claim.get("claim_resources", []):
            if dra is None:
                mapped = map_device("%s/%s" % (resource["driver_name"], resource["pool_name"]), resource["device_name"], oracle)
                mapped.update(dra_unjoined=True, claim="%s/%s" % (claim.get("claim_namespace"), claim.get("claim_name")))
                found.append(mapped)
                continue
            joined = dra_claims.join(claim, resource, dra.get("claims") or [], dra.get("slice_devices") or [])
            joined.update({key: _host(joined, oracle)[key] for key in _KEYS + ("mig_uuid",)})
            found.append(joined)
    return found
