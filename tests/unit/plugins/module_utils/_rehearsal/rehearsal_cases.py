"""Rollback evidence as the rehearsal_info module returns it, built by the collection's own functions from a node's transitions and check."""

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._rehearsal import evidence as rehearsal, workloads as rehearsal_workloads
from ansible_collections.gpusmith.numa_gate.tests.unit.plugins.module_utils._rehearsal.rehearsal_pods import CACHE, NODE, WEB, pod

ENABLE_ID, ROLLBACK_ID, AGAIN_ID = "20261201T090000Z", "20261201T091000Z", "20261201T092000Z"


def _summary(transition, target, opened, closed, duration_s, outcome="converged"):
    return {"transition": transition, "target": target, "outcome": outcome, "open": False, "opened": opened, "closed": closed,
            "duration_s": duration_s, "failed_steps": []}


TRANSITIONS = [_summary(ENABLE_ID, "enable", "2026-12-01T09:00:00Z", "2026-12-01T09:00:22.5Z", 22.5),
               _summary(ROLLBACK_ID, "rollback", "2026-12-01T09:10:00Z", "2026-12-01T09:10:21.6Z", 21.6),
               _summary(AGAIN_ID, "enable", "2026-12-01T09:20:00Z", "2026-12-01T09:20:19Z", 19.0)]
BEFORE = [pod("web-7c9f5d-q2xkp", "u-web-1", WEB), pod("cache-5b8d4c-w7rtl", "u-cache-1", CACHE)]
PODRESOURCES = {"reachable": True, "findings": [], "pods": [
    {"name": name, "namespace": "default", "cpu_ids": "", "memory": [], "containers": []} for name in ("web-7c9f5d-bz4kq", "cache-5b8d4c-pq7rs")]}


def _evidence(now):
    observed = dict(rehearsal_workloads.came_back(rehearsal_workloads.workloads(BEFORE, NODE), now, NODE), unowned=[],
                    observed_at="2026-12-01T09:10:30.000000Z", waited_s=6.0, timeout_s=120)
    kept = rehearsal_workloads.check(ROLLBACK_ID, NODE, observed, PODRESOURCES)
    return rehearsal.evidence(NODE, TRANSITIONS, {ROLLBACK_ID: kept})


def rehearsed():
    """Both workloads came back Ready on the node, PodResources at container scope."""
    return _evidence([pod("web-7c9f5d-bz4kq", "u-web-3", WEB), pod("cache-5b8d4c-pq7rs", "u-cache-2", CACHE)])


def cache_missing():
    """The cache ReplicaSet's pod did not come back."""
    return _evidence([pod("web-7c9f5d-bz4kq", "u-web-3", WEB)])


REHEARSED_MESSAGE = ("rollback rehearsed on this node: rollback 20261201T091000Z (converged, 21.6 s) after enable 20261201T090000Z (converged, 22.5 s); "
                     "2 workloads (ReplicaSet/default/cache-5b8d4c, ReplicaSet/default/web-7c9f5d) came back Ready on the node at container scope; "
                     "re-enabled by enable 20261201T092000Z (converged, 19 s)")
