# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Physical cores and packages of the online CPUs.

Public: `read_cores`, `threads_per_core`.

The rule, and why: the kubelet (cadvisor's GetNodesInfo) keys a core by (physical_package_id,
core_id) inside each NUMA node; hwloc builds a core from each distinct core_cpus /
thread_siblings mask and a package from each package_cpus / core_siblings mask, the ids being
labels only. core_id alone is not unique: it repeats across packages, and across dies of one
package on kernels without die_id (the 48amd64 and 32amd64 snapshots), and a Qemu guest can
repeat it inside one die (fakememinitiators). So a core here is keyed by (package, die_id when
>= 0, core_id) and split further by its thread siblings: CPUs are one core only when both rules
agree. Where they disagree a warning says so (the kubelet may count such cores differently).
Thread siblings with different core_ids (AMD compute units) become separate cores, as hwloc and
the kubelet both do.

physical_package_id -1 (unknown): as hwloc, packages then come from the package_cpus /
core_siblings masks, one package per distinct mask, and the package id is None (unknown, never a
guessed 0).
"""

from __future__ import annotations

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import cpulist as _cpulist
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts import cpus as _cpus
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts import sysfs
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts import sysfs_cpusets

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


def _format_ordered(cpus):
    """`_cpulist.format` of CPU ids already sorted and distinct (a group's members, in CPU order), without re-sorting them."""
    if not cpus:
        return ""
    parts = []
    start = prev = cpus[0]
    for cpu in cpus[1:]:
        if cpu != prev + 1:
            parts.append(str(start) if start == prev else "%d-%d" % (start, prev))
            start = cpu
        prev = cpu
    parts.append(str(start) if start == prev else "%d-%d" % (start, prev))
    return ",".join(parts)


def threads_per_core(cores):
    """The most CPUs any core has (0 for none), counted from the canonical cpulists `read_cores` made."""
    most = 0
    for core in cores:
        count = 0
        for part in core["cpus"].split(","):
            first, dash, last = part.partition("-")
            count += int(last) - int(first) + 1 if dash else 1
        if count > most:
            most = count
    return most


def _examples(items):
    shown = "; ".join(items[:_EXAMPLES])
    if len(items) > _EXAMPLES:
        shown += "; and %d more" % (len(items) - _EXAMPLES)
    return shown


def read_cores(root, notes, online, cpu_ids, cpu_node):
    """(packages, cores) of the ``online`` CPUs that have a directory in ``cpu_ids``.

    ``cpu_node`` maps each online CPU to its NUMA node (from `numa.read_numa_nodes`); a core gets
    the node all its threads are in, else None.
    """
    cpu_dir = root.join(_cpus.CPU_DIR)
    existing = set(cpu_ids)
    online_set = frozenset(online)
    present = [cpu for cpu in online if cpu in existing]
    available = _topology_files(root, cpu_dir, present)
    info = {}
    for cpu in present:
        info[cpu] = _cpu_topology(root, notes, cpu_dir, cpu, available, online_set)

    core_groups = {}
    package_groups = {}
    for cpu in present:
        item = info[cpu]
        package_groups.setdefault(item["package_key"], []).append(cpu)
        core_groups.setdefault(item["core_key"], []).append(cpu)
    _cross_check(notes, core_groups)

    # Members are in CPU order, so members[0] is each group's lowest CPU.
    packages = []
    for key, members in sorted(package_groups.items(), key=lambda item: item[1][0]):
        packages.append({"id": key[1] if key[0] == "id" else None, "cpus": _format_ordered(members)})

    cores = []
    multi_node = []
    for key, members in sorted(core_groups.items(), key=lambda item: item[1][0]):
        first = info[members[0]]
        nodes = {cpu_node.get(cpu) for cpu in members}
        numa_node = next(iter(nodes)) if len(nodes) == 1 else None
        cpus = _format_ordered(members)
        if len(nodes) > 1:
            multi_node.append(cpus)
        cores.append({
            "package": first["package"],
            "core": key[2],
            "cpus": cpus,
            "numa_node": numa_node,
        })
    if multi_node:
        notes.add("cores whose threads are in different NUMA nodes (numa_node left null): %s" % "; ".join(multi_node))
    nodeless = [cpu for cpu in present if cpu not in cpu_node]
    if nodeless and cpu_node:
        notes.add("online cpus %s are in no online NUMA node's cpulist; their cores have numa_node null" % _cpulist.format(nodeless))
    return packages, cores


def _topology_files(root, cpu_dir, online):
    """Which sibling files this kernel has, from the first CPU's topology dir."""
    for cpu in online:
        names, _warning = root.list_dir("%s/cpu%d/topology" % (cpu_dir, cpu))
        if names:
            return {
                "core": _present_first(_CORE_SIBLING_FILES, set(names)),
                "package": _present_first(_PACKAGE_SIBLING_FILES, set(names)),
                "die": "die_id" in names,
            }
    return {"core": list(_CORE_SIBLING_FILES), "package": list(_PACKAGE_SIBLING_FILES), "die": False}


def _read_first(root, notes, tdir, pairs, cpu, label):
    for list_name, mask_name in pairs:
        value, warning = sysfs_cpusets.read_cpu_ids(list_name and tdir + "/" + list_name, tdir + "/" + mask_name, root)
        if value is not None:
            if warning:
                notes.add(warning)
            return value
        if not sysfs.is_missing(warning):
            notes.add(warning)
    notes.fold("no readable %s" % label, cpu)
    return None


def _read_id(root, notes, tdir, name, cpu):
    value, warning = root.read_int(tdir + "/" + name)
    if value is None:
        if sysfs.is_missing(warning):
            notes.fold("topology/%s missing" % name, cpu)
        else:
            notes.add(warning)
    return value


def _cpu_topology(root, notes, cpu_dir, cpu, available, online_set):
    tdir = "%s/cpu%d/topology" % (cpu_dir, cpu)
    package, warning = root.read_int(tdir + "/physical_package_id")
    if package is None and sysfs.is_missing(warning) and not root.isdir(tdir):
        notes.fold("no topology directory (each counted as its own core, package unknown)", cpu)
        return {"package": None, "package_key": ("unknown",), "core_key": ("cpu", None, None, cpu)}
    if package is None:
        if sysfs.is_missing(warning):
            notes.fold("topology/physical_package_id missing", cpu)
        else:
            notes.add(warning)
    core_id = _read_id(root, notes, tdir, "core_id", cpu)
    die = _read_id(root, notes, tdir, "die_id", cpu) if available["die"] else None
    siblings = _read_first(root, notes, tdir, available["core"], cpu, "thread siblings (core_cpus, thread_siblings)")
    sibling_set = None
    if siblings is not None:
        sibling_set = frozenset(siblings)
        if cpu not in sibling_set or not sibling_set <= online_set:  # the usual mask: the CPU and online siblings only
            sibling_set = sibling_set.intersection(online_set) | {cpu}
    if package is not None and package >= 0:
        package_key = ("id", package)
    else:
        if package is not None:
            notes.fold("physical_package_id is %d (unknown); package grouped by its package_cpus/core_siblings mask, id null" % package, cpu)
        package = None
        mask = _read_first(root, notes, tdir, available["package"], cpu, "package siblings (package_cpus, core_siblings)")
        package_key = ("mask", frozenset(mask) & online_set) if mask is not None else ("unknown",)
    if die is not None and die < 0:
        die = None
    if core_id is None and sibling_set is None:
        core_key = ("cpu", None, None, cpu)
    else:
        core_key = (package_key, die, core_id, sibling_set)
    return {"package": package, "package_key": package_key, "core_key": core_key}


def _cross_check(notes, core_groups):
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
        notes.add(
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
            notes.add("thread siblings disagree: cpus %s list %s as their siblings, but cpus %s do not list them back"
                      % (_cpulist.format(listed), _cpulist.format(siblings), _cpulist.format(siblings - listed)))
    if merged:
        notes.add("thread siblings with different core_ids (%s); counted as separate cores, as hwloc does for AMD compute units"
                  % _examples(merged))
