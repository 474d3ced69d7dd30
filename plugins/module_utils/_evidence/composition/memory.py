# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The ``memory`` source: the canary's memory read twice, after admission and after the warm-up or the load (pure).

Public: `compose`, `main_container`, `SHAPE`.

From ``placement`` (placement_info right after admission) and ``placement_after`` (placement_info
again, after the service windows when the service comparison ran on the canary's pods, and
``evidence_warmup_seconds``): each reading's containers with
their ``memory.numa_stat`` bytes by type per node, their numa_maps bytes and the local-byte fraction
on their permitted nodes, the main container's fraction apart; and the comparison of the two
(`_evidence.placement.migration`), whose findings the ``findings`` source also carries so that a
"migration incomplete" defers the placement criterion. None when the second reading did not run.
The main container is the one named ``main`` (the canary's), else the one holding the most bytes
at the first reading.
"""

from __future__ import annotations

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import shape_check as S
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence import inputs as _inputs
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence.composition import task_result
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence.placement import migration

_READING = S.Fields("a placement reading", {"at": S.STR, "containers": S.ListOf(S.MAPPING)}, {"main": S.ANY, "error": S.Nullable(S.STR)})
# What the record takes for it (`Source.shape`).
SHAPE = S.Fields("the memory over time", {"readings": S.ListOf(_READING), "findings": S.ListOf(_inputs.FINDING)}, {"main_container": S.ANY})
_AT = ("after admission", "after the warm-up or the load")


def _bytes(view):
    stat = view.get("numa_stat") or {}
    return sum((stat.get("resident_bytes") or {}).values())


def main_container(reading, container_ids=None):
    """The id of the main container in a placement_info result: named ``main`` in ``container_ids``, else the most bytes."""
    views = [view for pod in (reading or {}).get("pods") or [] if pod.get("found") for view in pod.get("containers") or []]
    wanted = str((container_ids or {}).get("main") or "").rsplit("://", maxsplit=1)[-1]
    for view in views:
        if wanted and view.get("id") == wanted:
            return wanted
    ranked = sorted(views, key=lambda view: (-_bytes(view), -sum(((view.get("memory") or {}).get("normal_bytes") or {}).values())))
    return ranked[0].get("id") if ranked else None


def _reading(result, at, main):
    if result is None:
        return {"at": at, "containers": [], "main": None, "error": "not read"}
    if result.get("pods") is None:
        return {"at": at, "containers": [], "main": None, "error": str(result.get("msg") or "placement_info returned no pods")}
    containers = []
    for pod in result["pods"]:
        for view in pod.get("containers") or [] if pod.get("found") else []:
            stat = view.get("numa_stat") or {}
            containers.append({"pod": pod.get("uid"), "id": view.get("id"), "mems": view.get("mems"),
                               "numa_stat": {key: stat.get(key) for key in ("format", "unit", "source", "bytes", "huge_bytes", "resident_bytes")}
                               if stat else None,
                               "numa_stat_findings": list(stat.get("findings") or []), "numa_maps": view.get("memory"),
                               "permitted": view.get("permitted") or migration.permitted_fraction(view)})
    chosen = next((entry["permitted"] for entry in containers if entry["id"] == main), None)
    return {"at": at, "containers": containers, "main": chosen, "error": None}


def compose(reads):
    second = task_result.result(reads, "placement_after")
    if second is None:
        return None
    first = task_result.result(reads, "placement")
    canary = task_result.value(reads, "canary") or {}
    main = main_container(first, canary.get("container_ids"))
    readings = [_reading(first, _AT[0], main), _reading(second, _AT[1], main)]
    found = [finding for reading in readings for entry in reading["containers"] for finding in entry["numa_stat_findings"]]
    names = {pod.get("uid"): pod.get("pod") for pod in canary.get("pods") or [] if isinstance(pod, dict)}
    if canary.get("uid"):
        names.setdefault(canary["uid"], canary.get("pod"))
    failed = [reading for reading in readings if reading["error"] is not None]
    if failed:
        found.append({"pod": canary.get("pod"), "container": None, "check": migration.CHECK, "result": "unknown", "expected": "two placement readings",
                      "observed": None, "sources": {"expected": "the canary", "observed": "placement_info, twice"},
                      "message": "memory over time not judged: the reading %s failed: %s" % (failed[0]["at"], failed[0]["error"])})
    else:
        found += [dict(finding, pod=names.get(finding["pod"]) or finding["pod"]) for finding in migration.compare(first, second)]
    return {"readings": readings, "main_container": main, "findings": found}
