# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The reservation planner: topology facts (schema v1) + policy -> kubelet reservations.

Public: `reservation_plan(topology, policy=None, base_config=None)`, `PLAN_SCHEMA_VERSION`.

A pure function, deterministic on any machine: the same facts, policy and base
configuration give the same plan, whatever order the facts' lists come in. The plan
names the reserved CPU set (whole physical cores, never offline or isolated CPUs), the per-NUMA
``reservedMemory`` that sums exactly to what the kubelet's Node Allocatable expects,
the kubelet settings that go with them, what stays allocatable on each NUMA node,
and the reasons for every choice. Anything it cannot plan is refused with a
``PlanError`` that names the numbers.

What the kubelet expects, read in its source (kubernetes/kubernetes):

- ``reservedMemory``: ``pkg/kubelet/cm/memorymanager/memory_manager.go``
  ``validateReservedMemory`` requires, for every memory type (``memory`` and each
  ``hugepages-<size>``) in either ``reservedMemory`` or the Node Allocatable
  reservation, that the sum over NUMA nodes equals the reservation exactly.
  ``pkg/kubelet/cm/node_container_manager_linux.go`` ``GetNodeAllocatableReservation``
  builds that reservation per capacity resource as systemReserved + kubeReserved +
  ``hardEvictionReservation`` (only ``memory.available`` maps to a memory type;
  no eviction signal maps to hugepages).
- Hugepages: ``cmd/kubelet/app/server.go`` ``parseResourceList`` accepts only
  ``cpu``, ``memory``, ``ephemeral-storage`` and ``pid`` in kubeReserved and
  systemReserved ("cannot reserve %q resource" for anything else, hugepages
  included). So the reservation never holds a ``hugepages-<size>`` entry, and any
  hugepages entry in ``reservedMemory`` would fail ``validateReservedMemory``
  (its total would not equal the zero reservation). The planner therefore never
  writes hugepages entries, and refuses a policy that names hugepages in
  kube/system reserved, with the kubelet's own wording.
- Per-NUMA capacity: ``pkg/kubelet/cm/memorymanager/policy_static.go``
  ``initializeMachineState`` computes a node's allocatable regular memory as
  node memory - hugepage pools - systemReserved (unsigned), so the memory reserved
  on a node is capped at its memory minus its hugepage pools.
- A hugepage pool larger than its node's memory cannot exist (pools are taken from the
  node's memory); the planner refuses such facts, naming the node and its pools, instead of
  planning the node's allocatable as 0 (the facts step warns about them).
- Static Memory Manager refuses a zero memory reservation ("you should specify the
  system reserved memory"), and the static CPU Manager a zero CPU reservation.

The plan's ``kubelet_settings`` are written as a drop-in, a JSON merge patch over the
node's existing configuration (``base_config``: the effective configuration without
the collection's own drop-in, evictionHard defaults filled in as
``_kubelet.config.merge.effective_config`` does). So the planner computes the reservation and
checks the plan on ``merge_patch(base_config, kubelet_settings)``, the configuration
the kubelet will really run with, and writes kubeReserved, systemReserved and
evictionHard only when the policy sets them: a partial policy map merges over the
node's values, it does not replace them.
"""

from __future__ import annotations

import copy
from decimal import DecimalException

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import cpulist as _cpulist
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts import schema
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kubelet.rules import allocatable
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kubelet.rules import validate
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._plan import cpu_strategies
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._plan import memory
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._plan import merged as merged_config
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._plan import view
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._plan.policy import PlanError, normalize_policy
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base.quantity import from_bytes

PLAN_SCHEMA_VERSION = 1


def _read(topology):
    """The facts through the one schema reader; a schema error is the planner's, with the same words."""
    try:
        facts = schema.read(topology, "the planner")
    except schema.SchemaError as exc:
        raise PlanError(str(exc), **exc.details) from exc
    for node_id, node in facts.nodes.items():
        if node.memory_bytes is None:
            # The oracle can use facts whose node memory is unknown; the planner cannot.
            raise PlanError("topology NUMA node %d memory_bytes None is not a byte count" % node_id)
        if node.hugepages_bytes > node.memory_bytes:
            # Pools are taken from the node's memory; planning on them would set the node's allocatable to 0 without a word.
            pools = ", ".join("%dkB (%d pages)" % (pool.size_kb, pool.total) for pool in node.hugepages if pool.total)
            raise PlanError("topology NUMA node %d hugepage pools %s hold %s (%d bytes), more than the node's memory_bytes %s (%d bytes): "
                            "hugepages are taken from the node's memory, so the pools cannot exceed it"
                            % (node_id, pools, from_bytes(node.hugepages_bytes), node.hugepages_bytes, from_bytes(node.memory_bytes),
                               node.memory_bytes))
    return facts


def _eviction_reasons(policy, merged, reasons):
    """Say what a policy's partial evictionHard does once merged, and which default signals end up with no threshold."""
    hard = merged.get("evictionHard")
    given = policy["eviction_hard"]
    if given is not None and isinstance(hard, dict):
        kept = sorted("%s %s" % (signal, value) for signal, value in hard.items() if signal not in given)
        if kept:
            reasons.append("evictionHard from the policy (%s) merges over the node's thresholds, which stay: %s"
                           % (", ".join(sorted(given)) or "nothing", ", ".join(kept)))
    zeroed = sorted(signal for signal, value in allocatable.effective_eviction_hard(merged).items() if value == "0")
    if zeroed:
        reasons.append("evictionHard in the merged configuration omits the default signals %s, so the kubelet applies no threshold for "
                       "them (it fills in defaults only when the main file sets no evictionHard)" % ", ".join(zeroed))


def _cpu_override_warnings(policy, merged, count, warnings):
    for key, name in (("kubeReserved", "kube_reserved"), ("systemReserved", "system_reserved")):
        if "cpu" in policy[name]:
            # cmd/kubelet/app/server.go: with reservedSystemCPUs set, the kubelet drops kubeReserved cpu and sets
            # systemReserved cpu to the size of the reserved set.
            warnings.append("policy %s cpu %s is overridden by reservedSystemCPUs (the kubelet then reserves %d CPUs)"
                            % (name, policy[name]["cpu"], count))
        elif merged_config.origin(merged, (key, "cpu")):
            warnings.append("%s cpu %s (%s) is overridden by reservedSystemCPUs (the kubelet then reserves %d CPUs)"
                            % (key, merged[key]["cpu"], merged_config.origin(merged, (key, "cpu")), count))


def _self_check(facts, merged):
    """The plan merged over the node's configuration must pass the kubelet's own rules (_kubelet.rules.validate.validate)."""
    try:
        problems = validate.validate(merged, schema.kubelet_node(facts))
    except (ValueError, DecimalException) as exc:
        raise PlanError("the planned kubelet settings cannot be checked: %s" % exc)
    if problems:
        raise PlanError("the planned kubelet settings break the kubelet's rules: %s" % "; ".join(str(problem) for problem in problems))


# ---------------------------------------------------------------- the plan


def reservation_plan(topology, policy=None, base_config=None):
    """Plan the kubelet reservations for one node. See the module docstring.

    ``base_config``: the node's effective kubelet configuration without the collection's
    drop-in (``_kubelet.config.merge.effective_config``, evictionHard defaults filled in); None
    means a node with no configuration of its own, so the kubelet's defaults apply.
    """
    policy = normalize_policy(policy)
    base = merged_config.base_config(base_config)
    facts = _read(topology)
    reasons = []
    warnings = list(facts.warnings)
    for node_id in view.cpu_nodes(facts):
        if not view.usable_cores(facts, node_id):
            warnings.append("NUMA node %d has online CPUs but no whole core that is not isolated; nothing there is allocatable" % node_id)
    selection = cpu_strategies.choose_cpus(facts, policy, reasons, warnings)
    reserved = selection.cpus()
    requested = policy["reserved_cpus"] if isinstance(policy["reserved_cpus"], int) else None
    if requested is not None and len(reserved) > requested:
        warnings.append("reserved_cpus %d rounded up to %d logical CPUs (%d whole cores): SMT siblings are reserved together"
                        % (requested, len(reserved), len(selection.cores)))
    by_node = {}
    for core in selection.cores:
        by_node.setdefault(core.numa, set()).update(core.cpus)
    cpus_by_node = {node_id: len(cpus) for node_id, cpus in by_node.items()}
    settings = copy.deepcopy(policy["kubelet_settings"])  # no object shared with "policy" (YAML dumps would alias it)
    settings["reservedSystemCPUs"] = _cpulist.format(reserved)
    # Only what the policy sets: the drop-in merges over the node's own values, which must stay.
    for key, name in (("kubeReserved", "kube_reserved"), ("systemReserved", "system_reserved")):
        if policy[name]:
            settings[key] = dict(policy[name])
    if policy["eviction_hard"] is not None:
        settings["evictionHard"] = dict(policy["eviction_hard"])
    merged = merged_config.over_base(base, settings)
    memory_default = memory.default_settings(facts, merged, policy["reserved_memory_default"], reasons)
    if memory_default is not None:
        settings["kubeReserved"] = dict(settings.get("kubeReserved") or {}, memory=memory_default)
        merged = merged_config.over_base(base, settings)
    _cpu_override_warnings(policy, merged, len(reserved), warnings)
    placed = memory.reserve(facts, merged, cpus_by_node, reasons, warnings, defaulted=memory_default is not None)
    _eviction_reasons(policy, merged, reasons)
    settings["reservedMemory"] = [{"numaNode": node_id, "limits": {"memory": from_bytes(amount)}} for node_id, amount in placed.items()]
    settings = dict(sorted(settings.items()))
    _self_check(facts, merged_config.over_base(base, settings))
    return {
        "kubelet_settings": settings,
        "reserved": {
            "cpus": _cpulist.format(reserved),
            "cores": len(selection.cores),
            "by_numa": {str(node_id): _cpulist.format(cpus) for node_id, cpus in sorted(by_node.items())},
            "memory_bytes": {str(node_id): amount for node_id, amount in placed.items()},
        },
        "allocatable": _allocatable(facts, selection, placed),
        "reasons": reasons,
        "warnings": warnings,
        "policy": policy,
        "schema_version": PLAN_SCHEMA_VERSION,
    }


def _allocatable(facts, selection, placed):
    result = {}
    devices = view.devices(facts)
    for node_id in sorted(facts.nodes):
        cores = [core for core in view.usable_cores(facts, node_id) if core.id not in selection.taken]
        cpus = sorted(cpu for core in cores for cpu in core.cpus)
        node = facts.nodes[node_id]
        free_memory = max(0, node.memory_bytes - node.hugepages_bytes - placed.get(node_id, 0))
        result[str(node_id)] = {
            "cpus": _cpulist.format(cpus),
            "whole_cores": len(cores),
            "memory_bytes": free_memory,
            "gpus": list(devices.gpus[node_id]),
            "nics": list(devices.nics[node_id]),
            # single-numa-node at pod scope: the largest Guaranteed pod fits in one node.
            "largest_pod": {"cpu": len(cpus), "memory": from_bytes(free_memory)},
        }
    return result
