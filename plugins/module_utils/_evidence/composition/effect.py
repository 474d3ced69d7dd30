# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The ``effect`` source: whether the pod-level resource managers took effect for the canary's pods (pure).

Public: `compose`, `subject`, `reasons`, `SHAPE`.

`subject(reads)` gathers, for each pod the canary created (``canary.pods``; the single pod's
top-level ``pod``/``uid``/``container_ids`` for a canary result without them): its stored
``.spec.resources`` as read back, its reconciled PodResources entry (by ``namespace/name``), its
placement (by uid), with the budget sent, the control plane (the stack_info action's result,
``control_plane``: /version and kube-apiserver's feature gates; without it, what the canary role
read), the kubelet metrics' rates (`composition.metrics`), the scope and the node's GPU count
(topology facts). `compose(reads)` -> `_evidence.effect.findings` of it; no canary, or none
created (check mode): None.
`reasons(findings)`: the ``effect`` criterion: every finding that is not agreement defers, with its
message; no observation at all (None) defers too: unknown is never agreement.
"""

from __future__ import annotations

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import shape_check as S
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence import effect as _effect
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence import inputs as _inputs
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence.composition import metrics as _metrics
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence.composition import task_result

# What the record takes for it (`Source.shape`).
SHAPE = S.ListOf(_inputs.FINDING)
NOT_OBSERVED = ("whether the pod-level resource managers took effect was not observed: the record has no reading of the canary's pods "
                "(.spec.resources read back, the control plane's gate, PodResources, cgroups, metrics); unknown is not agreement")


def _pods(canary):
    if canary.get("pods") is not None:
        return [dict(pod) for pod in canary["pods"] if pod.get("uid")]
    if not canary.get("uid"):
        return []
    return [{key: canary.get(key) for key in ("pod", "uid", "container_ids", "stored_read", "stored_resources")}]


def subject(reads):
    """The pods and readings `_evidence.effect.findings` takes (see the module docstring); None without a canary pod."""
    canary = task_result.value(reads, "canary")
    pods = _pods(canary or {})
    if not pods:
        return None
    resources = task_result.result(reads, "pod_resources") or {}
    reconciled = resources.get("reconciled") or {}
    allocated = {pod.get("pod"): pod for pod in reconciled.get("pods") or []}
    placed = {pod.get("uid"): pod for pod in (task_result.result(reads, "placement") or {}).get("pods") or []}
    for pod in pods:
        pod["allocation"], pod["placed"] = allocated.get(pod.get("pod")), placed.get(pod.get("uid"))
    topology = task_result.value(reads, "topology") or {}
    plane = _effect.from_stack(task_result.result(reads, "control_plane")) or canary.get("control_plane")
    return {"pods": pods, "sent_resources": canary.get("sent_resources"), "control_plane": plane,
            "scope": reconciled.get("scope") or "pod", "metrics": _metrics.compose(reads), "gpus": len(topology.get("gpus") or [])}


def compose(reads):
    found = subject(reads)
    return None if found is None else _effect.findings(found)


def reasons(findings):
    """[{"criterion": "effect", "effect": "defer", "message"}] for each finding that is not agreement, or one when none was read."""
    if findings is None:
        return [{"criterion": "effect", "effect": "defer", "message": NOT_OBSERVED}]
    return [{"criterion": "effect", "effect": "defer", "message": finding["message"]}
            for finding in findings or [] if finding.get("result") != "agree"]
