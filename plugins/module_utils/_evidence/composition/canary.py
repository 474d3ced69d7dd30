# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The ``canary`` source: the allocation canary's pod and its admission (pure).

Public: `compose`, `SHAPE`, `ADMISSION`.

From ``canary`` (the canary role's ``canary_result``: pod, uid, node, container_ids, admission by
layer, `_evidence.canary.admission`): ``{pod, admission}``. No canary sent: None.
"""

from __future__ import annotations

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import shape_check as S
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence.composition import task_result

_TEXT = S.Nullable(S.SCALAR)
FAILURE = S.Fields("an admission failure", {}, {"layer": _TEXT, "reason": _TEXT, "message": _TEXT})
ADMISSION = S.Fields("a canary admission (canary_admission)", {}, {"admitted": S.Nullable(S.BOOL), "failures": S.ListOf(FAILURE)})
# What the record takes for it (`Source.shape`).
SHAPE = S.Fields("the canary (pod and admission)", {}, {"pod": S.Nullable(S.STR), "admission": S.Nullable(ADMISSION), "memory_nodes": S.ANY})


def compose(reads):
    canary = task_result.value(reads, "canary")
    if canary is None:
        return None
    return {"pod": canary.get("pod"), "admission": canary.get("admission")}
