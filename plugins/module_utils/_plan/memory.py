# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Memory placement: how much memory the kubelet reserves, and on which NUMA nodes.

Public: `reserve(topology, merged, cpus_by_node, reasons, warnings)` -> {node id: bytes},
`place`, `largest_remainder`, `memory_parts`, `tiered`, `default_settings`, `TIERS`, `DEFAULTS`.

The total is the kubelet's own arithmetic (`_kubelet.rules.allocatable.reserved_memory_total`:
kubeReserved + systemReserved + the hard eviction threshold for memory.available); it is split
over the NUMA nodes that hold reserved CPUs, in proportion, by largest remainder, within each
node's memory less its hugepage pools (pkg/kubelet/cm/memorymanager/policy_static.go).

The default for kube and system reserved memory (`default_settings`, policy ``reserved_memory_default``):
when neither the policy nor a file on the node sets kubeReserved or systemReserved memory, the plan
sets kubeReserved memory by the tiered formula the managed Kubernetes services publish (`TIERS`,
`tiered`; GKE's node sizing page, and AKS before 1.29: docs/plan.md cites both): 25 % of the first
4 GiB of the node's memory, 20 % of the next 4, 10 % of the next 8, 6 % of the next 112 and 2 % of
the rest, rounded down to whole MiB. Without it a node with nothing set reserves only the eviction
threshold (100Mi) for the OS and the kubelet. ``none`` keeps the kubelet's own default (0); a total
of zero, however it came about, is a plan warning.
"""

from __future__ import annotations

from decimal import DecimalException

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kubelet.rules import allocatable
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._plan import merged as merged_config
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._plan import view
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._plan.policy import MEMORY_DEFAULTS, PlanError
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base.quantity import from_bytes, to_bytes

_MEMORY_QUANTA = (1 << 20, 1 << 10, 1)
_GIB, _MIB = 1 << 30, 1 << 20
# (bytes in the tier, percent of them reserved); the last tier is everything above 128 GiB.
TIERS = ((4 * _GIB, 25), (4 * _GIB, 20), (8 * _GIB, 10), (112 * _GIB, 6), (None, 2))
DEFAULTS = MEMORY_DEFAULTS


def tiered(memory_bytes):
    """kube + system reserved memory by `TIERS` for a node of memory_bytes, in bytes, rounded down to whole MiB."""
    left, total = memory_bytes, 0
    for size, percent in TIERS:
        part = left if size is None else min(left, size)
        total += part * percent  # hundredths of a byte: exact until the one division below
        left -= part
        if left <= 0:
            break
    return total // 100 // _MIB * _MIB


def _set_memory(merged, key):
    """Whether kubeReserved/systemReserved memory is set in the merged configuration (by the policy or a file)."""
    return isinstance(merged.get(key), dict) and "memory" in merged[key]


def default_settings(topology, merged, choice, reasons):
    """The kubeReserved memory quantity to add to the plan's settings when `TIERS` applies (see the module docstring), else None."""
    if choice not in DEFAULTS:
        raise PlanError("policy reserved_memory_default %r is not one of %s" % (choice, ", ".join(DEFAULTS)))
    if choice == "none" or _set_memory(merged, "kubeReserved") or _set_memory(merged, "systemReserved"):
        return None
    basis, said = _basis(topology)
    amount = tiered(basis)
    if amount <= 0:
        return None
    reasons.append("kubeReserved memory %s: the tiered default for %s of memory (%s; 25%% of the first 4 GiB, 20%% of the next 4, "
                   "10%% of the next 8, 6%% of the next 112, 2%% above 128 GiB), since neither the policy nor the node's files set "
                   "kubeReserved or systemReserved memory (kubelet_plan_reserved_memory_default: none keeps the kubelet's 0)"
                   % (from_bytes(amount), from_bytes(basis), said))
    return from_bytes(amount)


def _basis(topology):
    """The memory the default scales with: the node's (MemTotal), or the NUMA nodes' less their hugepage pools when that is less,
    since the Memory Manager places the reservation there (a VM can report more MemTotal than its NUMA nodes hold)."""
    numa = sum(max(0, node.memory_bytes - node.hugepages_bytes) for node in topology.nodes.values())
    if topology.memory_bytes is None or numa < topology.memory_bytes:
        return numa, "the NUMA nodes' memory less their hugepage pools%s" % (
            "" if topology.memory_bytes is None else ", less than the node's %s %s" % (topology.memory_source, from_bytes(topology.memory_bytes)))
    return topology.memory_bytes, topology.memory_source


def largest_remainder(total_units, weights):
    """Split total_units over the weights' keys, exactly, by largest remainder (ties to the lower id)."""
    weight_sum = sum(weights.values())
    shares = {}
    remainders = []
    for key in sorted(weights):
        share, rest = divmod(total_units * weights[key], weight_sum)
        shares[key] = share
        remainders.append((-rest, key))
    left = total_units - sum(shares.values())
    for _rest, key in sorted(remainders)[:left]:
        shares[key] += 1
    return shares


def place(topology, total, cpus_by_node):
    """Place total bytes on the NUMA nodes holding reserved CPUs, in proportion, within each node's memory.

    Amounts are whole Mi (or Ki) when the total is, so the quantities read well; bytes otherwise,
    or when whole units would not fit. A node's room is its memory less its hugepage pools; what
    does not fit overflows to the other nodes with reserved CPUs, then to the rest, by id.
    """
    room = {node_id: max(0, node.memory_bytes - node.hugepages_bytes) for node_id, node in topology.nodes.items()}
    if total > sum(room.values()):
        raise PlanError("reserved memory %s (%d bytes) does not fit in the NUMA nodes' memory less their hugepage pools (%d bytes in all)"
                        % (from_bytes(total), total, sum(room.values())))
    order = sorted(cpus_by_node) + sorted(node_id for node_id in topology.nodes if node_id not in cpus_by_node)
    for quantum in _MEMORY_QUANTA:
        if total % quantum:
            continue
        caps = {node_id: amount // quantum for node_id, amount in room.items()}
        placed = {node_id: min(units, caps[node_id]) for node_id, units in largest_remainder(total // quantum, cpus_by_node).items()}
        overflow = total // quantum - sum(placed.values())
        for node_id in order:
            moved = min(caps[node_id] - placed.get(node_id, 0), overflow)
            if moved > 0:
                placed[node_id] = placed.get(node_id, 0) + moved
                overflow -= moved
        # In bytes (the last quantum) the overflow always finds room, since the total fits.
        if overflow == 0 or quantum == 1:
            return {node_id: units * quantum for node_id, units in sorted(placed.items()) if units > 0}
    return {}  # not reached: the last quantum returns


def memory_parts(merged, effective, defaulted=False):
    """'kubeReserved memory 256Mi (policy)' and the like: each part of the reservation and where it came from
    (``defaulted``: kubeReserved memory is the tiered default, `default_settings`)."""
    parts = []
    for key in ("kubeReserved", "systemReserved"):
        origin = merged_config.origin(merged, (key, "memory"))
        if defaulted and key == "kubeReserved":
            origin = "tiered default"
        parts.append("%s memory %s (%s)" % (key, merged[key]["memory"], origin) if origin else "%s memory 0 (kubelet default)" % key)
    threshold = effective.get("memory.available", "0")
    origin = merged_config.origin(merged, ("evictionHard", "memory.available"))
    if merged.get("experimentalNodeAllocatableIgnoreEvictionThreshold"):
        origin = "not counted: experimentalNodeAllocatableIgnoreEvictionThreshold is set"
    elif origin is None:
        hard = merged.get("evictionHard")
        origin = "kubelet default" if hard is None or threshold != "0" else "not set: evictionHard omits it, so no threshold"
    elif origin == "node config" and merged.get("evictionHard") == allocatable.DEFAULT_EVICTION_HARD:
        # A configuration read on the node comes without its origins; the kubelet's default set, whole, is its default.
        origin = "kubelet default"
    parts.append("evictionHard memory.available %s (%s)" % (threshold, origin))
    return parts


def reserve(topology, merged, cpus_by_node, reasons, warnings, defaulted=False):
    """Return {numa: reserved memory bytes} for the merged configuration (the plan over the node's); ``defaulted``: see `memory_parts`."""
    try:
        effective = allocatable.effective_eviction_hard(merged)
        total = allocatable.reserved_memory_total(merged, topology.memory_bytes)
    except (ValueError, DecimalException) as exc:
        raise PlanError("memory reservation (the policy merged over the node's kubelet configuration): %s" % exc)
    parts = memory_parts(merged, effective, defaulted)
    if total <= 0:
        raise PlanError("kubeReserved + systemReserved + evictionHard memory.available reserve no memory (%s); the Memory Manager Static "
                        "policy needs a non-zero reservation (\"you should specify the system reserved memory\")" % ", ".join(parts))
    threshold = effective.get("memory.available", "0")
    if str(threshold).endswith("%"):
        warnings.append("evictionHard memory.available %s is resolved against %d bytes (%s); the kubelet uses its own memory capacity"
                        % (threshold, topology.memory_bytes, topology.memory_source))
    if not sum(to_bytes(merged[key]["memory"]) for key in ("kubeReserved", "systemReserved") if _set_memory(merged, key)):
        warnings.append("kubeReserved + systemReserved memory is 0 (%s): the OS and the kubelet get no reserved memory, only the eviction "
                        "threshold; the tiered default would reserve %s (kubelet_plan_reserved_memory_default: tiered, or set "
                        "kubelet_plan_kube_reserved memory)" % (", ".join(parts[:2]), from_bytes(tiered(_basis(topology)[0]))))
    placed = place(topology, total, cpus_by_node)
    reasons.append("reservedMemory memory %s (%d bytes) = %s, placed on NUMA nodes %s in proportion to the reserved CPUs there" % (
        from_bytes(total), total, " + ".join(parts), ", ".join("%d: %s" % (node_id, from_bytes(amount)) for node_id, amount in placed.items())))
    if set(placed) - set(cpus_by_node):
        reasons.append("reservedMemory overflowed to NUMA nodes %s without reserved CPUs: the nodes with reserved CPUs have too little memory"
                       % view.ids(sorted(set(placed) - set(cpus_by_node))))
    return placed
