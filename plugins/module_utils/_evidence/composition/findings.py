# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The ``findings`` source: the canary's placement on the node against the kubelet's allocation (pure).

Public: `compose`, `CALL_CHECKS`, `READ_CHECK`, `PLACEMENT_READ_CHECK`, `SHAPE`.

The canary's reconciled allocation (``pod_resources``' reconciled pod named like the canary) against
its ``placement`` (placement_info: cgroups, thread masks, resident pages) and the locality oracle of
the ``topology`` facts (`_evidence.reconcile.findings.reconcile_pod`), when both were read; then the
PodResources reader's own failures (checks ``podresources_socket``, ``podresources_call``), so a
socket that could not be read is a finding, never silence; and when pod_resources_info itself failed
(its ``msg``, no reading at all: the libraries missing on the node, a bad argument; under
``failed_when: false`` it reads ``failed: false``), a ``podresources_read`` finding naming that
failure; likewise a ``placement_read`` finding when placement_info failed outright (its ``msg``, no
``pods``: the cgroup tree not readable, a bad argument), so the record says why nothing was compared
instead of only "no placement evidence"; and the ``memory`` source's findings (two placement readings:
``memory_migration``, ``memory_numa_stat``). Always a list (the record is then ``full``).
"""

from __future__ import annotations

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import shape_check as S
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence import inputs as _inputs
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence.reconcile import findings as reconcile
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence.composition import memory
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence.composition import task_result
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._plan import locality

# What the record takes for it (`Source.shape`).
SHAPE = S.ListOf(_inputs.FINDING)

CALL_CHECKS = ("podresources_socket", "podresources_call")
READ_CHECK = "podresources_read"
PLACEMENT_READ_CHECK = "placement_read"


def _allocation(resources, canary):
    pods = (resources.get("reconciled") or {}).get("pods") or []
    return next((pod for pod in pods if pod.get("pod") == canary.get("pod")), None)


def compose(reads):
    resources = task_result.result(reads, "pod_resources") or {}
    placement = task_result.result(reads, "placement") or {}
    placed = (placement.get("pods") or [None])[0]
    canary = task_result.value(reads, "canary") or {}
    allocation = _allocation(resources, canary)
    found = []
    if allocation and placed:
        oracle = locality.build(task_result.value(reads, "topology") or {})
        found = reconcile.reconcile_pod(allocation, placed, canary.get("container_ids"), oracle)
    found += [finding for finding in resources.get("findings") or [] if finding.get("check") in CALL_CHECKS]
    if "msg" in resources and resources.get("reconciled") is None:
        found.append({"pod": canary.get("pod"), "container": None, "check": READ_CHECK, "result": "unknown", "expected": "a PodResources reading",
                      "observed": None, "sources": {"expected": "the canary", "observed": "pod_resources_info"},
                      "message": "pod_resources_info failed, so the kubelet's allocations were not read: %s" % resources["msg"]})
    if "msg" in placement and placement.get("pods") is None:
        found.append({"pod": canary.get("pod"), "container": None, "check": PLACEMENT_READ_CHECK, "result": "unknown",
                      "expected": "the canary's cgroups, threads and pages", "observed": None,
                      "sources": {"expected": "the canary", "observed": "placement_info"},
                      "message": "placement_info failed, so the canary's cgroups, thread masks and resident pages were not read: %s"
                      % placement["msg"]})
    # memory over time (the second placement reading): "migration incomplete" defers placement like any disagreement
    found += (memory.compose(reads) or {}).get("findings") or []
    return found
