# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The ``allocations`` source: the kubelet's allocations from PodResources, reconciled by scope (pure).

Public: `compose`, `SHAPE`.

From ``pod_resources`` (pod_resources_info): its ``reconciled`` (pods, node, findings). Not read
(no canary to read for, or the socket or a call failed): None; the failure itself is a finding of the
``findings`` source.
"""

from __future__ import annotations

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import shape_check as S
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence import inputs as _inputs
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence.composition import task_result

# What the record takes for it (`Source.shape`): pod_allocations' result.
SHAPE = S.Fields("the result of pod_allocations", {
    "scope": S.OneOf("pod", "container"), "pods": S.ListOf(_inputs.ALLOCATION),
    "node": S.Fields("pod_allocations' node", {"exclusive_cpus": S.STR, "exclusive_count": S.COUNT, "shared_pool": S.STR},
                     {"online_cpus": S.STR, "allocatable_cpus": S.Nullable(S.STR)}),
    "findings": S.ListOf(_inputs.FINDING)})


def compose(reads):
    return (task_result.result(reads, "pod_resources") or {}).get("reconciled")
