# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The ``canary`` source: the allocation canary's pod and its admission (pure).

Public: `compose`, `SHAPE`, `ADMISSION`.

From ``canary`` (the canary role's ``canary_result``: pod, uid, node, container_ids, admission by
layer, `_evidence.canary.admission`): ``{pod, admission}``, and for a workload sent through its
controller ``workload`` (``Kind/name``), ``pods`` (each pod it created: ``pod``, ``uid``, ``node``,
``controller``, ``gpu_requests``) and ``diff`` (the reviewed manifest change). No canary sent: None.
"""

from __future__ import annotations

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import shape_check as S
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence.composition import task_result

_TEXT = S.Nullable(S.SCALAR)
FAILURE = S.Fields("an admission failure", {}, {"layer": _TEXT, "reason": _TEXT, "message": _TEXT})
ADMISSION = S.Fields("a canary admission (canary_admission)", {}, {"admitted": S.Nullable(S.BOOL), "failures": S.ListOf(FAILURE)})
# What the record takes for it (`Source.shape`).
SUBJECT = S.Fields("a pod the canary created", {"pod": S.STR}, {
    "uid": S.Nullable(S.STR), "node": S.Nullable(S.STR), "controller": S.Nullable(S.STR), "gpu_requests": S.Nullable(S.MAPPING)})
SHAPE = S.Fields("the canary (pod and admission)", {}, {
    "pod": S.Nullable(S.STR), "admission": S.Nullable(ADMISSION), "memory_nodes": S.ANY, "workload": S.Nullable(S.STR),
    "pods": S.Nullable(S.ListOf(SUBJECT)), "diff": S.Nullable(S.ListOf(S.STR))})
_SUBJECT_KEYS = ("pod", "uid", "node", "controller", "gpu_requests")


def compose(reads):
    canary = task_result.value(reads, "canary")
    if canary is None:
        return None
    found = {"pod": canary.get("pod"), "admission": canary.get("admission")}
    if canary.get("workload") and canary.get("kind") != "Pod":
        found.update(workload=canary.get("workload"), diff=list(canary.get("diff") or []),
                     pods=[{key: pod.get(key) for key in _SUBJECT_KEYS} for pod in canary.get("pods") or [] if isinstance(pod, dict)])
    return found
