# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The planner's policy: what an operator asks for, with defaults filled in and every value checked.

Public: `normalize_policy`, `PlanError`, `in_user_terms(message, names)`, and the constants `POLICY_KEYS`, `STRATEGIES`,
`DEFAULT_RESERVED_CPUS`, `DEFAULT_STRATEGY`, `DEFAULT_KUBELET_SETTINGS`, `PLANNED_SETTINGS`,
`RESERVABLE_RESOURCES`.
"""

from __future__ import annotations

import copy
import re
from decimal import DecimalException

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import cpulist as _cpulist
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base.errors import NumaGateError
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base.quantity import from_bytes, to_bytes, to_millicpu

STRATEGIES = ("spread", "compact", "device-aware")
DEFAULT_RESERVED_CPUS = 2
DEFAULT_STRATEGY = "device-aware"
# The canary configuration: pod-level resource managers on, static CPU and Memory
# Managers, single-numa-node Topology Manager at pod scope (names are case-sensitive).
DEFAULT_KUBELET_SETTINGS = {
    "cpuManagerPolicy": "static",
    "featureGates": {"PodLevelResourceManagers": True, "PodLevelResources": True},
    "memoryManagerPolicy": "Static",
    "topologyManagerPolicy": "single-numa-node",
    "topologyManagerScope": "pod",
}
# Kubelet settings the planner computes; a policy sets them through its own keys.
PLANNED_SETTINGS = {
    "reservedSystemCPUs": "reserved_cpus or reserved_cpu_list",
    "reservedMemory": "kube_reserved, system_reserved and eviction_hard",
    "kubeReserved": "kube_reserved",
    "systemReserved": "system_reserved",
    "evictionHard": "eviction_hard",
}
POLICY_KEYS = ("reserved_cpus", "reserved_cpu_list", "strategy", "kube_reserved", "system_reserved", "eviction_hard", "kubelet_settings",
               "reserved_memory_default")
# kube and system reserved memory when neither the policy nor the node sets them (_plan.memory.default_settings).
MEMORY_DEFAULTS = ("tiered", "none")
# cmd/kubelet/app/server.go parseResourceList: the only resources kube/system reserved may name.
RESERVABLE_RESOURCES = ("cpu", "memory", "ephemeral-storage", "pid")


class PlanError(NumaGateError, ValueError):
    """Facts or a policy that cannot give a valid reservation plan."""


# A policy key in a message: "policy reserved_cpus", or the bare key; never part of a longer name.
_KEY_IN_MESSAGE = re.compile(r"(?<![\w.])(?:policy )?(%s)(?![\w])" % "|".join(POLICY_KEYS))


def in_user_terms(message, names):
    """``message`` with each policy key it names replaced by the variable the user sets (``names``: key -> variable).

    The kubelet_plan role passes its own variables (reserved_cpus -> kubelet_plan_reserved_cpus), so a refusal names
    what the operator changes; keys ``names`` leaves out stay as they are.
    """
    if not names:
        return message
    return _KEY_IN_MESSAGE.sub(lambda match: names.get(match.group(1), match.group(0)), message)


def normalize_policy(policy):
    """Return the policy with defaults filled in and every value checked."""
    if policy is None:
        policy = {}
    if not isinstance(policy, dict):
        raise PlanError("policy %r is a %s, expected a dict" % (policy, type(policy).__name__))
    unknown = sorted(str(key) for key in policy if key not in POLICY_KEYS)
    if unknown:
        raise PlanError("policy keys %s are unknown; known keys: %s" % (", ".join(unknown), ", ".join(POLICY_KEYS)))
    result = {}
    cpu_list = policy.get("reserved_cpu_list")
    if cpu_list is not None:
        if policy.get("reserved_cpus") is not None:
            raise PlanError("policy sets both reserved_cpus (%r) and reserved_cpu_list (%r); give one of them"
                            % (policy["reserved_cpus"], cpu_list))
        try:
            cpus = _cpulist.parse(cpu_list)
        except _cpulist.CpuListError as exc:
            raise PlanError("policy reserved_cpu_list: %s" % exc)
        if not cpus:
            raise PlanError("policy reserved_cpu_list %r is empty; the static CPU Manager needs a non-zero CPU reservation" % (cpu_list,))
        result["reserved_cpus"] = None
        result["reserved_cpu_list"] = _cpulist.format(cpus)
    else:
        result["reserved_cpus"] = _normalize_count(policy.get("reserved_cpus", DEFAULT_RESERVED_CPUS))
        result["reserved_cpu_list"] = None
    strategy = policy.get("strategy")
    if strategy is None:
        strategy = DEFAULT_STRATEGY
    if strategy not in STRATEGIES:
        raise PlanError("policy strategy %r is not one of %s" % (strategy, ", ".join(STRATEGIES)))
    result["strategy"] = strategy
    result["kube_reserved"] = _normalize_reserved("kube_reserved", policy.get("kube_reserved"))
    result["system_reserved"] = _normalize_reserved("system_reserved", policy.get("system_reserved"))
    result["eviction_hard"] = _normalize_eviction(policy.get("eviction_hard"))
    result["kubelet_settings"] = _normalize_settings(policy.get("kubelet_settings"))
    memory_default = policy.get("reserved_memory_default")
    if memory_default is not None and memory_default not in MEMORY_DEFAULTS:
        raise PlanError("policy reserved_memory_default %r is not one of %s" % (memory_default, ", ".join(MEMORY_DEFAULTS)))
    result["reserved_memory_default"] = memory_default or MEMORY_DEFAULTS[0]
    return result


def _as_count(name, value):
    if isinstance(value, bool):
        raise PlanError("policy %s %r is a boolean, expected a whole number of logical CPUs" % (name, value))
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value.strip())
    if not isinstance(value, int):
        raise PlanError("policy %s %r is not a whole number of logical CPUs" % (name, value))
    if value < 0:
        raise PlanError("policy %s %d is negative" % (name, value))
    return value


def _normalize_count(value):
    if isinstance(value, dict):
        counts = {}
        for key, count in value.items():
            node = _as_node_id(key)
            if str(node) in counts:
                raise PlanError("policy reserved_cpus names NUMA node %d twice" % node)
            counts[str(node)] = _as_count("reserved_cpus[%s]" % key, count)
        if sum(counts.values()) == 0:
            raise PlanError("policy reserved_cpus %r reserves no CPU; the static CPU Manager needs a non-zero CPU reservation" % (value,))
        return dict(sorted(counts.items(), key=lambda item: int(item[0])))
    count = _as_count("reserved_cpus", value)
    if count == 0:
        raise PlanError("policy reserved_cpus is 0; the static CPU Manager needs a non-zero CPU reservation")
    return count


def _as_node_id(key):
    text = str(key).strip()
    if isinstance(key, bool) or not text.isdigit():
        raise PlanError("policy reserved_cpus key %r is not a NUMA node id" % (key,))
    return int(text)


def _normalize_reserved(name, value):
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise PlanError("policy %s %r is a %s, expected a dict such as {'memory': '1Gi'}" % (name, value, type(value).__name__))
    result = {}
    for key in sorted(value, key=str):
        resource = str(key)
        quantity = value[key]
        if resource not in RESERVABLE_RESOURCES:
            # Mirrors cmd/kubelet/app/server.go parseResourceList (hugepages included).
            raise PlanError("policy %s: cannot reserve %r resource; the kubelet accepts only %s"
                            % (name, resource, ", ".join(RESERVABLE_RESOURCES)))
        if isinstance(quantity, bool) or not isinstance(quantity, (int, str)):
            raise PlanError("policy %s[%s] %r is not a quantity" % (name, resource, quantity))
        try:
            if resource == "cpu":
                to_millicpu(quantity)
            else:
                to_bytes(quantity)
        except (ValueError, DecimalException) as exc:  # QuantityError, or a number too long to convert
            raise PlanError("policy %s[%s]: %s" % (name, resource, exc))
        if resource == "memory":
            result[resource] = from_bytes(to_bytes(quantity))
        else:
            result[resource] = str(quantity).strip()
    return result


def _normalize_eviction(value):
    if value is None:
        return None
    if not isinstance(value, dict):
        raise PlanError("policy eviction_hard %r is a %s, expected a dict such as {'memory.available': '100Mi'}"
                        % (value, type(value).__name__))
    result = {}
    for key in sorted(value, key=str):
        threshold = value[key]
        if isinstance(threshold, bool) or not isinstance(threshold, (int, str)):
            raise PlanError("policy eviction_hard[%s] %r is not a quantity or a percentage" % (key, threshold))
        result[str(key)] = str(threshold).strip()
    return result


def _normalize_settings(value):
    settings = copy.deepcopy(DEFAULT_KUBELET_SETTINGS)
    if value is None:
        return settings
    if not isinstance(value, dict):
        raise PlanError("policy kubelet_settings %r is a %s, expected a dict" % (value, type(value).__name__))
    for key in sorted(value, key=str):
        if key in PLANNED_SETTINGS:
            raise PlanError("policy kubelet_settings sets %s, which the planner computes; set it through the policy key %s"
                            % (key, PLANNED_SETTINGS[key]))
        if key == "featureGates":
            gates = value[key]
            if not isinstance(gates, dict):
                raise PlanError("policy kubelet_settings featureGates %r is not a dict of gate: true/false" % (gates,))
            for gate, enabled in gates.items():
                if not isinstance(gate, str):
                    raise PlanError("policy kubelet_settings featureGates name %r is not a string" % (gate,))
                if not isinstance(enabled, bool):
                    raise PlanError("policy kubelet_settings featureGates %s = %r is not true or false" % (gate, enabled))
            settings["featureGates"].update(gates)
        else:
            settings[str(key)] = copy.deepcopy(value[key])
    settings["featureGates"] = dict(sorted(settings["featureGates"].items()))
    return dict(sorted(settings.items()))
