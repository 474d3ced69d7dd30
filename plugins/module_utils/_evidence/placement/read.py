# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Where a pod's (or a process's) CPUs and memory really are: the placement_info reading.

Public: `read_pods`, `read_pids`, `process_placement`.

For a pod (found by UID): its cgroup, each container cgroup's effective CPU and memory-node
sets, CPU usage counter, processes, every thread's masks and each process's resident pages per
node, with the cgroup's ``memory.numa_stat`` (bytes per node by type) and the share of its bytes on
its permitted memory nodes. For a PID: the same for that process and its cgroup. With ``expected_nodes`` (the NUMA
node(s) the locality oracle expects), each process and container also gets its local-byte
fraction. Values only: nothing here judges them (that is `reconcile`); a value that cannot be a
measurement (a negative count, a cgroup path out of the mount) is refused where it is read.
"""

from __future__ import annotations

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence.placement import cgroups
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence.placement import cpusets
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence import nodefs
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence.placement import migration
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence.placement import numa_maps
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence.placement import numa_stat
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence.placement import quota
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence.placement import threads
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence.placement import usage

_EMPTY = {"normal_bytes": {}, "huge_bytes": {}, "mappings": 0}
_PID_MAX = 4194304  # the kernel's PID_MAX_LIMIT on 64-bit (2**22)
_NODES_MAX = 1024  # the kernel's MAX_NUMNODES at its largest (NODES_SHIFT 10)


def _check_expected(expected_nodes):
    for node in expected_nodes or []:
        if isinstance(node, bool) or not isinstance(node, int) or not 0 <= node < _NODES_MAX:
            raise nodefs.EvidenceError("expected NUMA node %r is not a NUMA node id (an integer from 0 to %d)" % (node, _NODES_MAX - 1), node=node)


def process_placement(root, pid, expected_nodes=None):
    """{"pid", "threads", "memory"[, "local"]} for one process, or None when it has ended."""
    masks = threads.thread_masks(root, pid)
    if masks is None:
        return None
    memory = numa_maps.resident(root, pid) or dict(_EMPTY)
    entry = {"pid": pid, "threads": masks, "memory": memory}
    if expected_nodes is not None:
        entry["local"] = numa_maps.local_fraction(memory, expected_nodes)
    return entry


def _cgroup_view(root, tree, cgroup, expected_nodes):
    sets = cpusets.effective_sets(root, tree, cgroup)
    view = {"cgroup": cgroup, "cpus": sets and sets["cpus"], "mems": sets and sets["mems"], "cpus_source": sets and sets["source"],
            "usage": usage.read_usage(root, tree, cgroup), "cpu_max": quota.read_quota(root, tree, cgroup), "processes": []}
    memory = dict(_EMPTY)
    for pid in cpusets.processes(root, tree, cgroup):
        entry = process_placement(root, pid, expected_nodes)
        if entry is not None:
            view["processes"].append(entry)
            memory = numa_maps.add(memory, entry["memory"])
    view["memory"] = memory
    view["numa_stat"] = numa_stat.read_numa_stat(root, tree, cgroup)
    view["permitted"] = migration.permitted_fraction(view)
    if expected_nodes is not None:
        view["local"] = numa_maps.local_fraction(memory, expected_nodes)
    return view


def read_pods(root, uids, cgroup_root="/", expected_nodes=None):
    """(hierarchy, [pod placement]) for each UID; a pod with no cgroup is {"uid", "found": False}."""
    cgroups.relative_path(cgroup_root or "/", "cgroup_root", absolute=False)
    _check_expected(expected_nodes)
    tree = cgroups.hierarchy(root)
    pods = []
    for uid in uids:
        found = cgroups.find_pod(root, tree, uid, cgroup_root)
        if found is None:
            pods.append({"uid": uid, "found": False})
            continue
        pod = {"uid": uid, "found": True, "driver": found["driver"], "qos": found["qos"]}
        pod.update(_cgroup_view(root, tree, found["cgroup"], expected_nodes))
        pod["containers"] = []
        for container in found["containers"]:
            view = {"id": container["id"], "runtime": container["runtime"]}
            view.update(_cgroup_view(root, tree, container["cgroup"], expected_nodes))
            pod["containers"].append(view)
        pods.append(pod)
    return tree, pods


def read_pids(root, pids, expected_nodes=None):
    """(hierarchy, [process placement with its cgroup's sets]); an ended process is {"pid", "found": False}."""
    for pid in pids:
        if isinstance(pid, bool) or not isinstance(pid, int) or not 0 < pid <= _PID_MAX:
            raise nodefs.EvidenceError("pid %r is not a process id (an integer from 1 to %d)" % (pid, _PID_MAX), pid=pid)
    _check_expected(expected_nodes)
    tree = cgroups.hierarchy(root)
    found = []
    for pid in pids:
        entry = process_placement(root, pid, expected_nodes)
        if entry is None:
            found.append({"pid": pid, "found": False})
            continue
        cgroup = cgroups.cgroup_of_pid(root, tree, pid)
        sets = cpusets.effective_sets(root, tree, cgroup) if cgroup else None
        entry.update({"found": True, "cgroup": cgroup, "cpus": sets and sets["cpus"], "mems": sets and sets["mems"],
                      "cpus_source": sets and sets["source"], "usage": usage.read_usage(root, tree, cgroup) if cgroup else None})
        found.append(entry)
    return tree, found
