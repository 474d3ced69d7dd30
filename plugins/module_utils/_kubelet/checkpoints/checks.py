# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Would the kubelet refuse to start over these checkpoints under a target configuration?

Public: `target_from_config(config, node)`, `cpu_refusal(report, target, path)`,
`memory_refusal(report, target, path)`.

The checks are the kubelet's start checks, in its order and its words:
- pkg/kubelet/cm/cpumanager/state/state_checkpoint.go: a file that does not load, or whose
  policy differs ("configured policy %q differs from state checkpoint policy %q"), wrapped as
  "could not restore state from checkpoint: %v, please drain this node and delete the CPU
  manager checkpoint file %q before restarting Kubelet";
- pkg/kubelet/cm/cpumanager/policy_static.go validateState (static policy only): "default cpuset
  cannot be empty", "not all reserved cpus: %q are present in defaultCpuSet: %q" (with
  strict-cpu-reservation: "some of strictly reserved cpus: %q are present in defaultCpuSet: %q"),
  "pod: %s, container: %s cpuset: %q overlaps with default cpuset %q", "current set of available
  CPUs %q doesn't match with CPUs in state %q";
- pkg/kubelet/cm/memorymanager: the same wrapper for the memory manager checkpoint file, and
  (Static) "[memorymanager] the expected machine state is different from the real one" when the
  recorded per-NUMA totals or system reservations differ from what the target implies.
Each function returns None (the kubelet would start) or the message.
"""

from __future__ import annotations

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import cpulist as _cpulist
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base.errors import NumaGateError
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base.fileio import short_repr
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base.quantity import to_bytes

_CPU_WRAP = ("could not restore state from checkpoint: %s, please drain this node and delete the CPU manager "
             "checkpoint file \"%s\" before restarting Kubelet")
_MEMORY_WRAP = ("could not restore state from checkpoint: %s, please drain this node and delete the memory manager "
                "checkpoint file \"%s\" before restarting Kubelet")
_STATIC_INVALID = "Static policy invalid state, please drain node and remove policy state file: %s"
MACHINE_STATE = "[memorymanager] the expected machine state is different from the real one"


def _true(value):
    return value is True or (isinstance(value, str) and value.lower() == "true")


def _reserved_memory(entries):
    if entries is not None and not isinstance(entries, list):
        raise NumaGateError("config reservedMemory is a %s, not a list of {numaNode, limits}" % type(entries).__name__)
    result = {}
    for index, entry in enumerate(entries or []):
        if not isinstance(entry, dict):
            raise NumaGateError("config reservedMemory[%d] %s is not a mapping" % (index, short_repr(entry)))
        node = entry.get("numaNode")
        if isinstance(node, bool) or not isinstance(node, int) or node < 0:
            raise NumaGateError("config reservedMemory[%d].numaNode %s is not a NUMA node id (a whole number of at least 0)"
                                % (index, short_repr(node)))
        limits = entry.get("limits") or {}
        if not isinstance(limits, dict):
            raise NumaGateError("config reservedMemory[%d].limits %s is not a mapping of resource to quantity" % (index, short_repr(limits)))
        for resource, quantity in limits.items():
            result.setdefault(node, {})[resource] = to_bytes(quantity)
    return result


def _config_value(config, key, kind, what):
    value = config.get(key)
    if value is not None and not isinstance(value, kind):
        raise NumaGateError("config %s %s is not %s" % (key, short_repr(value), what))
    return value


def target_from_config(config, node=None):
    """What the checks need from an effective kubelet configuration and the kubelet_node summary; wrong types are named."""
    if not isinstance(config, dict):
        raise NumaGateError("config is a %s, not a kubelet configuration (a mapping)" % type(config).__name__)
    options = _config_value(config, "cpuManagerPolicyOptions", dict, "a mapping of option to value") or {}
    for key in ("cpuManagerPolicy", "memoryManagerPolicy", "reservedSystemCPUs"):
        _config_value(config, key, str, "a string")
    if config.get("reservedSystemCPUs"):
        _cpulist.parse(config["reservedSystemCPUs"])
    node = node or {}
    return {
        "cpu_policy": config.get("cpuManagerPolicy") or "none",
        "memory_policy": config.get("memoryManagerPolicy") or "None",
        "reserved_cpus": config.get("reservedSystemCPUs") or None,
        "strict_cpu_reservation": _true(options.get("strict-cpu-reservation")),
        "online_cpus": node.get("online_cpus"),
        "reserved_memory": _reserved_memory(config.get("reservedMemory")),
        "numa_memory": node.get("numa_nodes"),
    }


def _fmt(cpus):
    return _cpulist.format(sorted(cpus))


def _static_cpu_problem(report, target):
    default = set(_cpulist.parse(report.get("default_cpu_set") or ""))
    assignments = {(pod, name): set(_cpulist.parse(cpus or "")) for pod, containers in (report.get("entries") or {}).items()
                   for name, cpus in (containers or {}).items()}
    if not default:
        return "default cpuset cannot be empty" if assignments else None
    reserved = set(_cpulist.parse(target["reserved_cpus"] or ""))
    if target["strict_cpu_reservation"]:
        if reserved & default:
            return "some of strictly reserved cpus: \"%s\" are present in defaultCpuSet: \"%s\"" % (_fmt(reserved & default), _fmt(default))
    elif not reserved <= default:
        return "not all reserved cpus: \"%s\" are present in defaultCpuSet: \"%s\"" % (_fmt(reserved), _fmt(default))
    for (pod, name), cpus in sorted(assignments.items()):
        if cpus & default:
            return "pod: %s, container: %s cpuset: \"%s\" overlaps with default cpuset \"%s\"" % (pod, name, _fmt(cpus), _fmt(default))
    if target["online_cpus"] is None:
        return None
    every = set(_cpulist.parse(target["online_cpus"]))
    if target["strict_cpu_reservation"]:
        every -= reserved
    known = set(default)
    for cpus in assignments.values():
        known |= cpus
    for cpus in (report.get("pod_entries") or {}).values():
        known |= set(_cpulist.parse(cpus or ""))
    if known != every:
        return "current set of available CPUs \"%s\" doesn't match with CPUs in state \"%s\"" % (_fmt(every), _fmt(known))
    return None


def cpu_refusal(report, target, path):
    """The kubelet's refusal for this ``cpu_manager_state`` report under ``target``, or None."""
    if not report.get("present"):
        return None
    if not report["load"] and not report.get("problem_after_policy"):
        return _CPU_WRAP % (report["problem"], path)
    if report["policy"] != target["cpu_policy"]:
        reason = "configured policy \"%s\" differs from state checkpoint policy \"%s\"" % (target["cpu_policy"], report["policy"])
        return _CPU_WRAP % (reason, path)
    if not report["load"]:
        return _CPU_WRAP % (report["problem"], path)
    if target["cpu_policy"] == "static":
        problem = _static_cpu_problem(report, target)
        if problem:
            return _STATIC_INVALID % problem
    return None


def _machine_state_differs(report, target):
    state = report.get("machine_state") or {}
    if not state:
        return False
    recorded = {int(node): (value or {}).get("memoryMap") or {} for node, value in state.items()}
    if target["numa_memory"] is not None and set(recorded) != {int(node) for node in target["numa_memory"]}:
        return True
    for node, tables in recorded.items():
        wanted = target["reserved_memory"].get(node, {})
        for resource, table in tables.items():
            if (table or {}).get("systemReserved", 0) != wanted.get(resource, 0):
                return True
        if target["numa_memory"] is not None and "memory" in tables:
            total = {int(key): value for key, value in target["numa_memory"].items()}.get(node)
            if total is not None and (tables["memory"] or {}).get("total") != total:
                return True
    return any(resource not in recorded.get(node, {}) for node, wants in target["reserved_memory"].items() for resource in wants)


def memory_refusal(report, target, path):
    """The kubelet's refusal for this ``memory_manager_state`` report under ``target``, or None."""
    if not report.get("present"):
        return None
    if not report["load"]:
        return _MEMORY_WRAP % (report["problem"], path)
    if report["policy"] != target["memory_policy"]:
        reason = "configured policy \"%s\" differs from state checkpoint policy \"%s\"" % (target["memory_policy"], report["policy"])
        return _MEMORY_WRAP % (reason, path)
    if target["memory_policy"] == "Static" and _machine_state_differs(report, target):
        return MACHINE_STATE
    return None
