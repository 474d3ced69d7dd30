# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Memory Manager rules: reservedMemory's shape, the policy, and the Node Allocatable sums.

Public: `check_reserved_memory(checker)` -> [(index, numa, resource, bytes)],
`check_memory_manager(checker, entries, allocatable)`.
"""

from __future__ import annotations

import re

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base.quantity import QuantityError, parse_decimal
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kubelet.rules import wording
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kubelet.rules.allocatable import ceil, effective_eviction_hard
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kubelet.rules.checker import KubeletValidationError

_POLICIES = ("None", "Static")
_HUGEPAGES = re.compile(r"^hugepages-(.+)$")
_RULE = "pkg/kubelet/cm/memorymanager/memory_manager.go"
_SHAPE_RULE = "pkg/kubelet/apis/config/validation/validation_reserved_memory.go"


# pkg/kubelet/apis/config/validation/validation_reserved_memory.go: validateReservedMemoryConfiguration
def check_reserved_memory(checker):
    """Structural checks of reservedMemory; returns [(index, numa, resource, bytes)]."""
    value = checker.config.get("reservedMemory")
    if value is None:
        return []
    if not isinstance(value, list):
        checker.add("reservedMemory", wording.unmarshal(value, "KubeletConfiguration.reservedMemory", "[]v1beta1.MemoryReservation"),
                    rule=wording.STRICT_DECODING)
        return []
    entries = []
    seen = {}
    for index, entry in enumerate(value):
        entries.extend(_entry(checker, index, entry, seen))
    return entries


def _entry(checker, index, entry, seen):
    key = "reservedMemory[%d]" % index
    where = ("reservedMemory",)
    strict = wording.STRICT_DECODING
    if not isinstance(entry, dict):
        checker.add(key, wording.unmarshal(entry, "KubeletConfiguration.reservedMemory", "v1beta1.MemoryReservation"), path=where, rule=strict)
        return []
    numa = entry.get("numaNode")
    if isinstance(numa, bool) or not isinstance(numa, int):
        checker.add(key + ".numaNode", wording.unmarshal(numa, "MemoryReservation.reservedMemory.numaNode", "int32")
                    if numa is not None else "numaNode is required", path=where, rule=strict)
        return []
    limits = entry.get("limits")
    if not isinstance(limits, dict):
        checker.add(key + ".limits", wording.unmarshal(limits, "MemoryReservation.reservedMemory.limits", "v1.ResourceList"), path=where, rule=strict)
        return []
    for extra in sorted(set(entry) - {"numaNode", "limits"}):
        checker.add("%s.%s" % (key, extra), "strict decoding error: unknown field \"reservedMemory[%d].%s\"" % (index, extra), path=where, rule=strict)
    found = []
    for name in sorted(limits, key=str):
        amount_text = limits[name]
        name = str(name)
        full = "%s.limits.%s" % (key, name)
        supported = bool(_HUGEPAGES.match(name) or name == "memory")
        if not supported:
            checker.add(full, "invalid configuration: the limit type %s for NUMA node %d is not supported, only "
                        "[memory hugepages-<HugePageSize>] is accepted" % (wording.quote(name), numa), path=where, rule=_SHAPE_RULE)
        if isinstance(amount_text, float):
            amount_text = repr(amount_text)
        try:
            amount = parse_decimal(amount_text)
        except QuantityError:
            checker.add(full, wording.QUANTITY_FORMAT, path=where, rule="k8s.io/apimachinery/pkg/api/resource/quantity.go")
            continue
        if amount == 0:
            checker.add(full, "invalid configuration: reserved memory may not be zero for NUMA node %d and resource %s" % (numa, wording.quote(name)),
                        path=where, rule=_SHAPE_RULE)
        if (numa, name) in seen:
            checker.add(full, "invalid configuration: the reserved memory has a duplicate value for NUMA node %d and resource %s"
                        % (numa, wording.quote(name)), path=where, rule=_SHAPE_RULE, hint="also set in reservedMemory[%d]" % seen[(numa, name)])
        else:
            seen[(numa, name)] = index
        if amount < 0:
            checker.add(full, "reserved memory for NUMA node %d and resource %s is negative: %s" % (numa, wording.quote(name), amount_text),
                        path=where, rule=_SHAPE_RULE)
            continue
        if supported:
            found.append((index, numa, name, ceil(amount)))
    return found


def check_memory_manager(checker, entries, allocatable):
    """memoryManagerPolicy; with Static, reservedMemory against the machine and Node Allocatable."""
    # pkg/kubelet/cm/memorymanager/memory_manager.go: NewManager (policy names)
    policy = checker.string("memoryManagerPolicy", "None")
    if policy is None:
        return
    if policy == "BestEffort":
        checker.add("memoryManagerPolicy", "policy %s is not available for platform \"linux\"" % wording.quote(policy), rule=_RULE)
        return
    if policy not in _POLICIES:
        checker.add("memoryManagerPolicy", "unknown policy: %s" % wording.quote(policy), rule=_RULE,
                    hint="policy names are case-sensitive: %s" % " | ".join(_POLICIES))
        return
    if policy != "Static":
        return
    numa_nodes = checker.machine.numa_nodes
    totals = {}
    for index, numa, name, amount in entries:
        if numa_nodes is not None and numa not in numa_nodes:
            # getTotalMemoryTypeReserved
            checker.add("reservedMemory[%d].numaNode" % index,
                        "the reserved memory configuration references a NUMA node %d that does not exist on this machine" % numa,
                        path=("reservedMemory",), rule=_RULE, hint="NUMA nodes here: %s" % ", ".join(str(n) for n in sorted(numa_nodes)))
        totals[name] = totals.get(name, 0) + amount
    if checker.machine.memory is None and _memory_percent(checker.config):
        return  # a percentage of an unknown node size: the sums cannot be checked
    _check_sums(checker, totals, allocatable)
    _check_per_node(checker, entries, numa_nodes)


def _check_sums(checker, totals, allocatable):
    # validateReservedMemory: every memory-like type in either side must match.
    expected = {name: value for name, value in allocatable.items() if name == "memory" or _HUGEPAGES.match(name)}
    for name in sorted(set(totals) | set(expected)):
        have = totals.get(name, 0)
        want = expected.get(name, 0)
        if have != want:
            checker.add("reservedMemory", "the total amount %s of type %s is not equal to the value %s determined by Node Allocatable feature"
                        % (wording.quote(wording.format_bytes(have)), wording.quote(name), wording.quote(wording.format_bytes(want))),
                        rule=_RULE, hint=_sum_hint(checker, name))
    if not totals.get("memory") and not expected.get("memory"):
        # pkg/kubelet/cm/memorymanager/policy_static.go: NewPolicyStatic
        checker.add("reservedMemory", "[memorymanager] you should specify the system reserved memory",
                    rule="pkg/kubelet/cm/memorymanager/policy_static.go")


def _check_per_node(checker, entries, numa_nodes):
    # Not a kubelet message: the kubelet computes a NUMA node's free memory as capacity minus
    # reservation (pkg/kubelet/cm/memorymanager/policy_static.go), which this keeps from going negative.
    if not numa_nodes:
        return
    per_node = {}
    for _index, numa, _name, amount in entries:
        if numa in numa_nodes:
            per_node[numa] = per_node.get(numa, 0) + amount
    for numa in sorted(per_node):
        if per_node[numa] > numa_nodes[numa]:
            checker.add("reservedMemory", "reserved memory %s for NUMA node %d is larger than the node's memory %s"
                        % (wording.format_bytes(per_node[numa]), numa, wording.format_bytes(numa_nodes[numa])), rule=_RULE)


def _memory_percent(config):
    try:
        hard = effective_eviction_hard(config)
    except KubeletValidationError:
        return False
    value = hard.get("memory.available")
    return isinstance(value, str) and value.endswith("%")


def _sum_hint(checker, name):
    if name != "memory":
        return ("kubeReserved/systemReserved cannot reserve hugepages and eviction does not count them, "
                "so Node Allocatable expects 0 for %s" % name)
    parts = []
    for key, path in (("kubeReserved.memory", ("kubeReserved", "memory")), ("systemReserved.memory", ("systemReserved", "memory")),
                      ("evictionHard.memory.available", ("evictionHard", "memory.available"))):
        source = checker.source(*path)
        if source:
            parts.append("%s from %s" % (key, source))
    return "it must equal kubeReserved.memory + systemReserved.memory + evictionHard memory.available" + (
        " (%s)" % ", ".join(parts) if parts else "")
