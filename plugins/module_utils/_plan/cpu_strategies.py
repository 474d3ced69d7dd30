# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Which whole cores to reserve: spread, compact (the kubelet's packed order), device-aware, per node, or explicit.

Public: `choose_cpus(topology, policy, reasons, warnings)` -> `Selection`, and `Selection`.

Every strategy reserves whole physical cores (SMT siblings together), never offline or
isolated CPUs, and keeps at least one whole core allocatable on every NUMA node with CPUs.
"""

from __future__ import annotations

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import cpulist as _cpulist
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._plan import packed
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._plan import view
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._plan.policy import PlanError


class Selection(object):
    """Reserved cores being chosen, with the rule that every CPU node keeps one whole core."""

    def __init__(self, topology, need):
        self.topology = topology
        self.need = need
        self.cores = []
        self.taken = set()
        self.left = {node_id: len(view.usable_cores(topology, node_id)) for node_id in topology.nodes}

    def can_take(self, cores):
        by_node = {}
        for core in cores:
            if core.id in self.taken or not core.usable:
                return False
            by_node[core.numa] = by_node.get(core.numa, 0) + 1
        return all(self.left[node_id] - count >= 1 for node_id, count in by_node.items())

    def take(self, cores):
        for core in sorted(cores, key=lambda item: item.id):
            self.cores.append(core)
            self.taken.add(core.id)
            self.left[core.numa] -= 1
            self.need -= len(core.cpus)

    def release(self, core):
        self.cores.remove(core)
        self.taken.discard(core.id)
        self.left[core.numa] += 1
        self.need += len(core.cpus)

    def cpus(self):
        return sorted(cpu for core in self.cores for cpu in core.cpus)


def _keep_smallest(selection, node_ids, reasons):
    """When a strategy stops short, let each full node keep its smallest whole core instead.

    A strategy stops on a node once one usable core is left there; when cores differ in
    size (an SMT sibling offline), the core left may be larger than one it took. Swapping
    them reserves more CPUs, and keeping the smallest core of every node is the most that
    can be reserved, so the plan is refused only when even that is too little.
    """
    for node_id in node_ids:
        if selection.need <= 0:
            return
        left = [core for core in view.usable_cores(selection.topology, node_id) if core.id not in selection.taken]
        taken = [core for core in selection.cores if core.numa == node_id]
        if len(left) != 1 or not taken:
            continue
        smallest = min(taken, key=lambda core: (len(core.cpus), core.id))
        if len(smallest.cpus) >= len(left[0].cpus):
            continue
        selection.release(smallest)
        selection.take(left)
        reasons.append("NUMA node %d keeps core %d (CPUs %s) allocatable instead of core %d (CPUs %s): it has fewer online CPUs, and the "
                       "reservation did not fit otherwise"
                       % (node_id, smallest.id, _cpulist.format(smallest.cpus), left[0].id, _cpulist.format(left[0].cpus)))


def _spread(selection, node_ids):
    """Round-robin over the nodes, lowest core of each first, until enough CPUs."""
    queues = {node_id: [core for core in view.usable_cores(selection.topology, node_id) if core.id not in selection.taken] for node_id in node_ids}
    progress = True
    while selection.need > 0 and progress:
        progress = False
        for node_id in node_ids:
            if selection.need <= 0:
                break
            queue = queues[node_id]
            if queue and selection.can_take([queue[0]]):
                selection.take([queue.pop(0)])
                progress = True


def choose_cpus(topology, policy, reasons, warnings):
    """Return the reserved cores (a _Selection) following the policy."""
    if policy["reserved_cpu_list"] is not None:
        if topology.cpus.isolated_unknown:
            warnings.append("isolated CPUs unknown (cpus.isolated is %s): reserved_cpu_list %s is not checked against isolated CPUs"
                            % (topology.cpus.isolated_unknown, policy["reserved_cpu_list"]))
        return _explicit(topology, policy["reserved_cpu_list"], reasons)
    if topology.cpus.isolated_unknown:
        raise PlanError("isolated CPUs unknown (cpus.isolated is %s): refusing to choose reserved CPUs that might be isolated; "
                        "fix the facts or give reserved_cpu_list" % topology.cpus.isolated_unknown)
    count = policy["reserved_cpus"]
    strategy = policy["strategy"]
    if isinstance(count, dict):
        return _per_node(topology, count, strategy, reasons)
    selection = Selection(topology, count)
    if strategy == "compact":
        packed.Packed(selection, [core for core in topology.cores.values() if core.usable]).run()
        reasons.append("strategy compact: the kubelet's own packed order (takeByTopologyNUMAPacked), whole cores only")
    elif strategy == "spread":
        _spread(selection, view.cpu_nodes(topology))
        reasons.append("strategy spread: whole cores spread evenly over NUMA nodes %s, lowest cores first" % view.ids(view.cpu_nodes(topology)))
    else:
        _device_aware(topology, selection, reasons, warnings)
    if selection.need > 0:
        _keep_smallest(selection, view.cpu_nodes(topology), reasons)
    if selection.need > 0:
        raise PlanError(_shortage(topology, "reserved_cpus %d" % count, count))
    return selection


def _device_aware(topology, selection, reasons, warnings):
    nodes = view.cpu_nodes(topology)
    placed = view.devices(topology)
    busy = [node_id for node_id in nodes if placed.gpus[node_id] or placed.nics[node_id]]
    free = [node_id for node_id in nodes if node_id not in busy]
    if placed.unplaced:
        warnings.append("device-aware: %s have no known NUMA node and were not counted" % ", ".join(placed.unplaced))
    if not free:
        _spread(selection, nodes)
        reasons.append("strategy device-aware: every NUMA node with CPUs (%s) has a GPU or NIC; fell back to spread" % view.ids(nodes))
        return
    _spread(selection, free)
    if not busy:
        reasons.append("strategy device-aware: no NUMA node has a GPU or NIC; spread over NUMA nodes %s" % view.ids(free))
        return
    reasons.append("strategy device-aware: reserved on NUMA nodes without GPUs or NICs (%s) first, so device-local nodes (%s) keep "
                   "their cores for exclusive slices" % (view.ids(free), view.ids(busy)))
    if selection.need > 0:
        _spread(selection, busy)
        reasons.append("strategy device-aware: nodes %s could not hold the whole reservation; the rest spread over device-local nodes %s"
                       % (view.ids(free), view.ids(busy)))


def _per_node(topology, counts, strategy, reasons):
    selection = Selection(topology, 0)
    for key, count in counts.items():
        node_id = int(key)
        if node_id not in topology.nodes:
            raise PlanError("policy reserved_cpus names NUMA node %d, which does not exist (nodes: %s)" % (node_id, view.ids(sorted(topology.nodes))))
        if count == 0:
            continue
        cores = view.usable_cores(topology, node_id)
        if not cores:
            raise PlanError("policy reserved_cpus asks %d CPUs on NUMA node %d, which has no online, non-isolated whole core" % (count, node_id))
        selection.need = count
        if strategy == "compact":
            packed.Packed(selection, cores).run()
        else:
            for core in cores:
                if selection.need <= 0 or not selection.can_take([core]):
                    break
                selection.take([core])
        if selection.need > 0:
            _keep_smallest(selection, [node_id], reasons)
        if selection.need > 0:
            reservable = sorted(cores, key=lambda core: len(core.cpus))[1:]
            raise PlanError("policy reserved_cpus asks %d CPUs on NUMA node %d, but only %d whole cores (%d CPUs) of its %d can be reserved "
                            "while keeping one whole core allocatable there"
                            % (count, node_id, len(reservable), sum(len(core.cpus) for core in reservable), len(cores)))
    reasons.append("reserved_cpus per NUMA node %s: %s order within each node" % (
        ", ".join("%s: %d" % item for item in counts.items()), "the kubelet's packed" if strategy == "compact" else "lowest cores first"))
    selection.need = 0
    return selection


def _explicit(topology, text, reasons):
    cpus = frozenset(_cpulist.parse(text))
    offline = cpus - topology.cpus.online
    if offline:
        raise PlanError("reserved_cpu_list %s includes CPUs %s that are not online (online: %s); the kubelet needs a subset of online CPUs"
                        % (text, _cpulist.format(offline), _cpulist.format(topology.cpus.online)))
    isolated = cpus & topology.cpus.isolated
    if isolated:
        raise PlanError("reserved_cpu_list %s includes isolated CPUs %s (isolated: %s)"
                        % (text, _cpulist.format(isolated), _cpulist.format(topology.cpus.isolated)))
    cores = sorted(set(topology.cores[topology.cpu_core[cpu]] for cpu in cpus), key=lambda core: core.id)
    for core in cores:
        missing = core.cpus - cpus
        if missing:
            raise PlanError("reserved_cpu_list %s splits core %d (CPUs %s): SMT siblings %s are missing; reserve whole physical cores"
                            % (text, core.id, _cpulist.format(core.cpus), _cpulist.format(missing)))
        if core.numa is None:
            raise PlanError("reserved_cpu_list %s includes core %d (CPUs %s), which belongs to no NUMA node" % (text, core.id, _cpulist.format(core.cpus)))
    selection = Selection(topology, 0)
    for core in cores:
        if not selection.can_take([core]):
            node_cores = view.usable_cores(topology, core.numa)
            raise PlanError("reserved_cpu_list %s takes all %d whole cores of NUMA node %d (CPUs %s); keep at least one whole core allocatable there"
                            % (text, len(node_cores), core.numa, _cpulist.format(topology.nodes[core.numa].cpus - topology.cpus.isolated)))
        selection.take([core])
    reasons.append("reserved_cpu_list %s given explicitly: checked (online, not isolated, whole cores, one core left per NUMA node); "
                   "strategy not used" % text)
    return selection


def _shortage(topology, what, count):
    parts = []
    cores = cpus = 0
    for node_id in view.cpu_nodes(topology):
        usable = view.usable_cores(topology, node_id)
        reservable = sorted(usable, key=lambda core: len(core.cpus))[1:]
        cores += len(reservable)
        cpus += sum(len(core.cpus) for core in reservable)
        parts.append("node %d: %d usable cores" % (node_id, len(usable)))
    return ("%s needs %d logical CPUs in whole cores, but only %d whole cores (%d logical CPUs) can be reserved while keeping one whole "
            "core allocatable on each NUMA node with CPUs (%s)" % (what, count, cores, cpus, "; ".join(parts) or "no CPU node"))
