# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The pods that stay on the node through the kubelet's restart, and whether the target policy would admit them.

Public: `staying`, `predict`, `extended`, `restarts`, `target_from`, `quantity`, `Target`, `AdmissionError`, `REFUSAL_HINT`.

The drain leaves DaemonSet pods and mirror (static) pods in place, and whatever else it skips
(`filters.classify`). After the restart, with the checkpoints removed, the kubelet runs hard admission
again for every pod bound to the node (GPU-NODE-FACTS.md section 4; PR kubernetes/kubernetes#104817), so
a pod admitted under the old policy may be rejected under the new one. The prediction follows the
kubelet's rules as far as the plan knows them:

- exclusive CPUs: a Guaranteed pod's containers with an integral cpu request, under the ``static`` CPU
  manager (pkg/kubelet/cm/cpumanager/policy_static.go ``guaranteedCPUs``); memory of a Guaranteed pod
  under the ``Static`` memory manager (memorymanager/policy_static.go);
- ``single-numa-node``: each pod (``topologyManagerScope: pod``) or each container (``container``) must
  fit on one NUMA node, against the planned allocatable per node (its CPUs less ``reservedSystemCPUs``,
  its memory less ``reservedMemory``), taken in the pods' creation order, the lowest fitting node first;
  else ``TopologyAffinityError`` "Resources cannot be allocated with Topology locality"
  (topologymanager/topology_manager.go); any other policy takes exclusive CPUs from the whole pool,
  else ``UnexpectedAdmissionError`` "not enough cpus available to satisfy request" (policy_static.go);
- every staying pod's cpu requests together against the planned allocatable cpu of the node, else
  ``OutOfcpu`` (pkg/kubelet/lifecycle/predicate.go).

The placement is first fit in the pods' order (the kubelet's hints prefer the narrowest fitting mask,
then the lowest node); SMT alignment, init containers and pod-level resources are not modelled, so this
is a prediction, and the check after the start (`came_back`) is what catches the rest.
"""

from __future__ import annotations

from fractions import Fraction
import collections
import re

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base.errors import NumaGateError
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._transition.api import filters

REFUSAL_HINT = "allow a pod by name with kubelet_transition_allow_rejected_pods (namespace/pod or namespace/owner)"
# Node allocatable names that are not a device plugin's extended resource.
_NATIVE = ("cpu", "memory", "pods", "ephemeral-storage")
_SUFFIX = {"": 1, "m": Fraction(1, 1000), "k": 10 ** 3, "M": 10 ** 6, "G": 10 ** 9, "T": 10 ** 12, "P": 10 ** 15, "E": 10 ** 18,
           "Ki": 2 ** 10, "Mi": 2 ** 20, "Gi": 2 ** 30, "Ti": 2 ** 40, "Pi": 2 ** 50, "Ei": 2 ** 60}

Target = collections.namedtuple("Target", "cpu_policy memory_policy topology_policy scope numa")
Target.__doc__ = """The target policy and the planned allocatable per NUMA node: ``numa`` is ``{id: (cpus, memory_bytes)}``."""


class AdmissionError(NumaGateError):
    """A pod that stays would be rejected by the target policy, or the input cannot say."""


def quantity(raw, what):
    """A resource quantity's exact value; a value that is not one is refused naming it."""
    match = re.fullmatch(r"([0-9]*\.?[0-9]+)(Ki|Mi|Gi|Ti|Pi|Ei|m|k|M|G|T|P|E|)", str(raw).strip())
    if not match:
        raise AdmissionError("%s must be a resource quantity (like 2, 500m or 4Gi), not %r" % (what, raw))
    return Fraction(match.group(1)) * _SUFFIX[match.group(2)]


def _cpulist(text, what):
    cpus = set()
    for part in str(text or "").replace(" ", "").split(","):
        if not part:
            continue
        match = re.fullmatch(r"(\d+)(?:-(\d+))?", part)
        if not match or (match.group(2) and int(match.group(2)) < int(match.group(1))):
            raise AdmissionError("%s must be a cpulist (like 0-3,8), not %r" % (what, text))
        cpus.update(range(int(match.group(1)), int(match.group(2) or match.group(1)) + 1))
    return cpus


def target_from(config, numa_nodes):
    """`Target` from the target's effective KubeletConfiguration and the topology facts' ``numa_nodes``."""
    reserved = _cpulist(config.get("reservedSystemCPUs"), "reservedSystemCPUs")
    reserved_memory = {}
    for entry in config.get("reservedMemory") or []:
        limit = (entry.get("limits") or {}).get("memory")
        if limit is not None:
            reserved_memory[int(entry.get("numaNode", 0))] = int(quantity(limit, "reservedMemory[numaNode %s].limits.memory" % entry.get("numaNode")))
    numa = {}
    for node in numa_nodes or []:
        cpus = _cpulist(node.get("cpus"), "numa_nodes[%s].cpus" % node.get("id")) - reserved
        numa[int(node["id"])] = (len(cpus), int(node.get("memory_bytes") or 0) - reserved_memory.get(int(node["id"]), 0))
    if not numa:
        raise AdmissionError("admission needs the node's NUMA nodes (the topology facts' numa_nodes), none were given")
    return Target(config.get("cpuManagerPolicy", "none"), config.get("memoryManagerPolicy", "None"),
                  config.get("topologyManagerPolicy", "none"), config.get("topologyManagerScope", "container"), numa)


def staying(pods, selection):
    """The pods of ``pods`` the drain leaves running (``selection.skipped``), in creation order; finished ones do not count."""
    kept = {entry["pod"]: entry["reason"] for entry in selection.skipped}
    out = [p for p in pods if filters.pod_name(p) in kept and (p.get("status") or {}).get("phase") not in filters.FINISHED]
    return sorted(out, key=lambda p: (p["metadata"].get("creationTimestamp") or "", filters.pod_name(p)))


def _owner(pod):
    for ref in pod["metadata"].get("ownerReferences") or []:
        if ref.get("controller"):
            return "%s/%s" % (pod["metadata"].get("namespace", ""), ref.get("name"))
    return None


def _containers(pod):
    return list((pod.get("spec") or {}).get("containers") or [])


def _res(container, part):
    return ((container.get("resources") or {}).get(part)) or {}


def _guaranteed(pod):
    """qos.go ComputePodQOS without pod-level resources: every container's cpu and memory limits set, requests equal."""
    containers = list((pod.get("spec") or {}).get("initContainers") or []) + _containers(pod)
    name = filters.pod_name(pod)
    for container in containers:
        limits, requests = _res(container, "limits"), _res(container, "requests")
        for key in ("cpu", "memory"):
            what = "%s %s" % (name, key)
            if key not in limits or quantity(requests.get(key, limits[key]), what) != quantity(limits[key], what):
                return False
    return bool(containers)


def _needs(pod):
    """[(exclusive cpus, memory bytes)] per app container of a Guaranteed pod (both 0 for a shared one)."""
    name = filters.pod_name(pod)
    out = []
    for container in _containers(pod):
        cpu = quantity(_res(container, "requests").get("cpu", _res(container, "limits").get("cpu", 0)), "%s cpu" % name)
        memory = quantity(_res(container, "requests").get("memory", _res(container, "limits").get("memory", 0)), "%s memory" % name)
        out.append((int(cpu) if cpu == int(cpu) else 0, int(memory)))
    return out


def _cpu_request(pod):
    name = filters.pod_name(pod)
    return sum((quantity(_res(c, "requests").get("cpu", _res(c, "limits").get("cpu", 0)), "%s cpu" % name) for c in _containers(pod)),
               Fraction(0))


def _bytes(value):
    for unit, size in (("Gi", 2 ** 30), ("Mi", 2 ** 20), ("Ki", 2 ** 10)):
        if value >= size and value % size == 0:
            return "%d%s" % (value // size, unit)
    return "%.1fGi" % (value / 2 ** 30) if value >= 2 ** 30 else "%d" % value


def _left(free):
    return ", ".join("NUMA %d: %d CPUs, %s" % (nid, cpus, _bytes(mem)) for nid, (cpus, mem) in sorted(free.items()))


def _place(free, cpus, memory, uses_memory):
    for nid in sorted(free):
        have_cpus, have_mem = free[nid]
        if have_cpus >= cpus and (not uses_memory or have_mem >= memory):
            free[nid] = (have_cpus - cpus, have_mem - (memory if uses_memory else 0))
            return True
    return False


def _one(pod, target, free):
    """None when ``pod`` is admitted (``free`` taken from), else ``(reason, why)``."""
    if not _guaranteed(pod):
        return None
    needs = _needs(pod)
    exclusive = target.cpu_policy == "static"
    uses_memory = target.memory_policy == "Static"
    wanted = [(cpus if exclusive else 0, memory) for cpus, memory in needs]
    if not any(c for c, _m in wanted) and not uses_memory:
        return None
    if target.topology_policy == "single-numa-node":
        groups = [(sum(c for c, _m in wanted), sum(m for _c, m in wanted))] if target.scope == "pod" else wanted
        before = dict(free)
        for cpus, memory in groups:
            if (cpus or uses_memory) and not _place(free, cpus, memory, uses_memory):
                what = "%d exclusive CPU%s" % (cpus, "" if cpus == 1 else "s")
                if uses_memory:
                    what += " and %s of memory" % _bytes(memory)
                why = "TopologyAffinityError (Resources cannot be allocated with Topology locality): Guaranteed, %s needed on one NUMA node " \
                      "under single-numa-node at %s scope; the planned allocatable left is %s" % (what, target.scope, _left(before))
                free.update(before)
                return "TopologyAffinityError", why
        return None
    total = sum(c for c, _m in wanted)
    have = sum(cpus for cpus, _m in free.values())
    if total > have:
        return "UnexpectedAdmissionError", "UnexpectedAdmissionError (not enough cpus available to satisfy request): Guaranteed, %d " \
            "exclusive CPUs needed, %d planned allocatable CPUs left" % (total, have)
    for nid in sorted(free):
        take = min(total, free[nid][0])
        free[nid] = (free[nid][0] - take, free[nid][1])
        total -= take
    return None


def predict(pods, target, allow=()):
    """Whether ``target`` admits the staying ``pods`` (in their order).

    Returns ``{"staying": [{pod, uid, owner, qos, gpus, restarts}], "rejected": [{pod, reason, why, allowed}], "refusals": [lines]}``;
    ``refusals`` are the rejections not allowed by pod or owner name in ``allow``.
    """
    free = dict(target.numa)
    allocatable_cpu = sum(cpus for cpus, _m in target.numa.values())
    requested = Fraction(0)
    found = {"staying": [], "rejected": [], "refusals": []}
    for pod in pods:
        name, owner = filters.pod_name(pod), _owner(pod)
        found["staying"].append({"pod": name, "uid": pod["metadata"].get("uid"), "owner": owner,
                                 "qos": "Guaranteed" if _guaranteed(pod) else "not Guaranteed", "gpus": _gpus(pod), "restarts": restarts(pod)})
        verdict = _one(pod, target, free)
        requested += _cpu_request(pod)
        if verdict is None and requested > allocatable_cpu:
            verdict = ("OutOfcpu", "OutOfcpu (Node didn't have enough resource: cpu): the staying pods request %s CPUs up to this one, the "
                       "planned allocatable is %d" % (_cpus(requested), allocatable_cpu))
        if verdict is None:
            continue
        allowed = name in allow or (owner is not None and owner in allow)
        found["rejected"].append({"pod": name, "reason": verdict[0], "why": verdict[1], "allowed": allowed})
        if not allowed:
            found["refusals"].append("%s would be rejected after the restart: %s" % (name, verdict[1]))
    return found


def _gpus(pod):
    """The ``nvidia.com/gpu`` its containers ask for (limits, as extended resources are given)."""
    return sum(int(quantity(_res(c, "limits").get("nvidia.com/gpu", _res(c, "requests").get("nvidia.com/gpu", 0)), "nvidia.com/gpu"))
               for c in _containers(pod))


def restarts(pod):
    """The restarts of its containers so far (``status.containerStatuses[].restartCount``)."""
    return sum(int(c.get("restartCount") or 0) for c in (pod.get("status") or {}).get("containerStatuses") or [])


def _cpus(value):
    return str(int(value)) if value == int(value) else "%.3f" % float(value)


def extended(node):
    """``{resource: count}`` of the Node's allocatable extended resources (device plugins'), as the API returns them."""
    allocatable = (node.get("status") or {}).get("allocatable") or {}
    return {name: str(value) for name, value in sorted(allocatable.items()) if name not in _NATIVE and not name.startswith("hugepages-")}
