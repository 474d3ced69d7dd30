# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The ``admission_failure`` source: the owning controller's answer to an admission failure, as the record's section (pure).

Public: `compose`, `SHAPE`.

From ``canary`` (the canary role's ``canary_result.admission_failure``, `_evidence.admission_failure.observed`,
present when ``canary_admission_failure`` was asked): the failure grid's row and what it was read from,
flat for the page (one item a line): the row, the kubelet's rejection, the pods the controller created
and that failed in the window, its replacements, the events by reason, each pod, and what was left
after the clean-up. Not asked: None.
"""

from __future__ import annotations

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import shape_check as S
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence.composition import task_result

# What the record takes for it (`Source.shape`).
SHAPE = S.Fields("the owning controller's answer to an admission failure", {
    "row": S.STR, "rejection": S.Nullable(S.STR), "created": S.COUNT, "failed": S.COUNT, "replacements": S.COUNT, "window_s": S.NUMBER,
    "events": S.ListOf(S.STR), "pods": S.ListOf(S.STR), "left": S.ListOf(S.STR)}, {})


def compose(reads):
    canary = task_result.value(reads, "canary")
    found = (canary or {}).get("admission_failure")
    if not isinstance(found, dict):
        return None
    rejection = found.get("rejection")
    return {"row": found.get("row"), "rejection": "%s: %s" % (rejection.get("reason"), rejection.get("message")) if rejection else None,
            "created": found.get("created"), "failed": found.get("failed"), "replacements": found.get("replacements"),
            "window_s": found.get("window_s"),
            "events": ["%s %s x%s: %s" % (e.get("type"), e.get("reason"), e.get("count"), e.get("message")) for e in found.get("events") or []],
            "pods": ["%s on %s: %s%s" % (p.get("pod"), p.get("node"), p.get("phase"), " (%s)" % p["reason"] if p.get("reason") else "")
                     for p in found.get("pods") or []],
            "left": list(found.get("left") or [])}
