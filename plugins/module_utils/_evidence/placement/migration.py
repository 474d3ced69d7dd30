# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Memory over time: two placement readings of the same pods compared, node by node (pure).

Public: `permitted_fraction`, `compare`, `CHECK`.

A cpuset's memory nodes only bound new allocations: pages already placed elsewhere move only when
the kernel migrates them (cgroup v1 ``cpuset.memory_migrate``; cgroup v2 migrates on a
``cpuset.mems`` change, Documentation/admin-guide/cgroup-v2.rst "Cpuset Interface Files"), and a
migration can be partial (a page pinned, a page-cache page shared). So a node outside the
container's permitted set (its effective ``mems`` at the second reading) that still holds bytes at
the second reading is "migration incomplete", named with the node and the bytes, from both
``memory.numa_stat`` (the cgroup's pages) and ``numa_maps`` (its processes' pages, huge pages by
their size). Unknown is never agreement: a container not read twice, or with no permitted set, is
an ``unknown`` finding.
"""

from __future__ import annotations

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import cpulist as _cpulist

CHECK = "memory_migration"


def _nodes_of(mems):
    if not mems:
        return None
    try:
        return {str(node) for node in _cpulist.parse(mems)}
    except _cpulist.CpuListError:
        return None


def _maps_bytes(memory):
    memory = memory or {}
    found = dict(memory.get("normal_bytes") or {})
    for pool in (memory.get("huge_bytes") or {}).values():
        for node, value in pool.items():
            found[node] = found.get(node, 0) + value
    return found


def _stat_bytes(view):
    return dict(((view.get("numa_stat") or {}).get("resident_bytes")) or {})


def permitted_fraction(view):
    """{"nodes", "local_bytes", "total_bytes", "fraction", "source"} of a container view: bytes on its ``mems`` / all its bytes.

    From memory.numa_stat's resident bytes when read, else numa_maps'; ``fraction`` is None when
    nothing is resident or the permitted set is unknown.
    """
    stat = _stat_bytes(view)
    pool, source = (stat, "memory.numa_stat") if view.get("numa_stat") else (_maps_bytes(view.get("memory")), "numa_maps")
    nodes = _nodes_of(view.get("mems"))
    total = sum(pool.values())
    local = sum(value for node, value in pool.items() if nodes is not None and node in nodes) if nodes is not None else None
    return {"nodes": view.get("mems"), "local_bytes": local, "total_bytes": total, "source": source,
            "fraction": round(local / total, 6) if total and local is not None else None}


def _finding(pod, container, result, expected, observed, message):
    return {"pod": pod, "container": container, "check": CHECK, "result": result, "expected": expected, "observed": observed,
            "sources": {"expected": "cpuset mems at the second reading", "observed": "memory.numa_stat and numa_maps, two readings"},
            "message": message}


def _views(reading):
    """{(pod uid, container id): view} of a placement_info result's found pods."""
    found = {}
    for pod in (reading or {}).get("pods") or []:
        if not pod.get("found"):
            continue
        for view in pod.get("containers") or []:
            found[(pod.get("uid"), view.get("id"))] = view
    return found


def _one(pod, container, first, second):
    nodes = _nodes_of(second.get("mems"))
    if nodes is None:
        return [_finding(pod, container, "unknown", None, second.get("mems"),
                         "container %s: its permitted memory nodes (cpuset mems) were not read at the second reading, so a migration "
                         "cannot be judged" % container[:12])]
    before = {"numa_stat": _stat_bytes(first), "numa_maps": _maps_bytes(first.get("memory"))}
    after = {"numa_stat": _stat_bytes(second), "numa_maps": _maps_bytes(second.get("memory"))}
    found = []
    outside = sorted({node for pool in after.values() for node, value in pool.items() if value > 0 and node not in nodes}, key=int)
    for node in outside:
        held = {name: after[name].get(node, 0) for name in after}
        earlier = {name: before[name].get(node, 0) for name in before}
        found.append(_finding(pod, container, "disagree", second.get("mems"), {"node": int(node), "bytes": held, "first_reading": earlier},
                              "migration incomplete: container %s still holds %d bytes (memory.numa_stat) and %d bytes (numa_maps) on NUMA "
                              "node %s at the second reading, outside its permitted nodes %s (first reading: %d and %d)"
                              % (container[:12], held["numa_stat"], held["numa_maps"], node, second.get("mems"),
                                 earlier["numa_stat"], earlier["numa_maps"])))
    if not found:
        total = sum(after["numa_stat"].values()) + sum(after["numa_maps"].values())
        if not total:
            return [_finding(pod, container, "unknown", second.get("mems"), None,
                             "container %s: nothing resident was read at the second reading (no memory.numa_stat, no numa_maps pages)"
                             % container[:12])]
        found.append(_finding(pod, container, "agree", second.get("mems"), {"nodes": sorted(set(after["numa_stat"]) | set(after["numa_maps"]), key=int)},
                              "container %s: every resident byte is on its permitted nodes %s at the second reading"
                              % (container[:12], second.get("mems"))))
    return found


def compare(first, second):
    """Findings (check `CHECK`) for each container of the first reading against the second (placement_info results)."""
    before = _views(first)
    after = _views(second)
    found = []
    for (pod, container), view in before.items():
        if (pod, container) not in after:
            found.append(_finding(pod, container, "unknown", None, None,
                                  "container %s of pod %s was not found at the second reading: its memory over time is unknown"
                                  % (str(container)[:12], pod)))
            continue
        found += _one(pod, str(container), view, after[(pod, container)])
    return found
