# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The ``findings`` source: the canary's placement on the node against the kubelet's allocation (pure).

Public: `compose`, `CALL_CHECKS`.

The canary's reconciled allocation (``pod_resources``' reconciled pod named like the canary) against
its ``placement`` (placement_info: cgroups, thread masks, resident pages) and the locality oracle of
the ``topology`` facts (`_evidence.reconcile.reconcile_pod`), when both were read; then the
PodResources reader's own failures (checks ``podresources_socket``, ``podresources_call``), so a
socket that could not be read is a finding, never silence. Always a list (the record is then ``full``).
"""

from __future__ import annotations

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence import reconcile
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence.composition import task_result
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._plan import locality

CALL_CHECKS = ("podresources_socket", "podresources_call")


def _allocation(resources, canary):
    pods = (resources.get("reconciled") or {}).get("pods") or []
    return next((pod for pod in pods if pod.get("pod") == canary.get("pod")), None)


def compose(reads):
    resources = task_result.result(reads, "pod_resources") or {}
    placed = ((task_result.result(reads, "placement") or {}).get("pods") or [None])[0]
    canary = task_result.value(reads, "canary") or {}
    allocation = _allocation(resources, canary)
    found = []
    if allocation and placed:
        oracle = locality.build(task_result.value(reads, "topology") or {})
        found = reconcile.reconcile_pod(allocation, placed, canary.get("container_ids"), oracle)
    return found + [finding for finding in resources.get("findings") or [] if finding.get("check") in CALL_CHECKS]
