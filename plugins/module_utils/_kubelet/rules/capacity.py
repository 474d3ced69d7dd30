# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Eviction signals and the Node Allocatable reservation against the node's capacity.

Public: `check_eviction(checker)`, `check_capacity(checker, allocatable)`.
"""

from __future__ import annotations

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kubelet.rules import wording
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kubelet.rules.allocatable import eviction_quantity

# pkg/kubelet/eviction/api/types.go: the signals the kubelet knows.
_SIGNALS = ("memory.available", "allocatableMemory.available", "nodefs.available", "nodefs.inodesFree",
            "imagefs.available", "imagefs.inodesFree", "containerfs.available", "containerfs.inodesFree",
            "pid.available")


# pkg/kubelet/eviction/helpers.go: ParseThresholdConfig (signal names and values)
def check_eviction(checker):
    """evictionHard: known signals, values the kubelet parses (memory.available is checked with the sums)."""
    given = checker.mapping("evictionHard")
    for signal in sorted(given):
        if signal not in _SIGNALS:
            checker.add("evictionHard.%s" % signal, "unsupported eviction signal %s" % signal, path=("evictionHard", signal),
                        rule="pkg/kubelet/eviction/helpers.go")
        elif signal != "memory.available":
            eviction_quantity(checker, signal, given[signal], None)


def check_capacity(checker, allocatable):
    """pkg/kubelet/cm/node_container_manager_linux.go: validateNodeAllocatable."""
    capacity = {}
    if checker.machine.memory is not None:
        capacity["memory"] = checker.machine.memory
    if checker.machine.online is not None:
        capacity["cpu"] = len(checker.machine.online) * 1000
    for name in sorted(allocatable):
        if name not in capacity or allocatable[name] <= capacity[name]:
            continue
        fmt = wording.format_millicpu if name == "cpu" else wording.format_bytes
        if name == "cpu" and checker.config.get("reservedSystemCPUs"):
            key, path = "reservedSystemCPUs", ("reservedSystemCPUs",)
        else:
            key = "kubeReserved/systemReserved" + ("/evictionHard" if name == "memory" else "")
            path = next((p for p in (("systemReserved", name), ("kubeReserved", name)) if checker.source(*p)), ("kubeReserved",))
        checker.add(key, "invalid Node Allocatable configuration. Resource %s has a reservation of %s but capacity of %s. "
                    "Expected capacity >= reservation." % (wording.quote(name), fmt(allocatable[name]), fmt(capacity[name])), path=path,
                    rule="pkg/kubelet/cm/node_container_manager_linux.go")
