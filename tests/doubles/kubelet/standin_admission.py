# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Pod admission of the kubelet STAND-IN (tests only; not the kubelet): QoS, hints, the pod-scope merge, the CPU and memory bubbles.

Pure functions over plain dicts (a pod as the API returns it, CPU sets as Python sets); nothing here
reads files or talks to the API. Each behaviour and the kubelet source it follows (kubernetes/kubernetes,
1.37 line, with PodLevelResources and PodLevelResourceManagers on):

- QoS class: pkg/apis/core/v1/helper/qos/qos.go ComputePodQOS. With `.spec.resources` set, only the
  pod-level cpu and memory count (requests default to limits, as the API's defaulting of pod-level
  resources does); else every container and init container. Guaranteed needs cpu and memory limits
  and requests equal to them.
- Exclusive CPUs of a container: cpumanager/policy_static.go guaranteedCPUs (Guaranteed pod, an
  integral cpu request; for a pod with pod-level resources the container must also be
  IsContainerEquivalentQOSGuaranteed, cm/qos: cpu and memory requests equal to limits, both set).
  The pod bubble: podGuaranteedCPUs (the integral pod-level cpu request).
- The empty shared pool checks: policy_static.go validatePodScopeResources and memorymanager
  policy_static.go validatePodScopeResources (the messages are theirs).
- CPU hints: policy_static.go GetPodTopologyHints/generateCPUTopologyHints (every NUMA mask with
  enough available CPUs; preferred when its size is the smallest mask whose CPUs could hold the request).
- Memory hints: memorymanager policy_static.go calculateHints (masks with enough allocatable and free
  memory of every requested type; a node grouped with others is not a single-NUMA hint; preferred
  at the smallest size).
- Merge under single-numa-node: topologymanager policy_single_numa_node.go Merge (filterProvidersHints,
  filterSingleNumaHints, mergeFilteredHints in policy.go: a preferred hint beats a non-preferred one,
  then the narrower, then the lower-numbered; the all-nodes affinity becomes nil; admit = preferred).
  A refusal is TopologyAffinityError, "Resources cannot be allocated with Topology locality"
  (topology_manager.go), which the kubelet puts in the pod status as phase Failed with the message
  "Pod was rejected: " + that (kubelet.go rejectPod, cm/admission GetPodAdmitResult). A pod with
  pod-level resources at pod scope is refused by scope_pod.go Admit with
  NewPodLevelTopologyAffinityError("pod with pod-level resources failed admission under pod-scope
  topology manager"), whose text the 1.37 tutorial and e2e_node test show as "Pod Scope pod with
  pod-level resources failed admission under pod-scope topology manager" (`topology_rejection`).
- CPU bubble: policy_static.go AllocatePod/allocateCPUs: the CPUs of the hint's NUMA nodes first,
  then any; exclusive containers carved from it in order (init containers, then app containers), the
  rest is the pod's shared pool, written for every container without exclusive CPUs. takeByTopology
  is simplified here: whole free cores first, lowest CPU id first, then single CPUs.
- Memory bubble: memorymanager policy_static.go AllocatePod: one block per requested type on the hint's
  nodes for the pod (podEntries), a block per exclusive container, the remainder for the others,
  updateMachineState (reserved, free, numberOfAssignments, cells) once per type for the pod.
"""

from fractions import Fraction
import re

TOPOLOGY_AFFINITY_REASON = "TopologyAffinityError"
TOPOLOGY_AFFINITY_MESSAGE = "Resources cannot be allocated with Topology locality"
POD_LEVEL_TOPOLOGY_AFFINITY_MESSAGE = "Pod Scope pod with pod-level resources failed admission under pod-scope topology manager"
EMPTY_POOL_REASON = "UnexpectedAdmissionError"
_SUFFIX = {"": 1, "m": Fraction(1, 1000), "k": 10 ** 3, "M": 10 ** 6, "G": 10 ** 9, "T": 10 ** 12, "P": 10 ** 15, "E": 10 ** 18,
           "Ki": 2 ** 10, "Mi": 2 ** 20, "Gi": 2 ** 30, "Ti": 2 ** 40, "Pi": 2 ** 50, "Ei": 2 ** 60}


def quantity(raw):
    """A resource.Quantity's exact value as a Fraction (the suffixes the canary and the tests use)."""
    match = re.fullmatch(r"([0-9]*\.?[0-9]+)(Ki|Mi|Gi|Ti|Pi|Ei|m|k|M|G|T|P|E|)", str(raw).strip())
    if not match:
        raise ValueError("quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$': %r" % (raw,))
    return Fraction(match.group(1)) * _SUFFIX[match.group(2)]


def topology_rejection(pod, scope):
    """(reason, message) of the topology manager's refusal: scope_pod.go's pod-level error for a pod-level pod at pod scope, else
    topology_manager.go's."""
    if scope == "pod" and is_pod_level(pod):
        return TOPOLOGY_AFFINITY_REASON, POD_LEVEL_TOPOLOGY_AFFINITY_MESSAGE
    return TOPOLOGY_AFFINITY_REASON, TOPOLOGY_AFFINITY_MESSAGE


def _resources(obj):
    return (obj or {}).get("resources") or {}


def is_pod_level(pod):
    """component-helpers resource.IsPodLevelResourcesSet: pod-level cpu or memory requests or limits."""
    res = (pod.get("spec") or {}).get("resources") or {}
    return any(key in (res.get(part) or {}) for part in ("requests", "limits") for key in ("cpu", "memory"))


def _containers(pod, init=True):
    spec = pod.get("spec") or {}
    return (list(spec.get("initContainers") or []) if init else []) + list(spec.get("containers") or [])


def _guaranteed_pair(requests, limits):
    if "cpu" not in limits or "memory" not in limits:
        return False
    return all(quantity(requests.get(key, limits[key])) == quantity(limits[key]) for key in ("cpu", "memory"))


def pod_qos(pod):
    """Guaranteed, Burstable or BestEffort (qos.go ComputePodQOS with PodLevelResources)."""
    if is_pod_level(pod):
        res = (pod.get("spec") or {}).get("resources") or {}
        requests, limits = dict(res.get("requests") or {}), dict(res.get("limits") or {})
        parts = [(requests, limits)]
    else:
        parts = [(dict(_resources(c).get("requests") or {}), dict(_resources(c).get("limits") or {})) for c in _containers(pod)]
    if not any(key in r or key in lim for r, lim in parts for key in ("cpu", "memory")):
        return "BestEffort"
    return "Guaranteed" if all(_guaranteed_pair(r, lim) for r, lim in parts) else "Burstable"


def equivalent_guaranteed(container):
    """cm/qos IsContainerEquivalentQOSGuaranteed: cpu and memory requests set and equal to their limits."""
    res = _resources(container)
    requests, limits = res.get("requests") or {}, res.get("limits") or {}
    return all(key in requests and key in limits and quantity(requests[key]) == quantity(limits[key]) for key in ("cpu", "memory"))


def is_restartable(container):
    """podutil.IsRestartableInitContainer: restartPolicy Always on an init container (a sidecar)."""
    return container.get("restartPolicy") == "Always"


def guaranteed_cpus(pod, container):
    """policy_static.go guaranteedCPUs: the container's exclusive CPU count, 0 for the shared pool."""
    if pod_qos(pod) != "Guaranteed":
        return 0
    if is_pod_level(pod) and not equivalent_guaranteed(container):
        return 0
    raw = (_resources(container).get("requests") or {}).get("cpu")
    if raw is None:
        return 0
    value = quantity(raw)
    return int(value) if value == int(value) else 0


def pod_guaranteed_cpus(pod):
    """policy_static.go podGuaranteedCPUs for a pod with pod-level resources: its integral pod-level cpu request."""
    if pod_qos(pod) != "Guaranteed":
        return 0
    res = (pod.get("spec") or {}).get("resources") or {}
    raw = (res.get("requests") or {}).get("cpu", (res.get("limits") or {}).get("cpu"))
    if raw is None:
        return 0
    value = quantity(raw)
    return int(value) if value == int(value) else 0


def validate_pod_scope_cpus(pod):
    """policy_static.go validatePodScopeResources: None, or the message of an empty shared pool."""
    total, running, shared = pod_guaranteed_cpus(pod), 0, False
    spec = pod.get("spec") or {}
    for container in spec.get("initContainers") or []:
        cpus = guaranteed_cpus(pod, container)
        if not is_restartable(container):
            if cpus > 0 and cpus > total - running:
                return "pod rejected, largest exclusive init container requests %d cpus, but only %d available" % (cpus, total - running)
            if cpus == 0 and running >= total:
                return "pod rejected, pod has shared init containers but no cpus available for them"
            continue
        if cpus == 0:
            shared = True
            continue
        running += cpus
    for container in spec.get("containers") or []:
        cpus = guaranteed_cpus(pod, container)
        if cpus == 0:
            shared = True
        running += cpus
    if shared and running >= total:
        return "pod rejected, sum of exclusive container cpu requests equals pod budget, leaving no cpus for shared containers"
    return None


def _memory_types(requests):
    return {key: int(quantity(value)) for key, value in (requests or {}).items() if key == "memory" or key.startswith("hugepages-")}


def pod_memory_requests(pod):
    """memorymanager getPodRequestedResources for a pod-level pod: memory and hugepages-* of `.spec.resources`."""
    res = (pod.get("spec") or {}).get("resources") or {}
    return _memory_types(dict(res.get("limits") or {}, **(res.get("requests") or {})))


def container_memory_requests(pod, container):
    """memorymanager getContainerRequestedResources: {} unless the container is equivalent-Guaranteed."""
    if is_pod_level(pod) and not equivalent_guaranteed(container):
        return {}
    return _memory_types(_resources(container).get("requests"))


def _masks(nodes):
    """bitmask.IterateBitMasks: every non-empty subset, smaller first, then lexical."""
    nodes, out = sorted(nodes), []

    def walk(start, chosen, size):
        if len(chosen) == size:
            out.append(frozenset(chosen))
            return
        for index in range(start, len(nodes)):
            walk(index + 1, chosen + [nodes[index]], size)

    for size in range(1, len(nodes) + 1):
        walk(0, [], size)
    return out


def cpu_hints(node_cpus, available, request):
    """[(mask, preferred)] for `request` CPUs (generateCPUTopologyHints, no reusable CPUs)."""
    masks, smallest, hints = _masks(node_cpus), len(node_cpus), []
    for mask in masks:
        in_mask = set().union(*(node_cpus[n] for n in mask))
        if len(in_mask) >= request and len(mask) < smallest:
            smallest = len(mask)
        if len(in_mask & available) >= request:
            hints.append(mask)
    return [(mask, len(mask) == smallest) for mask in hints]


def memory_hints(machine_state, requests):
    """{type: [(mask, preferred)]} (memorymanager calculateHints, no reusable memory)."""
    nodes = sorted(machine_state)
    smallest, found = len(nodes), []
    for mask in _masks(nodes):
        tables = [machine_state[n]["memoryMap"] for n in mask]
        if any(sum(t.get(kind, {}).get("allocatable", 0) for t in tables) < size for kind, size in requests.items()):
            continue
        smallest = min(smallest, len(mask))
        if len(mask) == 1 and len(machine_state[next(iter(mask))]["cells"]) > 1:
            continue
        if len(mask) > 1 and any(machine_state[n]["numberOfAssignments"] > 0 and (
                len(machine_state[n]["cells"]) == 1 or sorted(machine_state[n]["cells"]) != sorted(mask)) for n in mask):
            continue
        if any(sum(t.get(kind, {}).get("free", 0) for t in tables) < size for kind, size in requests.items()):
            continue
        found.append(mask)
    return {kind: [(mask, len(mask) == smallest) for mask in found] for kind in requests}


def merge_single_numa_node(nodes, providers):
    """(affinity or None, admit) of policy_single_numa_node.go Merge over providers' {resource: hints or None}."""
    filtered = []
    for hints in providers:
        if not hints:
            filtered.append([(None, True)])
            continue
        for resource in sorted(hints):
            filtered.append(list(hints[resource]) if hints[resource] else [(None, False)])
    single = [[h for h in hs if (h[0] is None and h[1]) or (h[0] is not None and len(h[0]) == 1 and h[1])] for hs in filtered]
    everything = frozenset(nodes)
    best = (everything, False)

    def narrower(one, other):
        return len(one) < len(other) or (len(one) == len(other) and sorted(one) < sorted(other))

    def permutations(index, chosen):
        nonlocal best
        if index == len(single):
            affinity, preferred = everything, True
            for mask, pref in chosen:
                affinity = affinity & (mask if mask is not None else everything)
                preferred = preferred and pref
            if not affinity:
                return
            if preferred and not best[1]:
                best = (affinity, preferred)
            elif preferred == best[1] and narrower(affinity, best[0]):
                best = (affinity, preferred)
            return
        for hint in single[index]:
            permutations(index + 1, chosen + [hint])

    permutations(0, [])
    affinity = None if best[0] == everything else best[0]
    return affinity, best[1]


def take_by_topology(cores, available, count):
    """Simplified takeByTopology: whole free cores first (lowest CPU id first), then single CPUs."""
    taken = set()
    for core in sorted(cores, key=min):
        if core <= available and len(taken) + len(core) <= count:
            taken |= core
    for cpu in sorted(available - taken):
        if len(taken) < count:
            taken.add(cpu)
    return taken if len(taken) == count else None
