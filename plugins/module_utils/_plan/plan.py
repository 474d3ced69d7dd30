# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The reservation planner: topology facts (schema v1) + policy -> kubelet reservations.

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
- Static Memory Manager refuses a zero memory reservation ("you should specify the
  system reserved memory"), and the static CPU Manager a zero CPU reservation.

The plan's ``kubelet_settings`` are written as a drop-in, a JSON merge patch over the
node's existing configuration (``base_config``: the effective configuration without
the collection's own drop-in, evictionHard defaults filled in as
``_kubelet_merge.effective_config`` does). So the planner computes the reservation and
checks the plan on ``merge_patch(base_config, kubelet_settings)``, the configuration
the kubelet will really run with, and writes kubeReserved, systemReserved and
evictionHard only when the policy sets them: a partial policy map merges over the
node's values, it does not replace them.
"""

from __future__ import annotations

import copy
from decimal import DecimalException

from ansible_collections.gpusmith.numa_gate.plugins.module_utils import _cpulist
from ansible_collections.gpusmith.numa_gate.plugins.module_utils import _kubelet_merge
from ansible_collections.gpusmith.numa_gate.plugins.module_utils import _kubelet_validation
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._quantity import from_bytes, to_bytes, to_millicpu

PLAN_SCHEMA_VERSION = 1
STRATEGIES = ("spread", "compact", "device-aware")
DEFAULT_RESERVED_CPUS = 2
DEFAULT_STRATEGY = "device-aware"
# The seed report's canary: pod-level resource managers on, static CPU and Memory
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
POLICY_KEYS = ("reserved_cpus", "reserved_cpu_list", "strategy", "kube_reserved", "system_reserved", "eviction_hard", "kubelet_settings")
# cmd/kubelet/app/server.go parseResourceList: the only resources kube/system reserved may name.
RESERVABLE_RESOURCES = ("cpu", "memory", "ephemeral-storage", "pid")
_MEMORY_QUANTA = (1 << 20, 1 << 10, 1)
# Where a key of the merged configuration came from, in problems and reasons.
PLAN_ORIGIN = "the plan"
BASE_ORIGIN = "the node's kubelet configuration"


class PlanError(ValueError):
    """Facts or a policy that cannot give a valid reservation plan."""


# ---------------------------------------------------------------- policy


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


# ---------------------------------------------------------------- topology model


class _Core(object):
    """A physical core: its online CPUs, where it sits, whether it can be reserved whole."""

    __slots__ = ("id", "cpus", "numa", "package", "usable")

    def __init__(self, cpus, numa, package, usable):
        self.cpus = frozenset(cpus)
        # pkg/kubelet/cm/cpumanager/topology/topology.go getUniqueCoreID: the lowest CPU id.
        self.id = min(self.cpus)
        self.numa = numa
        self.package = package
        self.usable = usable


class _Model(object):
    """The parts of the topology facts the planner needs, checked and sorted.

    Any malformed part of the facts is a PlanError naming the field, never a TypeError.
    """

    def __init__(self, topology):
        if not isinstance(topology, dict):
            raise PlanError("topology %r is a %s, expected numa_gate_topology facts (a dict)" % (topology, type(topology).__name__))
        if topology.get("schema_version") != 1:
            raise PlanError("topology schema_version %r is not supported; the planner reads schema_version 1"
                            % (topology.get("schema_version"),))
        self.warnings = []
        cpus = topology.get("cpus")
        if not isinstance(cpus, dict):
            raise PlanError("topology has no 'cpus' section (online/isolated CPU lists)")
        self.online = frozenset(self._cpus(cpus, "online", required=True))
        # None: the facts could not read /sys/devices/system/cpu/isolated; _choose_cpus refuses to choose then.
        self.isolated_unknown = None if cpus.get("isolated") is not None else ("null" if "isolated" in cpus else "missing")
        self.isolated = frozenset(self._cpus(cpus, "isolated")) & self.online
        self.usable_cpus = self.online - self.isolated
        self._read_nodes(topology)
        self._read_cores(topology)
        self._read_devices(topology)
        total = topology.get("memory_bytes")
        if total is not None and (isinstance(total, bool) or not isinstance(total, int) or total < 0):
            raise PlanError("topology memory_bytes %r is not a byte count (MemTotal in bytes, or null)" % (total,))
        if total:
            self.memory_bytes = total
            self.memory_source = "topology memory_bytes"
        else:
            # As _kubelet_validation.node_from_topology: MemTotal when the facts have it, else the NUMA sum.
            self.memory_bytes = sum(node["memory_bytes"] for node in self.nodes.values())
            self.memory_source = "the sum of NUMA node memory"

    @staticmethod
    def _cpus(section, key, required=False):
        text = section.get(key)
        if text is None:
            if required:
                raise PlanError("topology cpus.%s is missing" % key)
            return []
        try:
            return _cpulist.parse(text)
        except _cpulist.CpuListError as exc:
            raise PlanError("topology cpus.%s: %s" % (key, exc))

    @staticmethod
    def _entries(topology, key):
        """The facts' list ``key`` (absent or null: empty); every entry must be a dict."""
        entries = topology.get(key)
        if entries is None:
            return []
        if not isinstance(entries, (list, tuple)):
            raise PlanError("topology %s %r is a %s, expected a list" % (key, entries, type(entries).__name__))
        for entry in entries:
            if not isinstance(entry, dict):
                raise PlanError("topology %s entry %r is a %s, expected a dict" % (key, entry, type(entry).__name__))
        return entries

    @staticmethod
    def _numa_ref(key, entry):
        """An entry's numa_node: an int (any, -1 included, as sysfs writes it) or None."""
        node = entry.get("numa_node")
        if node is not None and (isinstance(node, bool) or not isinstance(node, int)):
            raise PlanError("topology %s entry %r: numa_node %r is not a NUMA node id (an integer, or null when unknown)" % (key, entry, node))
        return node

    def _cpu_field(self, what, entry):
        """An entry's cpus, a cpulist string (null: none), restricted to online CPUs."""
        text = entry.get("cpus")
        if text is None:
            return frozenset()
        try:
            return frozenset(_cpulist.parse(text)) & self.online
        except _cpulist.CpuListError as exc:
            raise PlanError("topology %s cpus: %s" % (what, exc))

    def _read_nodes(self, topology):
        self.nodes = {}
        self.cpu_numa = {}
        for node in self._entries(topology, "numa_nodes"):
            if "id" not in node:
                raise PlanError("topology numa_nodes entry %r has no id" % (node,))
            node_id = node["id"]
            if isinstance(node_id, bool) or not isinstance(node_id, int) or node_id < 0:
                raise PlanError("topology numa_nodes entry %r: id %r is not a NUMA node id (a whole number >= 0)" % (node, node_id))
            if node_id in self.nodes:
                raise PlanError("topology lists NUMA node %d twice" % node_id)
            memory = node.get("memory_bytes")
            if isinstance(memory, bool) or not isinstance(memory, int) or memory < 0:
                raise PlanError("topology NUMA node %d memory_bytes %r is not a byte count" % (node_id, memory))
            node_cpus = self._cpu_field("NUMA node %d" % node_id, node)
            for cpu in node_cpus:
                if cpu in self.cpu_numa:
                    raise PlanError("topology puts CPU %d in NUMA nodes %d and %d" % (cpu, self.cpu_numa[cpu], node_id))
                self.cpu_numa[cpu] = node_id
            self.nodes[node_id] = {"cpus": node_cpus, "memory_bytes": memory, "hugepages_bytes": self._hugepages(node_id, node)}
        if not self.nodes:
            raise PlanError("topology lists no NUMA nodes")

    def _hugepages(self, node_id, node):
        """Bytes held by the node's hugepage pools (unknown counts are taken as 0, with a warning)."""
        pools = node.get("hugepages")
        if pools is None:
            return 0
        if not isinstance(pools, dict):
            raise PlanError("topology NUMA node %d hugepages %r is a %s, expected a dict of '<N>kB' pools" % (node_id, pools, type(pools).__name__))
        total = 0
        for size in sorted(pools, key=str):
            text = str(size)
            if not text.endswith("kB") or not text[:-2].isdigit():
                raise PlanError("topology NUMA node %d hugepages size %r is not '<N>kB'" % (node_id, size))
            pool = pools[size]
            if pool is not None and not isinstance(pool, dict):
                raise PlanError("topology NUMA node %d hugepages %s %r is not a dict with a 'total' page count" % (node_id, text, pool))
            count = pool.get("total") if pool is not None else None
            if count is None:
                self.warnings.append("NUMA node %d hugepages %s total is unknown; taken as 0 pages" % (node_id, text))
                continue
            if isinstance(count, bool) or not isinstance(count, int) or count < 0:
                raise PlanError("topology NUMA node %d hugepages %s total %r is not a page count" % (node_id, text, count))
            total += int(text[:-2]) * 1024 * count
        return total

    def _read_cores(self, topology):
        self.cores = {}
        self.cpu_core = {}
        entries = self._entries(topology, "cores")
        for entry in entries:
            core_cpus = self._cpu_field("cores entry %r" % (entry,), entry)
            numa = self._numa_ref("cores", entry)
            package = entry.get("package")
            if package is not None and (isinstance(package, bool) or not isinstance(package, int)):
                raise PlanError("topology cores entry %r: package %r is not a package id (an integer, or null when unknown)" % (entry, package))
            if core_cpus:
                self._add_core(core_cpus, numa, package)
        missing = sorted(self.online - frozenset(self.cpu_core))
        if missing:
            if entries:
                self.warnings.append("online CPUs %s are in no core of the topology facts; each is treated as a core of its own"
                                     % _cpulist.format(missing))
            else:
                self.warnings.append("the topology facts list no cores; each online CPU is treated as a core of its own")
            for cpu in missing:
                self._add_core(frozenset([cpu]), None, None)
        self.numa_first = len(set(core.package for core in self.cores.values())) >= len(
            set(core.numa for core in self.cores.values() if core.numa is not None))
        unplaced = sorted(core.id for core in self.cores.values() if core.numa is None)
        if unplaced:
            self.warnings.append("cores %s belong to no NUMA node in the facts and are never reserved"
                                 % ", ".join(str(core_id) for core_id in unplaced))

    def _add_core(self, core_cpus, numa, package):
        for cpu in core_cpus:
            if cpu in self.cpu_core:
                raise PlanError("topology puts CPU %d in two cores" % cpu)
        nodes = set(self.cpu_numa.get(cpu) for cpu in core_cpus)
        if numa is None or numa not in self.nodes:
            numa = nodes.pop() if len(nodes) == 1 else None
        core = _Core(core_cpus, numa, package or 0, usable=numa is not None and not core_cpus & self.isolated)
        self.cores[core.id] = core
        for cpu in core_cpus:
            self.cpu_core[cpu] = core.id

    def _read_devices(self, topology):
        self.gpus = {node_id: [] for node_id in self.nodes}
        self.nics = {node_id: [] for node_id in self.nodes}
        self.unplaced_devices = []
        for kind, key, field in (("gpu", "gpus", "pci_address"), ("nic", "nics", "name")):
            target = self.gpus if kind == "gpu" else self.nics
            for device in self._entries(topology, key):
                label = device.get(field) or device.get("pci_address") or device.get("name") or "?"
                node = self._numa_ref(key, device)
                if node in self.nodes:
                    target[node].append(str(label))
                else:
                    self.unplaced_devices.append("%s %s" % (kind, label))
        for table in (self.gpus, self.nics):
            for labels in table.values():
                labels.sort()
        self.unplaced_devices.sort()

    # -- helpers over the model

    def cpu_nodes(self):
        """NUMA node ids that have online CPUs, ascending."""
        return sorted(node_id for node_id, node in self.nodes.items() if node["cpus"])

    def usable_cores(self, node_id):
        """Cores of a node that can be reserved whole, by core id."""
        return sorted((core for core in self.cores.values() if core.numa == node_id and core.usable), key=lambda core: core.id)

    def has_devices(self, node_id):
        return bool(self.gpus[node_id] or self.nics[node_id])


# ---------------------------------------------------------------- CPU selection


class _Selection(object):
    """Reserved cores being chosen, with the rule that every CPU node keeps one whole core."""

    def __init__(self, model, need):
        self.model = model
        self.need = need
        self.cores = []
        self.taken = set()
        self.left = {node_id: len(model.usable_cores(node_id)) for node_id in model.nodes}

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
        left = [core for core in selection.model.usable_cores(node_id) if core.id not in selection.taken]
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
    queues = {node_id: [core for core in selection.model.usable_cores(node_id) if core.id not in selection.taken] for node_id in node_ids}
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


class _Packed(object):
    """The kubelet's packed order, replayed on whole cores.

    Reproduces pkg/kubelet/cm/cpumanager/cpu_assignment.go takeByTopologyNUMAPacked
    (kubernetes/kubernetes, CPUSortingStrategyPacked, no uncore-cache option), which
    pkg/kubelet/cm/cpumanager/policy_static.go NewStaticPolicy runs as
    ``takeByTopology(allCPUs, numReservedCPUs)`` when reservedSystemCPUs is empty:
    1. take whole free first-level units (NUMA nodes when sockets >= NUMA nodes,
       else sockets), then whole free second-level units, each only when at least
       its size is still needed; 2. take whole free cores; 3. (kubelet: single
       threads) here: further whole cores, so a core is never split.
    Every list is sorted as the kubelet sorts it: NUMA nodes / sockets / cores by
    ascending free CPUs, then ascending id; a core's id is its lowest CPU.
    Differences, on purpose: available CPUs are online - isolated (the kubelet
    does not know isolcpus); a unit is skipped when taking it would leave a NUMA
    node with no whole allocatable core; and a unit's size is its own online CPUs
    (the kubelet divides NumCPUs by NumSockets / NumCores, which differs once
    CPUs are offline).
    """

    def __init__(self, selection, cores):
        self.sel = selection
        self.model = selection.model
        self.avail = set(cpu for core in cores for cpu in core.cpus)
        self.unit_cpus = {"numa": {}, "package": {}}
        for core in self.model.cores.values():
            self.unit_cpus["numa"].setdefault(core.numa, set()).update(core.cpus)
            self.unit_cpus["package"].setdefault(core.package, set()).update(core.cpus)

    def _free(self, cpus):
        return len(cpus & self.avail)

    def _avail_units(self, kind, within=None):
        units = set()
        for cpu in self.avail:
            core = self.model.cores[self.model.cpu_core[cpu]]
            if within is None or within(core):
                units.add(core.numa if kind == "numa" else core.package)
        return sorted(units, key=lambda unit: (self._free(self.unit_cpus[kind][unit]), unit))

    def sorted_numas(self):
        if self.model.numa_first:
            return self._avail_units("numa")
        result = []
        for package in self.sorted_packages():
            result.extend(self._avail_units("numa", lambda core, package=package: core.package == package))
        return _unique(result)

    def sorted_packages(self):
        if not self.model.numa_first:
            return self._avail_units("package")
        result = []
        for numa in self.sorted_numas():
            result.extend(self._avail_units("package", lambda core, numa=numa: core.numa == numa))
        return _unique(result)

    def sorted_cores(self):
        if self.model.numa_first:
            groups = [(lambda core, package=package: core.package == package) for package in self.sorted_packages()]
        else:
            groups = [(lambda core, numa=numa: core.numa == numa) for numa in self.sorted_numas()]
        result = []
        for within in groups:
            ids = set(self.model.cpu_core[cpu] for cpu in self.avail if within(self.model.cores[self.model.cpu_core[cpu]]))
            result.extend(sorted(ids, key=lambda core_id: (self._free(self.model.cores[core_id].cpus), core_id)))
        return [self.model.cores[core_id] for core_id in _unique(result)]

    def _take_units(self, kind):
        order = self.sorted_numas() if kind == "numa" else self.sorted_packages()
        for unit in order:
            cpus = self.unit_cpus[kind][unit]
            if not cpus or self._free(cpus) != len(cpus) or self.sel.need < len(cpus):
                continue
            cores = [self.model.cores[core_id] for core_id in sorted(set(self.model.cpu_core[cpu] for cpu in cpus))]
            if self.sel.can_take(cores):
                self._take(cores)

    def _take_cores(self, whole_only):
        for core in self.sorted_cores():
            if self.sel.need <= 0:
                return
            if self._free(core.cpus) != len(core.cpus) or (whole_only and self.sel.need < len(core.cpus)):
                continue
            if self.sel.can_take([core]):
                self._take([core])

    def _take(self, cores):
        self.sel.take(cores)
        for core in cores:
            self.avail -= core.cpus

    def run(self):
        first, second = ("numa", "package") if self.model.numa_first else ("package", "numa")
        for step in (lambda: self._take_units(first), lambda: self._take_units(second),
                     lambda: self._take_cores(True), lambda: self._take_cores(False)):
            if self.sel.need <= 0:
                return
            step()


def _unique(items):
    seen = set()
    result = []
    for item in items:
        if item not in seen:
            seen.add(item)
            result.append(item)
    return result


def _choose_cpus(model, policy, reasons, warnings):
    """Return the reserved cores (a _Selection) following the policy."""
    if policy["reserved_cpu_list"] is not None:
        if model.isolated_unknown:
            warnings.append("isolated CPUs unknown (cpus.isolated is %s): reserved_cpu_list %s is not checked against isolated CPUs"
                            % (model.isolated_unknown, policy["reserved_cpu_list"]))
        return _explicit(model, policy["reserved_cpu_list"], reasons)
    if model.isolated_unknown:
        raise PlanError("isolated CPUs unknown (cpus.isolated is %s): refusing to choose reserved CPUs that might be isolated; "
                        "fix the facts or give reserved_cpu_list" % model.isolated_unknown)
    count = policy["reserved_cpus"]
    strategy = policy["strategy"]
    if isinstance(count, dict):
        return _per_node(model, count, strategy, reasons)
    selection = _Selection(model, count)
    if strategy == "compact":
        _Packed(selection, [core for core in model.cores.values() if core.usable]).run()
        reasons.append("strategy compact: the kubelet's own packed order (takeByTopologyNUMAPacked), whole cores only")
    elif strategy == "spread":
        _spread(selection, model.cpu_nodes())
        reasons.append("strategy spread: whole cores spread evenly over NUMA nodes %s, lowest cores first" % _ids(model.cpu_nodes()))
    else:
        _device_aware(model, selection, reasons, warnings)
    if selection.need > 0:
        _keep_smallest(selection, model.cpu_nodes(), reasons)
    if selection.need > 0:
        raise PlanError(_shortage(model, "reserved_cpus %d" % count, count))
    return selection


def _device_aware(model, selection, reasons, warnings):
    nodes = model.cpu_nodes()
    free = [node_id for node_id in nodes if not model.has_devices(node_id)]
    busy = [node_id for node_id in nodes if model.has_devices(node_id)]
    if model.unplaced_devices:
        warnings.append("device-aware: %s have no known NUMA node and were not counted" % ", ".join(model.unplaced_devices))
    if not free:
        _spread(selection, nodes)
        reasons.append("strategy device-aware: every NUMA node with CPUs (%s) has a GPU or NIC; fell back to spread" % _ids(nodes))
        return
    _spread(selection, free)
    if not busy:
        reasons.append("strategy device-aware: no NUMA node has a GPU or NIC; spread over NUMA nodes %s" % _ids(free))
        return
    reasons.append("strategy device-aware: reserved on NUMA nodes without GPUs or NICs (%s) first, so device-local nodes (%s) keep "
                   "their cores for exclusive slices" % (_ids(free), _ids(busy)))
    if selection.need > 0:
        _spread(selection, busy)
        reasons.append("strategy device-aware: nodes %s could not hold the whole reservation; the rest spread over device-local nodes %s"
                       % (_ids(free), _ids(busy)))


def _per_node(model, counts, strategy, reasons):
    selection = _Selection(model, 0)
    for key, count in counts.items():
        node_id = int(key)
        if node_id not in model.nodes:
            raise PlanError("policy reserved_cpus names NUMA node %d, which does not exist (nodes: %s)" % (node_id, _ids(sorted(model.nodes))))
        if count == 0:
            continue
        cores = model.usable_cores(node_id)
        if not cores:
            raise PlanError("policy reserved_cpus asks %d CPUs on NUMA node %d, which has no online, non-isolated whole core" % (count, node_id))
        selection.need = count
        if strategy == "compact":
            _Packed(selection, cores).run()
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


def _explicit(model, text, reasons):
    cpus = frozenset(_cpulist.parse(text))
    offline = cpus - model.online
    if offline:
        raise PlanError("reserved_cpu_list %s includes CPUs %s that are not online (online: %s); the kubelet needs a subset of online CPUs"
                        % (text, _cpulist.format(offline), _cpulist.format(model.online)))
    isolated = cpus & model.isolated
    if isolated:
        raise PlanError("reserved_cpu_list %s includes isolated CPUs %s (isolated: %s)" % (text, _cpulist.format(isolated), _cpulist.format(model.isolated)))
    cores = sorted(set(model.cores[model.cpu_core[cpu]] for cpu in cpus), key=lambda core: core.id)
    for core in cores:
        missing = core.cpus - cpus
        if missing:
            raise PlanError("reserved_cpu_list %s splits core %d (CPUs %s): SMT siblings %s are missing; reserve whole physical cores"
                            % (text, core.id, _cpulist.format(core.cpus), _cpulist.format(missing)))
        if core.numa is None:
            raise PlanError("reserved_cpu_list %s includes core %d (CPUs %s), which belongs to no NUMA node" % (text, core.id, _cpulist.format(core.cpus)))
    selection = _Selection(model, 0)
    for core in cores:
        if not selection.can_take([core]):
            node_cores = model.usable_cores(core.numa)
            raise PlanError("reserved_cpu_list %s takes all %d whole cores of NUMA node %d (CPUs %s); keep at least one whole core allocatable there"
                            % (text, len(node_cores), core.numa, _cpulist.format(model.nodes[core.numa]["cpus"] - model.isolated)))
        selection.take([core])
    reasons.append("reserved_cpu_list %s given explicitly: checked (online, not isolated, whole cores, one core left per NUMA node); "
                   "strategy not used" % text)
    return selection


def _shortage(model, what, count):
    parts = []
    cores = cpus = 0
    for node_id in model.cpu_nodes():
        usable = model.usable_cores(node_id)
        reservable = sorted(usable, key=lambda core: len(core.cpus))[1:]
        cores += len(reservable)
        cpus += sum(len(core.cpus) for core in reservable)
        parts.append("node %d: %d usable cores" % (node_id, len(usable)))
    return ("%s needs %d logical CPUs in whole cores, but only %d whole cores (%d logical CPUs) can be reserved while keeping one whole "
            "core allocatable on each NUMA node with CPUs (%s)" % (what, count, cores, cpus, "; ".join(parts) or "no CPU node"))


def _ids(ids):
    return ", ".join(str(item) for item in ids) or "none"


# ---------------------------------------------------------------- memory


def _base_config(base_config):
    """The node's kubelet configuration the plan is merged over (None: a bare one, kubelet defaults)."""
    if base_config is None:
        return _kubelet_merge.effective_config({"apiVersion": _kubelet_merge.API_VERSION, "kind": _kubelet_merge.KIND}, [])
    if not isinstance(base_config, dict):
        raise PlanError("base_config %r is a %s, expected the node's effective kubelet configuration (a dict, as "
                        "_kubelet_merge.effective_config returns it)" % (base_config, type(base_config).__name__))
    return base_config


def _over_base(base, settings):
    """merge_patch(base, settings), as the kubelet merges the drop-in, remembering where each key came from."""
    merged = _kubelet_merge.merge_patch(base, settings)
    base_origin = getattr(base, "origin_of", None)
    origins = {}
    pending = [((), merged, settings)]
    while pending:
        where, value, patch = pending.pop()
        for key, item in value.items():
            path = where + (key,)
            planned = isinstance(patch, dict) and key in patch
            if planned:
                origins[path] = PLAN_ORIGIN
            else:
                origins[path] = (base_origin(path) if callable(base_origin) else None) or BASE_ORIGIN
            if isinstance(item, dict):
                pending.append((path, item, patch[key] if planned else None))
    return _kubelet_merge.EffectiveConfig(merged, origins)


def _origin(merged, path):
    """Where a key of the merged configuration came from, for the reasons; None when it is not set."""
    value = merged
    for key in path:
        if not isinstance(value, dict) or key not in value:
            return None
        value = value[key]
    origin = merged.origin_of(path)
    if origin == PLAN_ORIGIN:
        return "policy"
    if origin == _kubelet_merge.DEFAULT_ORIGIN:
        return "kubelet default"
    if origin in (None, BASE_ORIGIN):
        return "node config"
    return "node config %s" % origin


def _largest_remainder(total_units, weights):
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


def _place_memory(model, total, cpus_by_node):
    """Place total bytes on the NUMA nodes holding reserved CPUs, in proportion, within each node's memory.

    Amounts are whole Mi (or Ki) when the total is, so the quantities read well; bytes otherwise,
    or when whole units would not fit. A node's room is its memory less its hugepage pools; what
    does not fit overflows to the other nodes with reserved CPUs, then to the rest, by id.
    """
    room = {node_id: max(0, node["memory_bytes"] - node["hugepages_bytes"]) for node_id, node in model.nodes.items()}
    if total > sum(room.values()):
        raise PlanError("reserved memory %s (%d bytes) does not fit in the NUMA nodes' memory less their hugepage pools (%d bytes in all)"
                        % (from_bytes(total), total, sum(room.values())))
    order = sorted(cpus_by_node) + sorted(node_id for node_id in model.nodes if node_id not in cpus_by_node)
    for quantum in _MEMORY_QUANTA:
        if total % quantum:
            continue
        caps = {node_id: amount // quantum for node_id, amount in room.items()}
        placed = {node_id: min(units, caps[node_id]) for node_id, units in _largest_remainder(total // quantum, cpus_by_node).items()}
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


def _memory_parts(merged, effective):
    """'kubeReserved memory 256Mi (policy)' and the like: each part of the reservation and where it came from."""
    parts = []
    for key in ("kubeReserved", "systemReserved"):
        origin = _origin(merged, (key, "memory"))
        parts.append("%s memory %s (%s)" % (key, merged[key]["memory"], origin) if origin else "%s memory 0 (not set)" % key)
    threshold = effective.get("memory.available", "0")
    origin = _origin(merged, ("evictionHard", "memory.available"))
    if merged.get("experimentalNodeAllocatableIgnoreEvictionThreshold"):
        origin = "not counted: experimentalNodeAllocatableIgnoreEvictionThreshold is set"
    elif origin is None:
        hard = merged.get("evictionHard")
        origin = "kubelet default" if hard is None or threshold != "0" else "not set: evictionHard omits it, so no threshold"
    parts.append("evictionHard memory.available %s (%s)" % (threshold, origin))
    return parts


def _memory(model, merged, cpus_by_node, reasons, warnings):
    """Return {numa: reserved memory bytes} for the merged configuration (the plan over the node's)."""
    try:
        effective = _kubelet_validation.effective_eviction_hard(merged)
        total = _kubelet_validation.reserved_memory_total(merged, model.memory_bytes)
    except (ValueError, DecimalException) as exc:
        raise PlanError("memory reservation (the policy merged over the node's kubelet configuration): %s" % exc)
    parts = _memory_parts(merged, effective)
    if total <= 0:
        raise PlanError("kubeReserved + systemReserved + evictionHard memory.available reserve no memory (%s); the Memory Manager Static "
                        "policy needs a non-zero reservation (\"you should specify the system reserved memory\")" % ", ".join(parts))
    threshold = effective.get("memory.available", "0")
    if str(threshold).endswith("%"):
        warnings.append("evictionHard memory.available %s is resolved against %d bytes (%s); the kubelet uses its own memory capacity"
                        % (threshold, model.memory_bytes, model.memory_source))
    placed = _place_memory(model, total, cpus_by_node)
    reasons.append("reservedMemory memory %s (%d bytes) = %s, placed on NUMA nodes %s in proportion to the reserved CPUs there" % (
        from_bytes(total), total, " + ".join(parts), ", ".join("%d: %s" % (node_id, from_bytes(amount)) for node_id, amount in placed.items())))
    if set(placed) - set(cpus_by_node):
        reasons.append("reservedMemory overflowed to NUMA nodes %s without reserved CPUs: the nodes with reserved CPUs have too little memory"
                       % _ids(sorted(set(placed) - set(cpus_by_node))))
    return placed


def _eviction_reasons(policy, merged, reasons):
    """Say what a policy's partial evictionHard does once merged, and which default signals end up with no threshold."""
    hard = merged.get("evictionHard")
    given = policy["eviction_hard"]
    if given is not None and isinstance(hard, dict):
        kept = sorted("%s %s" % (signal, value) for signal, value in hard.items() if signal not in given)
        if kept:
            reasons.append("evictionHard from the policy (%s) merges over the node's thresholds, which stay: %s"
                           % (", ".join(sorted(given)) or "nothing", ", ".join(kept)))
    zeroed = sorted(signal for signal, value in _kubelet_validation.effective_eviction_hard(merged).items() if value == "0")
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
        elif _origin(merged, (key, "cpu")):
            warnings.append("%s cpu %s (%s) is overridden by reservedSystemCPUs (the kubelet then reserves %d CPUs)"
                            % (key, merged[key]["cpu"], _origin(merged, (key, "cpu")), count))


def _self_check(topology, merged):
    """The plan merged over the node's configuration must pass the kubelet's own rules (_kubelet_validation.validate)."""
    try:
        problems = _kubelet_validation.validate(merged, _kubelet_validation.node_from_topology(topology))
    except (ValueError, DecimalException) as exc:
        raise PlanError("the planned kubelet settings cannot be checked: %s" % exc)
    if problems:
        raise PlanError("the planned kubelet settings break the kubelet's rules: %s" % "; ".join(str(problem) for problem in problems))


# ---------------------------------------------------------------- the plan


def reservation_plan(topology, policy=None, base_config=None):
    """Plan the kubelet reservations for one node. See the module docstring.

    ``base_config``: the node's effective kubelet configuration without the collection's
    drop-in (``_kubelet_merge.effective_config``, evictionHard defaults filled in); None
    means a node with no configuration of its own, so the kubelet's defaults apply.
    """
    policy = normalize_policy(policy)
    base = _base_config(base_config)
    model = _Model(topology)
    reasons = []
    warnings = list(model.warnings)
    for node_id in model.cpu_nodes():
        if not model.usable_cores(node_id):
            warnings.append("NUMA node %d has online CPUs but no whole core that is not isolated; nothing there is allocatable" % node_id)
    selection = _choose_cpus(model, policy, reasons, warnings)
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
    merged = _over_base(base, settings)
    _cpu_override_warnings(policy, merged, len(reserved), warnings)
    memory = _memory(model, merged, cpus_by_node, reasons, warnings)
    _eviction_reasons(policy, merged, reasons)
    settings["reservedMemory"] = [{"numaNode": node_id, "limits": {"memory": from_bytes(amount)}} for node_id, amount in memory.items()]
    settings = dict(sorted(settings.items()))
    _self_check(topology, _over_base(base, settings))
    return {
        "kubelet_settings": settings,
        "reserved": {
            "cpus": _cpulist.format(reserved),
            "cores": len(selection.cores),
            "by_numa": {str(node_id): _cpulist.format(cpus) for node_id, cpus in sorted(by_node.items())},
            "memory_bytes": {str(node_id): amount for node_id, amount in memory.items()},
        },
        "allocatable": _allocatable(model, selection, memory),
        "reasons": reasons,
        "warnings": warnings,
        "policy": policy,
        "schema_version": PLAN_SCHEMA_VERSION,
    }


def _allocatable(model, selection, memory):
    result = {}
    for node_id in sorted(model.nodes):
        cores = [core for core in model.usable_cores(node_id) if core.id not in selection.taken]
        cpus = sorted(cpu for core in cores for cpu in core.cpus)
        node = model.nodes[node_id]
        free_memory = max(0, node["memory_bytes"] - node["hugepages_bytes"] - memory.get(node_id, 0))
        result[str(node_id)] = {
            "cpus": _cpulist.format(cpus),
            "whole_cores": len(cores),
            "memory_bytes": free_memory,
            "gpus": list(model.gpus[node_id]),
            "nics": list(model.nics[node_id]),
            # single-numa-node at pod scope: the largest Guaranteed pod fits in one node.
            "largest_pod": {"cpu": len(cpus), "memory": from_bytes(free_memory)},
        }
    return result
