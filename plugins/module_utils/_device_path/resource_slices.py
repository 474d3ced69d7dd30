# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""This node's ResourceSlices (resource.k8s.io/v1): each device's NUMA node, PCIe root, UUID and PCI address (pure).

Public: `devices`, `NUMA_ATTRIBUTES`, `PCI_ATTRIBUTES`, `SLICE`.

The API (k8s.io/api resource/v1 types.go): a ResourceSlice's ``spec`` has ``driver``, ``pool``
(``name``, ``generation``, ``resourceSliceCount``), ``nodeName`` and ``devices[]`` (``name``,
``attributes``: a map of qualified name to one of ``int``, ``bool``, ``string``, ``version`` and, with
the DRAListTypeAttributes gate, ``ints``, ``bools``, ``strings``, ``versions``). "Names which do not
include the domain prefix are assumed to be part of the driver's domain", so ``uuid`` of driver
``gpu.nvidia.com`` is ``gpu.nvidia.com/uuid`` here.

The attributes read:
- NUMA, first found of `NUMA_ATTRIBUTES`: the standard ``resource.kubernetes.io/numaNode`` ("a scalar
  integer: the device's physical NUMA node, read from the kernel's numa_node sysfs entry", or a list
  whose first item is that node; "devices without NUMA affinity (numa_node = -1 in sysfs) must not
  publish this attribute": kubernetes.io docs reference/node/dra-standard-device-attributes), then the
  driver's own ``numa`` (NVIDIA/k8s-dra-driver-gpu publishes it for VFIO devices, cmd/gpu-kubelet-plugin
  deviceinfo.go) or ``numaNode``. NVIDIA's DRA driver does not publish a NUMA node for a full GPU
  (deviceinfo.go GpuInfo.Attributes at 2240711, 2026-05): such a device has no NUMA here, a finding.
- PCIe root: ``resource.kubernetes.io/pcieRoot`` (``pci<domain>:<bus>``); PCI address:
  ``resource.kubernetes.io/pciBusID`` (extended BDF) (k8s.io/dynamic-resource-allocation deviceattribute), else the
  driver's ``pciAddr``; a partition's GPU: the driver's ``parentPciAddr``. AMD's DRA driver (``gpu.amd.com``,
  ROCm/k8s-gpu-dra-driver cmd/gpu-kubeletplugin/deviceinfo.go at c2b31bd) publishes ``pciAddr`` for a GPU,
  ``parentPciAddr`` for a partition, ``resource.kubernetes.io/pcieRoot`` and no NUMA attribute; its ``uuid`` is one it
  makes (a SHA-1 name UUID), not the GPU's, so its devices are joined to the host's by PCI address;
- UUID: the driver's ``uuid``; GPU driver version: the driver's ``driverVersion`` (NVIDIA's GPU driver).
"""

from __future__ import annotations

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import pci as _pci
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import shape_check as S
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._device_path.common import DevicePathError

STANDARD = "resource.kubernetes.io/"
NUMA_ATTRIBUTES = (STANDARD + "numaNode", "numa", "numaNode")
PCI_ATTRIBUTES = (STANDARD + "pciBusID", "pciAddr")
_VALUE = S.Fields("a device attribute", {}, {
    "int": S.Nullable(S.INT), "ints": S.Nullable(S.ListOf(S.INT)), "bool": S.Nullable(S.BOOL), "string": S.Nullable(S.STR), "version": S.Nullable(S.STR)})
_DEVICE = S.Fields("a ResourceSlice device", {"name": S.STR}, {"attributes": S.Nullable(S.MapOf(_VALUE))})
SLICE = S.Fields("a ResourceSlice", {"metadata": S.Fields("a ResourceSlice's metadata", {"name": S.STR}),
                                     "spec": S.Fields("a ResourceSlice's spec", {"driver": S.STR}, {
                                         "nodeName": S.Nullable(S.STR), "devices": S.Nullable(S.ListOf(_DEVICE)),
                                         "pool": S.Nullable(S.Fields("a resource pool", {}, {"name": S.Nullable(S.STR)}))})})


def _qualified(driver, attributes):
    """Every attribute under its qualified name (the driver's domain for an unqualified one)."""
    return {(name if "/" in name else "%s/%s" % (driver, name)): value for name, value in (attributes or {}).items()}


def _scalar(value):
    for key in ("int", "string", "version", "bool"):
        if value.get(key) is not None:
            return value[key]
    return None


def _numa(driver, attributes):
    """(first NUMA node, all listed, attribute name) or (None, [], None)."""
    for name in NUMA_ATTRIBUTES:
        qualified = name if "/" in name else "%s/%s" % (driver, name)
        value = attributes.get(qualified)
        if value is None:
            continue
        listed = [value["int"]] if value.get("int") is not None else list(value.get("ints") or [])
        if listed and listed[0] >= 0:  # -1 is sysfs' "no NUMA affinity", which the standard says is never published
            return listed[0], listed, qualified
        return None, [], qualified
    return None, [], None


def _address(text, where):
    if text is None:
        return None
    try:
        return _pci.normalize(str(text))
    except _pci.PciAddressError as exc:
        raise DevicePathError("%s: %s" % (where, exc)) from exc


def _first(driver, attributes, names):
    for name in names:
        value = _scalar(attributes.get(name if "/" in name else "%s/%s" % (driver, name)) or {})
        if value is not None:
            return value
    return None


def devices(slices, node):
    """One entry per device of ``node``'s slices (others skipped): driver, pool, slice, name, uuid, pci_address, parent_pci_address,
    pcie_root, numa_node, numa_nodes, numa_attribute, driver_version; sorted by driver, pool and name."""
    if not isinstance(slices, list):
        raise DevicePathError("ResourceSlices must be a list (the items of a ResourceSliceList), got %s" % type(slices).__name__)
    out = []
    for index, item in enumerate(slices):
        item = S.check(item, SLICE, "resourceslices[%d]" % index, DevicePathError)
        spec = item["spec"]
        if spec.get("nodeName") != node:
            continue
        driver = spec["driver"]
        for number, device in enumerate(spec.get("devices") or []):
            where = "ResourceSlice %s devices[%d] (%s)" % (item["metadata"]["name"], number, device["name"])
            attributes = _qualified(driver, device.get("attributes"))
            numa, listed, numa_name = _numa(driver, attributes)
            uuid = _scalar(attributes.get(driver + "/uuid") or {})
            version = _scalar(attributes.get(driver + "/driverVersion") or {})
            out.append({"driver": driver, "pool": (spec.get("pool") or {}).get("name"), "slice": item["metadata"]["name"], "name": device["name"],
                        "uuid": None if uuid is None else str(uuid),
                        "pci_address": _address(_first(driver, attributes, PCI_ATTRIBUTES), where),
                        "parent_pci_address": _address(_first(driver, attributes, ("parentPciAddr",)), where),
                        "pcie_root": _scalar(attributes.get(STANDARD + "pcieRoot") or {}),
                        "numa_node": numa, "numa_nodes": listed, "numa_attribute": numa_name,
                        "driver_version": None if version is None else str(version)})
    return sorted(out, key=lambda d: (d["driver"], d["pool"] or "", d["name"]))
