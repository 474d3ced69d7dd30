# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A seeded Node's ``status.capacity`` and ``status.allocatable``, computed as the kubelet computes them.

- Capacity (pkg/kubelet/nodestatus/setters.go ``MachineInfo``, cadvisor ``CapacityFromMachineInfo``):
  ``cpu`` the logical CPUs, ``memory`` MemTotal in bytes (BinarySI), ``hugepages-<size>`` per
  page size (pages x size), ``pods`` the KubeletConfiguration ``maxPods`` (default 110),
  ``ephemeral-storage`` the root filesystem's size (BinarySI).
- Allocatable (the same setter): each capacity minus the node allocatable reservation
  (pkg/kubelet/cm/node_container_manager_linux.go ``GetNodeAllocatableReservation``:
  ``kubeReserved`` + ``systemReserved`` + the hard eviction thresholds, pkg/kubelet/eviction/api
  ``GetThresholdQuantity``: ``memory.available`` against memory, ``nodefs.available`` against
  ephemeral-storage, a percentage as ``int64(float64(capacity) * float64(float32 percent))``),
  clamped at 0; then every hugepages capacity is taken from allocatable memory as well.
- The double's defaults (a plausible two-socket GPU server, not any real machine): cpu ``64``,
  memory ``263853344Ki`` (about 251.6 GiB), pods ``110``, ephemeral-storage ``459850824Ki``
  (about 438.5 GiB), ``hugepages-1Gi`` and ``hugepages-2Mi`` ``0``; no kube or system reservation;
  the kubelet's default hard eviction (``memory.available<100Mi``, ``nodefs.available<10%``,
  pkg/kubelet/eviction/defaults_linux.go). So the default allocatable is cpu ``64``, memory
  ``263750944Ki``, ephemeral-storage ``423798518697``, pods ``110``, hugepages ``0``.
  A test gives ``capacity`` (merged over the defaults), ``reserved`` (kube+system, one map) and
  ``eviction_hard`` (``{"memory.available": "100Mi", "nodefs.available": "10%"}``), or
  ``allocatable`` outright.
"""

import struct

from apiserver.quantity import Quantity

DEFAULT_CAPACITY = {"cpu": "64", "memory": "263853344Ki", "pods": "110", "ephemeral-storage": "459850824Ki",
                    "hugepages-1Gi": "0", "hugepages-2Mi": "0"}
DEFAULT_EVICTION_HARD = {"memory.available": "100Mi", "nodefs.available": "10%"}
_SIGNALS = {"memory.available": "memory", "nodefs.available": "ephemeral-storage"}


def _threshold(value, capacity):
    """evictionapi.GetThresholdQuantity: a quantity as written, a percentage of the capacity in whole bytes."""
    if value.endswith("%"):
        percent = struct.unpack("f", struct.pack("f", float(value[:-1]) / 100))[0]
        return Quantity(int(float(capacity.value) * percent), True)
    return Quantity.parse(value)


def reservation(capacity, reserved=None, eviction_hard=None):
    """GetNodeAllocatableReservation: reserved per resource plus the hard eviction thresholds."""
    total = {name: Quantity.parse(value) for name, value in (reserved or {}).items()}
    thresholds = DEFAULT_EVICTION_HARD if eviction_hard is None else eviction_hard
    for signal, value in thresholds.items():
        resource = _SIGNALS.get(signal)
        if resource is None or resource not in capacity:
            continue
        amount = _threshold(value, capacity[resource])
        total[resource] = Quantity(total[resource].value + amount.value, total[resource].binary) if resource in total else amount
    return total


def resources(capacity=None, allocatable=None, reserved=None, eviction_hard=None):
    """``(capacity, allocatable)`` as the API writes them (canonical quantities, keys sorted as Go marshals a map)."""
    merged = dict(DEFAULT_CAPACITY)
    merged.update(capacity or {})
    parsed = {name: Quantity.parse(value) for name, value in merged.items()}
    if allocatable is None:
        held = reservation(parsed, reserved, eviction_hard)
        result = {name: (value.sub(held[name]) if name in held else value).at_least_zero() for name, value in parsed.items()}
        for name, value in parsed.items():
            if name.startswith("hugepages-") and "memory" in result:
                result["memory"] = result["memory"].sub(value).at_least_zero()
    else:
        result = {name: Quantity.parse(value) for name, value in allocatable.items()}
    return ({name: str(parsed[name]) for name in sorted(parsed)}, {name: str(result[name]) for name in sorted(result)})
