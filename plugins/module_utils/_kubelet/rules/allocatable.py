# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The kubelet's Node Allocatable arithmetic: what it keeps back from pods, and why.

Public: `DEFAULT_EVICTION_HARD`, `effective_eviction_hard`, `node_allocatable_reservation`,
`reserved_memory_total`; for the rules, `RESERVABLE`, `resource_list` and `eviction_quantity`.

The planner uses these as computation (how much ``reservedMemory`` must add up to), the rules use
them to check a configuration; both get the same numbers the kubelet computes at start-up.
"""

from __future__ import annotations

import math
from decimal import Decimal

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import cpulist as _cpulist
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base.quantity import QuantityError, parse_decimal
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kubelet.rules import wording
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kubelet.rules.checker import Checker, KubeletValidationError

# pkg/kubelet/eviction/defaults_linux.go: DefaultEvictionHard (Linux).
DEFAULT_EVICTION_HARD = {
    "memory.available": "100Mi",
    "nodefs.available": "10%",
    "nodefs.inodesFree": "5%",
    "imagefs.available": "15%",
    "imagefs.inodesFree": "5%",
}
# cmd/kubelet/app/server.go: parseResourceList accepts only these.
RESERVABLE = ("cpu", "memory", "ephemeral-storage", "pid")


def ceil(amount):
    """A Decimal rounded up to an int, as Quantity.Value() rounds."""
    return int(amount.to_integral_value(rounding="ROUND_CEILING"))


# cmd/kubelet/app/server.go: parseResourceList
def resource_list(checker, key):
    """kubeReserved / systemReserved parsed as the kubelet does (parseResourceList)."""
    rule = "cmd/kubelet/app/server.go"
    result = {}
    for name, value in sorted(checker.mapping(key).items()):
        path = (key, name)
        full = "%s.%s" % (key, name)
        if name not in RESERVABLE:
            checker.add(full, "cannot reserve %s resource" % wording.quote(name), path=path, rule=rule,
                        hint="only %s can be reserved here" % ", ".join(RESERVABLE))
            continue
        try:
            amount = parse_decimal(value)
        except QuantityError:
            checker.add(full, "failed to parse quantity %s for %s resource: %s" % (wording.quote(value), wording.quote(name), wording.QUANTITY_FORMAT),
                        path=path, rule=rule)
            continue
        if amount < 0:
            checker.add(full, "resource quantity for %s cannot be negative: %s" % (wording.quote(name), value), path=path, rule=rule)
            continue
        result[name] = amount
    return result


def eviction_quantity(checker, signal, value, capacity):
    """pkg/kubelet/eviction/helpers.go: parseThresholdStatement, resolved against ``capacity``."""
    rule = "pkg/kubelet/eviction/helpers.go"
    path = ("evictionHard", signal)
    full = "evictionHard.%s" % signal
    if value.endswith("%"):
        if value in ("0%", "100%"):
            return 0
        try:
            percent = wording.float32(wording.float32(float(value[:-1])) / 100)
        except ValueError:
            checker.add(full, "strconv.ParseFloat: parsing %s: invalid syntax" % wording.quote(value[:-1]), path=path, rule=rule)
            return None
        if percent < 0:
            checker.add(full, "eviction percentage threshold %s must be >= 0%%: %s" % (signal, value), path=path, rule=rule)
            return None
        if percent > 1 or math.isnan(percent):
            checker.add(full, "eviction percentage threshold %s must be <= 100%%: %s" % (signal, value), path=path, rule=rule)
            return None
        # pkg/kubelet/eviction/api/types.go: GetThresholdQuantity
        return None if capacity is None else int(float(capacity) * percent)
    try:
        amount = parse_decimal(value)
    except QuantityError:
        checker.add(full, wording.QUANTITY_FORMAT, path=path, rule=rule)
        return None
    if amount <= 0:
        checker.add(full, "eviction threshold %s must be positive: %s" % (signal, value), path=path, rule=rule)
        return None
    return ceil(amount)


def effective_eviction_hard(config):
    """The hard eviction thresholds the kubelet will use, signal -> value.

    Unset ``evictionHard``: the kubelet's defaults. Set: only what it names,
    every default signal it omits is reported as ``"0"`` (no threshold), unless
    ``mergeDefaultEvictionSettings: true`` fills the omitted ones from the
    defaults. Do not write the result back as ``evictionHard`` (the kubelet
    refuses a quantity of 0).
    """
    given = config.get("evictionHard") if config else None
    if given is None:
        return dict(DEFAULT_EVICTION_HARD)
    if not isinstance(given, dict):
        raise KubeletValidationError("evictionHard %r is not a mapping of signal to threshold" % (given,))
    if config.get("mergeDefaultEvictionSettings") is True:
        result = dict(DEFAULT_EVICTION_HARD)
    else:
        result = {signal: "0" for signal in DEFAULT_EVICTION_HARD}
    result.update({str(k): v for k, v in given.items()})
    return result


def node_allocatable_reservation(config, node_memory_bytes=None, checker=None):
    """What the kubelet keeps back from allocatable: kube + system reserved + hard eviction.

    pkg/kubelet/cm/node_container_manager_linux.go: GetNodeAllocatableReservation
    and hardEvictionReservation (only ``memory.available`` reserves memory;
    ``experimentalNodeAllocatableIgnoreEvictionThreshold`` drops it). With
    ``reservedSystemCPUs`` set, cmd/kubelet/app/server.go replaces the CPU part
    by the number of those CPUs. Returns ``{"cpu": millicores, "memory": bytes,
    ...}`` with only non-zero entries, as the kubelet does. Without ``checker``,
    a value the kubelet would refuse raises KubeletValidationError; with one, it
    is recorded there.
    """
    own = checker is None
    if own:
        checker = Checker(config or {})
    kube = resource_list(checker, "kubeReserved")
    system = resource_list(checker, "systemReserved")
    reserved_text = (config or {}).get("reservedSystemCPUs")
    if isinstance(reserved_text, str) and reserved_text:
        try:
            count = len(_cpulist.parse(reserved_text))
        except _cpulist.CpuListError:
            count = 0
        if count:
            kube.pop("cpu", None)
            system["cpu"] = Decimal(count)
    result = {}
    for name in set(kube) | set(system):
        amount = kube.get(name, Decimal(0)) + system.get(name, Decimal(0))
        value = ceil(amount * 1000) if name == "cpu" else ceil(amount)
        if value:
            result[name] = value
    if not (config or {}).get("experimentalNodeAllocatableIgnoreEvictionThreshold"):
        try:
            hard = effective_eviction_hard(config or {})
        except KubeletValidationError:
            if own:
                raise
            hard = {}  # the validator reports the broken evictionHard itself
        value = hard.get("memory.available")
        if isinstance(value, str) and value != "0":
            memory = eviction_quantity(checker, "memory.available", value, node_memory_bytes)
            if memory:
                result["memory"] = result.get("memory", 0) + memory
    if own and checker.problems:
        raise KubeletValidationError("; ".join(str(p) for p in checker.problems))
    return result


def reserved_memory_total(config, node_memory_bytes):
    """Bytes that ``reservedMemory``'s ``memory`` entries must add up to.

    kubeReserved.memory + systemReserved.memory + the hard eviction threshold
    for ``memory.available`` (a percentage is taken of ``node_memory_bytes``),
    as pkg/kubelet/cm/memorymanager/memory_manager.go: validateReservedMemory
    compares. Raises KubeletValidationError for values the kubelet would refuse.
    """
    return node_allocatable_reservation(config, node_memory_bytes).get("memory", 0)
