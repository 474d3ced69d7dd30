# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The topology gather: one read-only pass over sysfs/procfs (facts schema v1).

`gather(root)` reads CPUs, physical cores, packages, NUMA nodes, the cgroup
restriction of the reading process, GPUs and NICs under ``root`` ("/" on a
node, a snapshot directory in tests) and returns the facts dict of
DESIGN.md, plus ``allowed`` and ``warnings``. Unknown values are None with a
warning that names the file; only a root without any CPU topology raises
`TopologyError`. No command runs per CPU or device: vendor GPU tools run at
most once, through the injected ``nvidia`` function and ``runner``.
"""

from __future__ import annotations

import os
import posixpath
import re

from ansible_collections.gpusmith.numa_gate.plugins.module_utils import _cpulist
from ansible_collections.gpusmith.numa_gate.plugins.module_utils import _pci
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts import runner as _runner
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts import sysfs as _sysfs

SCHEMA_VERSION = 1
GPU_SOURCES = ("auto", "nvml", "nvidia-smi", "sysfs", "none")
GPU_VENDORS = {"0x10de": "nvidia", "0x1002": "amd"}
# PCI base class 0x03 (display controller); sub-class 0x02 is a 3D controller (no VGA), which
# only compute GPUs are (NVIDIA data-center GPUs, Intel data-center GPUs, ...).
_DISPLAY_CLASS = "0x03"
_3D_CONTROLLER_CLASS = "0x0302"

_CPU_DIR = "sys/devices/system/cpu"
_NODE_DIR = "sys/devices/system/node"
_PCI_DIR = "sys/bus/pci/devices"
_MEMTOTAL = re.compile(r"MemTotal:\s*(\d+)\s*kB")
_HUGEPAGES_DIR = re.compile(r"^hugepages-(\d+)kB$")
_PROC_VERSION = re.compile(r"^Linux version (\S+)")
_MOUNT_ESCAPE = re.compile(r"\\([0-7]{3})")
# First listed wins; the list file and its mask twin are read as one.
_CORE_SIBLING_FILES = (("core_cpus_list", "core_cpus"), ("thread_siblings_list", "thread_siblings"))
_PACKAGE_SIBLING_FILES = (("package_cpus_list", "package_cpus"), ("core_siblings_list", "core_siblings"))
_EXAMPLES = 3


def _present_first(pairs, names):
    """Sibling file pairs, those this kernel has first; a list file it lacks is not tried."""
    present = []
    for list_name, mask_name in pairs:
        if list_name in names:
            present.append((list_name, mask_name))
        elif mask_name in names:
            present.append((None, mask_name))
    return present + [pair for pair in pairs if pair[0] not in names and pair[1] not in names]


def _examples(items):
    shown = "; ".join(items[:_EXAMPLES])
    if len(items) > _EXAMPLES:
        shown += "; and %d more" % (len(items) - _EXAMPLES)
    return shown


class TopologyError(ValueError):
    """The root has no CPU topology at all, so there are no facts to give."""


def gather(root="/", gpu_source="auto", runner=None, nvidia=None):
    """Read the topology under root and return facts schema v1 (plus warnings).

    ``gpu_source``: auto (NVML, then nvidia-smi, else sysfs), nvml,
    nvidia-smi, sysfs or none. ``nvidia`` is ``gather_nvidia(source, runner)
    -> (gpus or None, warnings)``; by default the real one from _nvidia.
    ``runner`` runs vendor tools (see _runner). With a root other than "/"
    and no runner, vendor tools are not consulted: they would describe this
    machine, not the snapshot.
    """
    if gpu_source not in GPU_SOURCES:
        raise TopologyError("gpu_source %r is not one of %s" % (gpu_source, ", ".join(GPU_SOURCES)))
    return _Gather(root).run(gpu_source, runner, nvidia)


def _default_nvidia():
    """The real gather_nvidia, or None when _nvidia cannot be imported."""
    try:
        from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts.nvidia import gather_nvidia  # pylint: disable=import-outside-toplevel
    except ImportError:
        return None
    return gather_nvidia


class _Warnings:
    """Warnings in the order found; repeated per-CPU problems are folded."""

    def __init__(self):
        self.items = []
        self._folded = {}

    def add(self, message):
        if message and message not in self.items:
            self.items.append(message)

    def fold(self, what, cpu):
        """Collect 'what' for many CPUs; reported once as a cpulist."""
        self._folded.setdefault(what, set()).add(cpu)

    def flush(self):
        for what, cpus in self._folded.items():
            self.add("%s for cpus %s" % (what, _cpulist.format(cpus)))
        self._folded = {}


class _Gather:
    def __init__(self, root):
        if not isinstance(root, str) or not root:
            raise TopologyError("root %r is not a path" % (root,))
        self.root = os.path.abspath(root)
        self.warn = _Warnings()
        self.online = []
        self.online_set = frozenset()
        self.cpu_node = {}
        self._pci = None

    # -- paths -------------------------------------------------------------

    def path(self, rel):
        """rel inside root; '..' never climbs above the root."""
        rel = posixpath.normpath("/" + rel).lstrip("/")
        return os.path.join(self.root, rel) if rel else self.root

    def relative(self, absolute):
        return os.path.relpath(absolute, self.root)

    # -- the pass ----------------------------------------------------------

    def run(self, gpu_source, runner, nvidia):
        if not os.path.isdir(self.root):
            raise TopologyError("root %s does not exist or is not a directory" % self.root)
        cpus, cpu_ids, possible = self._cpu_sets()
        numa_nodes = self._numa_nodes()
        packages, cores = self._cores(cpu_ids)
        threads = max((len(_cpulist.parse(core["cpus"])) for core in cores), default=0)
        smt_active = self._smt_active(threads)
        cpus.update({
            "possible": possible,
            "smt_active": smt_active,
            "threads_per_core": threads or None,
            "logical": len(self.online),
            "cores": len(cores),
            "packages": len(packages),
        })
        facts = {
            "schema_version": SCHEMA_VERSION,
            "root": self.root,
            "kernel": self._kernel(),
            "cpus": cpus,
            # MemTotal, the capacity the kubelet resolves percentage eviction thresholds against.
            "memory_bytes": self._memtotal(self.path("proc/meminfo")),
            "allowed": self._allowed(numa_nodes),
            "packages": packages,
            "cores": cores,
            "numa_nodes": numa_nodes,
            "gpus": self._gpus(gpu_source, runner, nvidia, numa_nodes),
            "nics": self._nics(numa_nodes),
        }
        self.warn.flush()
        facts["warnings"] = list(self.warn.items)
        return facts

    # -- CPUs --------------------------------------------------------------

    def _cpu_sets(self):
        cpu_dir = self.path(_CPU_DIR)
        names, warning = _sysfs.list_dir(cpu_dir)
        if names is None:
            raise TopologyError("%s: no CPU topology under root %s (%s)" % (cpu_dir, self.root, warning))
        cpu_ids = sorted(int(name[3:]) for name in names if name.startswith("cpu") and name[3:].isdigit())
        if not cpu_ids:
            raise TopologyError("%s: no CPU topology under root %s (no cpuN directories)" % (cpu_dir, self.root))

        # Truncated files count as unreadable: the kernel always has an online (and a present) CPU.
        online = self._nonempty_cpulist(os.path.join(cpu_dir, "online"), "used the cpuN/online files instead")
        if online is None:
            online = self._online_from_cpu_dirs(cpu_dir, cpu_ids)
        self.online = _cpulist.parse(online)
        self.online_set = frozenset(self.online)
        without_dir = self.online_set.difference(cpu_ids)
        if without_dir:
            self.warn.add("%s/online lists cpus %s that have no cpuN directory" % (cpu_dir, _cpulist.format(without_dir)))

        present = self._nonempty_cpulist(os.path.join(cpu_dir, "present"), "used the cpuN directories instead")
        if present is None:
            present = _cpulist.format(cpu_ids)
        possible, warning = _sysfs.read_cpulist(os.path.join(cpu_dir, "possible"))
        if possible is None and not _sysfs.is_missing(warning):
            self.warn.add(warning)
        isolated, warning = _sysfs.read_cpulist(os.path.join(cpu_dir, "isolated"))
        if isolated is None:
            if _sysfs.is_missing(warning):
                isolated = ""
            else:
                self.warn.add(warning)
        cpus = {
            "online": online,
            # CPUs that exist but are offline; possible-but-absent CPUs are not "offline".
            "offline": _cpulist.difference(present, online),
            "isolated": isolated,
            "present": present,
        }
        return cpus, cpu_ids, possible

    def _nonempty_cpulist(self, path, fallback):
        """A cpulist file that must not be empty; None (warned unless simply missing) otherwise."""
        cpus, warning = _sysfs.read_cpulist(path)
        if cpus == "":
            cpus, warning = None, "%s: empty" % path
        if cpus is None and not _sysfs.is_missing(warning):
            self.warn.add("%s; %s" % (warning, fallback))
        return cpus

    def _online_from_cpu_dirs(self, cpu_dir, cpu_ids):
        """As the kernel: a CPU without an online file (cpu0, often) is online."""
        online = []
        for cpu in cpu_ids:
            value, warning = _sysfs.read_int(os.path.join(cpu_dir, "cpu%d" % cpu, "online"))
            if value is None:
                if _sysfs.is_missing(warning):
                    online.append(cpu)
                else:
                    self.warn.add(warning + "; cpu%d counted as offline" % cpu)
            elif value == 1:
                online.append(cpu)
            elif value != 0:
                self.warn.add("%s/cpu%d/online: %d is neither 0 nor 1; cpu%d counted as offline" % (cpu_dir, cpu, value, cpu))
        return _cpulist.format(online)

    def _smt_active(self, threads):
        """True when a core has more than one online thread; the kernel's smt/active is cross-checked."""
        derived = threads > 1
        path = self.path(_CPU_DIR + "/smt/active")
        value, warning = _sysfs.read_int(path)
        if value is None:
            if not _sysfs.is_missing(warning):
                self.warn.add(warning)
        elif value not in (0, 1):
            self.warn.add("%s: %d is neither 0 nor 1" % (path, value))
        elif (value == 1) != derived:
            self.warn.add("%s says %d but the online cores have %d thread(s) each at most; smt_active follows the cores"
                          % (path, value, threads))
        return derived

    def _cores(self, cpu_ids):
        """Physical cores and packages of the online CPUs.

        The rule, and why: the kubelet (cadvisor's GetNodesInfo) keys a core
        by (physical_package_id, core_id) inside each NUMA node; hwloc builds
        a core from each distinct core_cpus / thread_siblings mask and a
        package from each package_cpus / core_siblings mask, the ids being
        labels only. core_id alone is not unique: it repeats across packages,
        and across dies of one package on kernels without die_id (the
        48amd64 and 32amd64 snapshots), and a Qemu guest can repeat it inside
        one die (fakememinitiators). So a core here is keyed by
        (package, die_id when >= 0, core_id) and split further by its thread
        siblings: CPUs are one core only when both rules agree. Where they
        disagree a warning says so (the kubelet may count such cores
        differently). Thread siblings with different core_ids (AMD compute
        units) become separate cores, as hwloc and the kubelet both do.

        physical_package_id -1 (unknown): as hwloc, packages then come from
        the package_cpus / core_siblings masks, one package per distinct
        mask, and the package id is None (unknown, never a guessed 0).
        """
        cpu_dir = self.path(_CPU_DIR)
        existing = set(cpu_ids)
        online = [cpu for cpu in self.online if cpu in existing]
        available = self._topology_files(cpu_dir, online)
        info = {}
        for cpu in online:
            info[cpu] = self._cpu_topology(cpu_dir, cpu, available)

        core_groups = {}
        package_groups = {}
        for cpu in online:
            item = info[cpu]
            package_groups.setdefault(item["package_key"], []).append(cpu)
            core_groups.setdefault(item["core_key"], []).append(cpu)
        self._cross_check(core_groups)

        # Members are in CPU order, so members[0] is each group's lowest CPU.
        packages = []
        for key, members in sorted(package_groups.items(), key=lambda item: item[1][0]):
            packages.append({"id": key[1] if key[0] == "id" else None, "cpus": _cpulist.format(members)})

        cores = []
        multi_node = []
        for key, members in sorted(core_groups.items(), key=lambda item: item[1][0]):
            first = info[members[0]]
            nodes = {self.cpu_node.get(cpu) for cpu in members}
            numa_node = next(iter(nodes)) if len(nodes) == 1 else None
            if len(nodes) > 1:
                multi_node.append(_cpulist.format(members))
            cores.append({
                "package": first["package"],
                "core": key[2],
                "cpus": _cpulist.format(members),
                "numa_node": numa_node,
            })
        if multi_node:
            self.warn.add("cores whose threads are in different NUMA nodes (numa_node left null): %s" % "; ".join(multi_node))
        nodeless = [cpu for cpu in online if cpu not in self.cpu_node]
        if nodeless and self.cpu_node:
            self.warn.add("online cpus %s are in no online NUMA node's cpulist; their cores have numa_node null" % _cpulist.format(nodeless))
        return packages, cores

    def _topology_files(self, cpu_dir, online):
        """Which sibling files this kernel has, from the first CPU's topology dir."""
        for cpu in online:
            names, _warning = _sysfs.list_dir(os.path.join(cpu_dir, "cpu%d" % cpu, "topology"))
            if names:
                return {
                    "core": _present_first(_CORE_SIBLING_FILES, set(names)),
                    "package": _present_first(_PACKAGE_SIBLING_FILES, set(names)),
                    "die": "die_id" in names,
                }
        return {"core": list(_CORE_SIBLING_FILES), "package": list(_PACKAGE_SIBLING_FILES), "die": False}

    def _read_first(self, tdir, pairs, cpu, label):
        for list_name, mask_name in pairs:
            value, warning = _sysfs.read_cpu_ids(list_name and os.path.join(tdir, list_name), os.path.join(tdir, mask_name))
            if value is not None:
                if warning:
                    self.warn.add(warning)
                return value
            if not _sysfs.is_missing(warning):
                self.warn.add(warning)
        self.warn.fold("no readable %s" % label, cpu)
        return None

    def _read_id(self, tdir, name, cpu):
        value, warning = _sysfs.read_int(os.path.join(tdir, name))
        if value is None:
            if _sysfs.is_missing(warning):
                self.warn.fold("topology/%s missing" % name, cpu)
            else:
                self.warn.add(warning)
        return value

    def _cpu_topology(self, cpu_dir, cpu, available):
        tdir = os.path.join(cpu_dir, "cpu%d" % cpu, "topology")
        package, warning = _sysfs.read_int(os.path.join(tdir, "physical_package_id"))
        if package is None and _sysfs.is_missing(warning) and not os.path.isdir(tdir):
            self.warn.fold("no topology directory (each counted as its own core, package unknown)", cpu)
            return {"package": None, "package_key": ("unknown",), "core_key": ("cpu", None, None, cpu)}
        if package is None:
            if _sysfs.is_missing(warning):
                self.warn.fold("topology/physical_package_id missing", cpu)
            else:
                self.warn.add(warning)
        core_id = self._read_id(tdir, "core_id", cpu)
        die = self._read_id(tdir, "die_id", cpu) if available["die"] else None
        siblings = self._read_first(tdir, available["core"], cpu, "thread siblings (core_cpus, thread_siblings)")
        sibling_set = None
        if siblings is not None:
            sibling_set = frozenset(siblings).intersection(self.online_set) | {cpu}
        if package is not None and package >= 0:
            package_key = ("id", package)
        else:
            if package is not None:
                self.warn.fold("physical_package_id is %d (unknown); package grouped by its package_cpus/core_siblings mask, id null" % package, cpu)
            package = None
            mask = self._read_first(tdir, available["package"], cpu, "package siblings (package_cpus, core_siblings)")
            package_key = ("mask", frozenset(mask) & self.online_set) if mask is not None else ("unknown",)
        if die is not None and die < 0:
            die = None
        if core_id is None and sibling_set is None:
            core_key = ("cpu", None, None, cpu)
        else:
            core_key = (package_key, die, core_id, sibling_set)
        return {"package": package, "package_key": package_key, "core_key": core_key}

    def _cross_check(self, core_groups):
        """Report where (package, die, core_id) and the thread siblings disagree."""
        by_id = {}
        by_siblings = {}
        for key, members in core_groups.items():
            if key[0] == "cpu":
                continue
            package_key, die, core_id, siblings = key
            if core_id is not None:
                by_id.setdefault((package_key, die, core_id), []).append(members)
            if siblings is not None:
                by_siblings.setdefault((package_key, siblings), {})[core_id] = members
        split = ["core_id %d: cpus %s" % (key[2], " | ".join(_cpulist.format(m) for m in groups))
                 for key, groups in by_id.items() if len(groups) > 1]
        if split:
            self.warn.add(
                "core_id repeats within a package for cpus that are not thread siblings (%s); counted as separate cores "
                "by their thread siblings, as hwloc does (a kubelet keys cores by package and core_id within each NUMA node)"
                % _examples(split))
        merged = []
        for (_package, siblings), by_core in by_siblings.items():
            listed = set()
            for members in by_core.values():
                listed.update(members)
            if len(by_core) > 1:
                merged.append("cpus %s have core_ids %s" % (_cpulist.format(siblings), ", ".join(str(c) for c in sorted(by_core, key=str))))
            elif listed != siblings:
                self.warn.add("thread siblings disagree: cpus %s list %s as their siblings, but cpus %s do not list them back"
                              % (_cpulist.format(listed), _cpulist.format(siblings), _cpulist.format(siblings - listed)))
        if merged:
            self.warn.add("thread siblings with different core_ids (%s); counted as separate cores, as hwloc does for AMD compute units"
                          % _examples(merged))

    # -- NUMA --------------------------------------------------------------

    def _numa_nodes(self):
        node_dir = self.path(_NODE_DIR)
        if not os.path.isdir(node_dir):
            return [self._single_node_from_proc()]
        names, warning = _sysfs.list_dir(node_dir)
        if names is None:
            self.warn.add(warning)
            names = []
        dirs = sorted(int(name[4:]) for name in names if name.startswith("node") and name[4:].isdigit())
        online, warning = _sysfs.read_cpulist(os.path.join(node_dir, "online"))
        if online is None:
            if not _sysfs.is_missing(warning):
                self.warn.add(warning + "; used the nodeN directories instead")
            node_ids = dirs
        else:
            node_ids = _cpulist.parse(online)
        possible, _warning = _sysfs.read_cpulist(os.path.join(node_dir, "possible"))
        possible_ids = _cpulist.parse(possible) if possible is not None else None
        nodes = []
        # Old kernels have only cpumap: decided once, from the first node, not tried per node.
        first = [node for node in node_ids if node in dirs][:1]
        list_name = "cpulist" if not first or os.path.exists(os.path.join(node_dir, "node%d" % first[0], "cpulist")) else None
        for node_id in node_ids:
            ndir = os.path.join(node_dir, "node%d" % node_id)
            if node_id not in dirs:
                self.warn.add("%s: missing although NUMA node %d is online; its cpus, memory and distances are unknown" % (ndir, node_id))
                nodes.append({"id": node_id, "cpus": None, "memory_bytes": None, "hugepages": None, "distances": None})
                continue
            cpus, warning = _sysfs.read_cpu_ids(list_name and os.path.join(ndir, list_name), os.path.join(ndir, "cpumap"))
            if cpus is None:
                self.warn.add(warning)
            else:
                if warning:
                    self.warn.add(warning)
                # The kubelet's view: only online CPUs (sysfs node lists include offline ones).
                members = [cpu for cpu in cpus if cpu in self.online_set]
                for cpu in members:
                    if cpu in self.cpu_node:
                        self.warn.add("cpu %d is in the cpulists of NUMA nodes %d and %d; kept in %d"
                                      % (cpu, self.cpu_node[cpu], node_id, self.cpu_node[cpu]))
                    else:
                        self.cpu_node[cpu] = node_id
                cpus = _cpulist.format(members)
            nodes.append({
                "id": node_id,
                "cpus": cpus,
                "memory_bytes": self._memtotal(os.path.join(ndir, "meminfo")),
                "hugepages": self._hugepages(os.path.join(ndir, "hugepages")),
                "distances": self._distances(os.path.join(ndir, "distance"), node_ids, possible_ids),
            })
        return nodes

    def _memtotal(self, path):
        text, warning = _sysfs.read_text(path)
        if text is None:
            self.warn.add(warning + "; memory_bytes unknown")
            return None
        match = _MEMTOTAL.search(text)
        if not match:
            self.warn.add("%s: no 'MemTotal: <n> kB' line; memory_bytes unknown" % path)
            return None
        return int(match.group(1)) * 1024

    def _hugepages(self, hdir):
        """{"2048kB": {"total": n, "free": n}}; {} when the node lists no size."""
        names, warning = _sysfs.list_dir(hdir)
        if names is None:
            if not _sysfs.is_missing(warning):
                self.warn.add(warning)
            return {}
        sizes = {}
        for name in names:
            match = _HUGEPAGES_DIR.match(name)
            if not match:
                continue
            entry = {}
            for key, filename in (("total", "nr_hugepages"), ("free", "free_hugepages")):
                value, warning = _sysfs.read_int(os.path.join(hdir, name, filename))
                if value is not None and value < 0:
                    value, warning = None, "%s: %d is negative" % (os.path.join(hdir, name, filename), value)
                if warning:
                    self.warn.add(warning)
                entry[key] = value
            sizes["%skB" % match.group(1)] = entry
        return dict(sorted(sizes.items(), key=lambda item: int(item[0][:-2])))

    def _distances(self, path, online_ids, possible_ids):
        """{"<node id>": distance}. The kernel prints one value per online node."""
        text, warning = _sysfs.read_text(path)
        if text is None:
            self.warn.add(warning + "; distances unknown")
            return None
        try:
            values = [int(word) for word in text.split()]
        except ValueError:
            self.warn.add("%s: %r is not a list of integers; distances unknown" % (path, text[:60]))
            return None
        if len(values) == len(online_ids):
            return {str(node): value for node, value in zip(online_ids, values)}
        if possible_ids is not None and len(values) == len(possible_ids):
            self.warn.add("%s: %d values for %d online NUMA nodes; matched to the possible nodes %s instead"
                          % (path, len(values), len(online_ids), _cpulist.format(possible_ids)))
            return {str(node): value for node, value in zip(possible_ids, values)}
        self.warn.add("%s: %d values for %d online NUMA nodes; distances unknown" % (path, len(values), len(online_ids)))
        return None

    def _single_node_from_proc(self):
        """No sys/devices/system/node (non-NUMA kernel): one node 0, as hwloc does."""
        self.warn.add("%s: missing; one NUMA node 0 built from /proc/meminfo with all online cpus" % self.path(_NODE_DIR))
        for cpu in self.online:
            self.cpu_node[cpu] = 0
        meminfo_path = self.path("proc/meminfo")
        text, warning = _sysfs.read_text(meminfo_path)
        memory = None
        hugepages = self._hugepages(self.path("sys/kernel/mm/hugepages"))
        if text is None:
            self.warn.add(warning + "; memory_bytes unknown")
        else:
            memory = self._memtotal(meminfo_path)
            self._merge_meminfo_hugepages(text, hugepages)
            hugepages = dict(sorted(hugepages.items(), key=lambda item: int(item[0][:-2])))
        return {"id": 0, "cpus": _cpulist.format(self.online), "memory_bytes": memory, "hugepages": hugepages, "distances": None}

    def _merge_meminfo_hugepages(self, text, hugepages):
        """Add /proc/meminfo's default huge page size when sysfs does not list it."""
        fields = {}
        for line in text.splitlines():
            key, _sep, value = line.partition(":")
            fields[key.strip()] = value.split()
        try:
            size = "%dkB" % int(fields["Hugepagesize"][0])
            total = int(fields["HugePages_Total"][0])
            free = int(fields["HugePages_Free"][0])
        except (KeyError, IndexError, ValueError):
            return
        if size not in hugepages:
            hugepages[size] = {"total": total, "free": free}
        elif hugepages[size] != {"total": total, "free": free}:
            self.warn.add("/proc/meminfo says %s huge pages total %d free %d, sys/kernel/mm/hugepages says total %s free %s; kept sysfs"
                          % (size, total, free, hugepages[size]["total"], hugepages[size]["free"]))

    # -- cgroup restriction --------------------------------------------------

    def _allowed(self, numa_nodes):
        """CPUs and memory nodes this process may use, read as hwloc does.

        The cpuset is intersected with the online CPUs and NUMA nodes, as hwloc
        does: a cgroup v1 ``cpuset.cpus`` keeps CPUs that are offline or absent.
        """
        node_ids = [n["id"] for n in numa_nodes]
        everything = {"cpus": _cpulist.format(self.online), "mems": _cpulist.format(node_ids), "source": None}
        kind, mount = self._cgroup_mount()
        if kind is None:
            return everything
        name = self._cgroup_name()
        if name is None:
            return everything
        directory = posixpath.normpath(posixpath.join(mount, name.lstrip("/")))
        if kind == "cgroup2":
            files = ("cpuset.cpus.effective", "cpuset.mems.effective")
            directory = self._cgroup2_cpuset_dir(mount, directory)
            if directory is None:
                return everything
        elif kind == "cgroup1":
            files = ("cpuset.cpus", "cpuset.mems")
        else:
            files = ("cpus", "mems")
        values = []
        for filename, present in zip(files, (self.online_set, frozenset(node_ids))):
            value, warning = _sysfs.read_cpulist_ids(self.path(posixpath.join(directory, filename)))
            if value is None:
                self.warn.add("%s; the cgroup restriction is unknown, all online cpus and nodes reported as allowed" % warning)
                return everything
            values.append(_cpulist.format(present.intersection(value)))
        return {"cpus": values[0], "mems": values[1], "source": "%s:%s" % ("cgroup2" if kind == "cgroup2" else "cpuset", directory)}

    def _cgroup2_cpuset_dir(self, mount, leaf):
        """The nearest cgroup from leaf up to the mount root with cpuset.cpus.effective, or None (warned).

        A cgroup without the cpuset controller enabled (often the process's own
        leaf under systemd) has no cpuset files and uses its parent's effective
        set, so the nearest ancestor that has the file holds it.
        """
        directory = leaf
        while True:
            if os.path.exists(self.path(posixpath.join(directory, "cpuset.cpus.effective"))):
                return directory
            if directory == mount or not directory.startswith(mount.rstrip("/") + "/"):
                break
            directory = posixpath.dirname(directory)
        self.warn.add("%s: no cgroup from %s up to %s has cpuset.cpus.effective; the cgroup restriction is unknown, "
                      "all online cpus and nodes reported as allowed" % (self.path(leaf), leaf, mount))
        return None

    def _cgroup_mount(self):
        if os.path.exists(self.path("sys/fs/cgroup/cpuset.cpus.effective")):
            return "cgroup2", "/sys/fs/cgroup"
        if os.path.exists(self.path("sys/fs/cgroup/cpuset/cpuset.cpus")):
            return "cgroup1", "/sys/fs/cgroup/cpuset"
        if os.path.exists(self.path("dev/cpuset/cpus")):
            return "cpuset", "/dev/cpuset"
        text, _warning = _sysfs.read_text(self.path("proc/mounts"))
        for line in (text or "").splitlines():
            fields = line.split()
            if len(fields) < 4:
                continue
            mount = _MOUNT_ESCAPE.sub(lambda m: chr(int(m.group(1), 8)), fields[1])
            fstype, options = fields[2], fields[3].split(",")
            if fstype == "cgroup2":
                controllers, _warning = _sysfs.read_text(self.path(posixpath.join(mount, "cgroup.controllers")))
                if controllers and "cpuset" in controllers.split():
                    return "cgroup2", mount
            elif fstype == "cpuset":
                return "cpuset", mount
            elif fstype == "cgroup" and "cpuset" in options:
                return ("cpuset" if "noprefix" in options else "cgroup1"), mount
        return None, None

    def _cgroup_name(self):
        name, _warning = _sysfs.read_text(self.path("proc/self/cpuset"))
        if name:
            return name.splitlines()[0]
        text, _warning = _sysfs.read_text(self.path("proc/self/cgroup"))
        for line in (text or "").splitlines():
            _hierarchy, sep, rest = line.partition(":")
            if not sep:
                continue
            controllers, sep, path = rest.partition(":")
            if sep and (controllers == "cpuset" or controllers == ""):
                return path
        return None

    # -- kernel ------------------------------------------------------------

    def _kernel(self):
        release, _warning = _sysfs.read_text(self.path("proc/sys/kernel/osrelease"))
        if release:
            return release
        version, _warning = _sysfs.read_text(self.path("proc/version"))
        match = _PROC_VERSION.match(version or "")
        if match:
            return match.group(1)
        self.warn.add("kernel release unknown: neither /proc/sys/kernel/osrelease nor /proc/version is readable")
        return None

    # -- PCI devices -------------------------------------------------------

    def _pci_devices(self):
        """{normalised address: resolved device directory}, read once."""
        if self._pci is not None:
            return self._pci
        self._pci = {}
        names, warning = _sysfs.list_dir(self.path(_PCI_DIR))
        if names is None:
            if not _sysfs.is_missing(warning):
                self.warn.add(warning)
            return self._pci
        for name in names:
            try:
                address = _pci.normalize(name)
            except _pci.PciAddressError as exc:
                self.warn.add("%s/%s: %s; skipped" % (self.path(_PCI_DIR), name, exc))
                continue
            directory, warning = _sysfs.resolve(self.root, _PCI_DIR + "/" + name)
            if directory is None or not os.path.isdir(directory):
                self.warn.add((warning or "%s/%s: not a directory" % (_PCI_DIR, name)) + "; PCI device skipped")
                continue
            self._pci[address] = directory
        return self._pci

    def _pci_locality(self, kind, address, directory):
        """(sysfs numa_node or None, local_cpus or None), with warnings naming the device."""
        label = "%s %s" % (kind, address)
        numa_node, warning = _sysfs.read_int(os.path.join(directory, "numa_node"))
        if numa_node is None:
            self.warn.add("%s: %s; sysfs numa_node unknown" % (label, warning))
        elif numa_node == -1:
            self.warn.add("%s: sysfs numa_node is -1, which means unknown (not node 0): the kernel has no NUMA locality for this device" % label)
            numa_node = None
        elif numa_node < -1:
            self.warn.add("%s: sysfs numa_node %d is not a NUMA node id or -1; treated as unknown" % (label, numa_node))
            numa_node = None
        local_cpus, warning = _sysfs.read_cpus(os.path.join(directory, "local_cpulist"), os.path.join(directory, "local_cpus"))
        if warning:
            self.warn.add("%s: %s" % (label, warning))
        return numa_node, local_cpus

    def _resolve_numa(self, label, sysfs_node, vendor, single_node, known_nodes):
        if sysfs_node is not None and sysfs_node not in known_nodes:
            self.warn.add("%s: sysfs numa_node %d is not an online NUMA node" % (label, sysfs_node))
        vendor_node = vendor["numa_node"] if vendor else None
        if sysfs_node is not None:
            if vendor_node is not None and vendor_node != sysfs_node:
                self.warn.add("%s: sysfs says NUMA node %d, %s says %d; kept sysfs" % (label, sysfs_node, vendor["source"], vendor_node))
            return sysfs_node, "sysfs"
        if vendor_node is not None:
            return vendor_node, vendor["source"]
        if single_node is not None:
            return single_node, "single-node"
        return None, None

    @staticmethod
    def _single_node(numa_nodes):
        with_cpus = [node["id"] for node in numa_nodes if node["cpus"]]
        return with_cpus[0] if len(with_cpus) == 1 else None

    # -- GPUs --------------------------------------------------------------

    def _gpus(self, gpu_source, runner, nvidia, numa_nodes):
        if gpu_source == "none":
            return []
        vendor_gpus = None
        if gpu_source != "sysfs":
            vendor_gpus = self._vendor_gpus(gpu_source, runner, nvidia)
        single = self._single_node(numa_nodes)
        known = {node["id"] for node in numa_nodes}
        if vendor_gpus is None:
            return self._sysfs_gpus(single, known)
        pci = self._pci_devices()
        gpus = []
        for item in vendor_gpus:
            gpus.append(self._vendor_gpu(item, pci, single, known))
        return sorted(gpus, key=lambda g: (g["index"] is None, g["index"], g["pci_address"] or ""))

    def _vendor_gpus(self, gpu_source, runner, nvidia):
        if self.root != os.sep and runner is None:
            self.warn.add("gpu_source %s: vendor tools not consulted for root %s (they describe this machine, not the snapshot); used sysfs"
                          % (gpu_source, self.root))
            return None
        function = nvidia if nvidia is not None else _default_nvidia()
        if function is None:
            self.warn.add("gpu_source %s: the NVIDIA reader (_nvidia) is not available; used sysfs" % gpu_source)
            return None
        try:
            gpus, warnings = function(gpu_source, runner if runner is not None else _runner.NoCommandsRunner())
        except (OSError, ValueError, KeyError, TypeError) as exc:
            self.warn.add("gpu_source %s: reading NVIDIA GPUs failed (%s); used sysfs" % (gpu_source, exc))
            return None
        except Exception as exc:
            # Last resort: a vendor binding that misbehaves (an old pynvml raising AttributeError, ...)
            # must not cost the user the rest of the facts.
            self.warn.add("gpu_source %s: reading NVIDIA GPUs failed with an unexpected %s (%s); used sysfs"
                          % (gpu_source, type(exc).__name__, exc))
            return None
        for warning in warnings or ():
            self.warn.add(warning)
        if gpus is None:
            if gpu_source != "auto":
                self.warn.add("gpu_source %s: not available on this node; used sysfs" % gpu_source)
            return None
        return gpus

    def _vendor_gpu(self, item, pci, single, known):
        source = item.get("source")
        try:
            address = _pci.normalize(item.get("pci_address"))
        except _pci.PciAddressError as exc:
            self.warn.add("gpu %s: %s" % (item.get("index"), exc))
            address = None
        label = "gpu %s" % (address or item.get("index"))
        vendor_cpus = item.get("cpu_affinity")
        if vendor_cpus is not None:
            try:
                vendor_cpus = _cpulist.canonical(vendor_cpus)
            except _cpulist.CpuListError as exc:
                self.warn.add("%s: %s CPU affinity: %s" % (label, source, exc))
                vendor_cpus = None
        vendor = {"source": source, "numa_node": item.get("numa_node"), "cpus": vendor_cpus, "gpu_numa_id": item.get("gpu_numa_id")}
        sysfs_node, local_cpus = None, None
        if address is not None and address in pci:
            sysfs_node, local_cpus = self._pci_locality("gpu", address, pci[address])
        elif address is not None:
            self.warn.add("%s: reported by %s but not found under %s; sysfs locality unknown" % (label, source, self.path(_PCI_DIR)))
        if local_cpus is not None and vendor_cpus is not None and local_cpus != vendor_cpus:
            self.warn.add("%s: sysfs local_cpulist is %s, %s CPU affinity is %s; kept both (local_cpus is sysfs)"
                          % (label, local_cpus, source, vendor_cpus))
        numa_node, numa_source = self._resolve_numa(label, sysfs_node, vendor, single, known)
        return {
            "index": item.get("index"),
            "uuid": item.get("uuid"),
            "pci_address": address,
            "name": item.get("name"),
            "vendor": "nvidia",
            "source": source,
            "numa_node": numa_node,
            "numa_source": numa_source,
            "sysfs_numa_node": sysfs_node,
            "local_cpus": local_cpus,
            "vendor_affinity": vendor,
        }

    def _sysfs_gpus(self, single, known):
        """Display-class PCI devices that are GPUs.

        Kept: display devices (class 0x03) of a GPU vendor (GPU_VENDORS) and
        3D controllers (class 0x0302) of any vendor. Left out, with one
        warning: the other display devices, such as the BMC's VGA (ASPEED,
        Matrox) on servers. A device whose vendor file cannot be read is kept,
        with a warning: it cannot be told apart from a BMC's.
        """
        gpus = []
        skipped = []
        for address, directory in sorted(self._pci_devices().items()):
            pci_class, _warning = _sysfs.read_text(os.path.join(directory, "class"))
            pci_class = (pci_class or "").lower()
            if not pci_class.startswith(_DISPLAY_CLASS):
                continue
            vendor_id, warning = _sysfs.read_text(os.path.join(directory, "vendor"))
            if vendor_id is None:
                self.warn.add("gpu %s: %s; vendor unknown, kept as a GPU (without its vendor it cannot be told apart from a BMC display)"
                              % (address, warning))
            else:
                vendor_id = vendor_id.lower()
                if vendor_id not in GPU_VENDORS and not pci_class.startswith(_3D_CONTROLLER_CLASS):
                    skipped.append("%s (vendor %s, class %s)" % (address, vendor_id, pci_class))
                    continue
            sysfs_node, local_cpus = self._pci_locality("gpu", address, directory)
            numa_node, numa_source = self._resolve_numa("gpu %s" % address, sysfs_node, None, single, known)
            gpus.append({
                "index": len(gpus),
                "uuid": None,
                "pci_address": address,
                "name": None,
                "vendor": GPU_VENDORS.get(vendor_id, vendor_id),
                "source": "sysfs",
                "numa_node": numa_node,
                "numa_source": numa_source,
                "sysfs_numa_node": sysfs_node,
                "local_cpus": local_cpus,
                "vendor_affinity": None,
            })
        if skipped:
            self.warn.add("sysfs GPUs: left out display devices that are neither from a GPU vendor (%s) nor 3D controllers (class %s), "
                          "such as a BMC's VGA: %s"
                          % (", ".join("%s %s" % (vid, name) for vid, name in sorted(GPU_VENDORS.items())), _3D_CONTROLLER_CLASS, "; ".join(skipped)))
        return gpus

    # -- NICs --------------------------------------------------------------

    def _pci_parent(self, device):
        """The PCI function behind a device directory, or None (not PCI).

        The device itself, or for virtio the PCI function it sits on.
        """
        name = os.path.basename(device)
        if _pci.is_address(name):
            return device
        parent = os.path.dirname(device)
        if name.startswith("virtio") and _pci.is_address(os.path.basename(parent)):
            return parent
        return None

    def _class_devices(self, class_dir):
        """{name: resolved device directory} for entries of a /sys/class dir with a device link."""
        names, warning = _sysfs.list_dir(self.path(class_dir))
        if names is None:
            if not _sysfs.is_missing(warning):
                self.warn.add(warning)
            return {}
        devices = {}
        for name in names:
            entry, warning = _sysfs.resolve(self.root, class_dir + "/" + name)
            if entry is None:
                self.warn.add(warning + "; %s skipped" % name)
                continue
            link = os.path.join(entry, "device")
            if not os.path.lexists(link):
                continue  # virtual: lo, bridges, veth, tunnels
            device, warning = _sysfs.resolve(self.root, self.relative(link))
            if device is None or not os.path.isdir(device):
                self.warn.add("%s: %s; left out" % (name, warning or "%s does not lead to a device directory" % link))
                continue
            devices[name] = device
        return devices

    def _nics(self, numa_nodes):
        single = self._single_node(numa_nodes)
        known = {node["id"] for node in numa_nodes}
        rdma = {}
        for name, device in self._class_devices("sys/class/infiniband").items():
            pci_dir = self._pci_parent(device)
            if pci_dir is not None:
                rdma.setdefault(pci_dir, []).append(name)
        nics = []
        for name, device in sorted(self._class_devices("sys/class/net").items()):
            pci_dir = self._pci_parent(device)
            if pci_dir is None:
                continue
            address = _pci.normalize(os.path.basename(pci_dir))
            # The PCI function's driver (virtio-pci for a virtio NIC, not the virtio_net of the virtio device under it),
            # named by the link itself: snapshots do not have the link's target.
            driver, warning = _sysfs.link_basename(self.root, self.relative(os.path.join(pci_dir, "driver")))
            if driver is None:
                self.warn.add("nic %s: %s; driver unknown" % (name, warning))
            sysfs_node, local_cpus = self._pci_locality("nic %s" % name, address, pci_dir)
            numa_node, numa_source = self._resolve_numa("nic %s" % name, sysfs_node, None, single, known)
            nics.append({
                "name": name,
                "pci_address": address,
                "driver": driver,
                "numa_node": numa_node,
                "numa_source": numa_source,
                "sysfs_numa_node": sysfs_node,
                "local_cpus": local_cpus,
                "rdma_devices": sorted(rdma.get(pci_dir, [])),
                "virtual_function": os.path.lexists(os.path.join(pci_dir, "physfn")),
            })
        return nics
