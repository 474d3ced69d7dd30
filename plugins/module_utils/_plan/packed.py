# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The kubelet's packed CPU order (strategy compact), replayed on whole cores.

Public: `Packed` (``Packed(selection, cores).run()`` takes cores into a `cpu_strategies.Selection`).
"""

from __future__ import annotations


class Packed(object):
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
        self.topology = selection.topology
        self.avail = set(cpu for core in cores for cpu in core.cpus)
        self.unit_cpus = {"numa": {}, "package": {}}
        for core in self.topology.cores.values():
            self.unit_cpus["numa"].setdefault(core.numa, set()).update(core.cpus)
            self.unit_cpus["package"].setdefault(core.package, set()).update(core.cpus)

    def _free(self, cpus):
        return len(cpus & self.avail)

    def _avail_units(self, kind, within=None):
        units = set()
        for cpu in self.avail:
            core = self.topology.cores[self.topology.cpu_core[cpu]]
            if within is None or within(core):
                units.add(core.numa if kind == "numa" else core.package)
        return sorted(units, key=lambda unit: (self._free(self.unit_cpus[kind][unit]), unit))

    def sorted_numas(self):
        if self.topology.numa_first:
            return self._avail_units("numa")
        result = []
        for package in self.sorted_packages():
            result.extend(self._avail_units("numa", lambda core, package=package: core.package == package))
        return _unique(result)

    def sorted_packages(self):
        if not self.topology.numa_first:
            return self._avail_units("package")
        result = []
        for numa in self.sorted_numas():
            result.extend(self._avail_units("package", lambda core, numa=numa: core.numa == numa))
        return _unique(result)

    def sorted_cores(self):
        if self.topology.numa_first:
            groups = [(lambda core, package=package: core.package == package) for package in self.sorted_packages()]
        else:
            groups = [(lambda core, numa=numa: core.numa == numa) for numa in self.sorted_numas()]
        result = []
        for within in groups:
            ids = set(self.topology.cpu_core[cpu] for cpu in self.avail if within(self.topology.cores[self.topology.cpu_core[cpu]]))
            result.extend(sorted(ids, key=lambda core_id: (self._free(self.topology.cores[core_id].cpus), core_id)))
        return [self.topology.cores[core_id] for core_id in _unique(result)]

    def _take_units(self, kind):
        order = self.sorted_numas() if kind == "numa" else self.sorted_packages()
        for unit in order:
            cpus = self.unit_cpus[kind][unit]
            if not cpus or self._free(cpus) != len(cpus) or self.sel.need < len(cpus):
                continue
            cores = [self.topology.cores[core_id] for core_id in sorted(set(self.topology.cpu_core[cpu] for cpu in cpus))]
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
        first, second = ("numa", "package") if self.topology.numa_first else ("package", "numa")
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
