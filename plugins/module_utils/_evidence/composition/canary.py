# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The ``canary`` source: the allocation canary's pod and its admission (pure).

Public: `compose`.

From ``canary`` (the canary role's ``canary_result``: pod, uid, node, container_ids, admission by
layer, `_evidence.canary.admission`): ``{pod, admission}``. No canary sent: None.
"""

from __future__ import annotations

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence.composition import task_result


def compose(reads):
    canary = task_result.value(reads, "canary")
    if canary is None:
        return None
    return {"pod": canary.get("pod"), "admission": canary.get("admission")}
