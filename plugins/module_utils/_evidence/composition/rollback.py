# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The ``rollback`` source: whether a rollback of this node was rehearsed (pure).

Public: `compose`, `NOT_READ`, `SHAPE`, `STATES`, `RESULT`.

From ``rollback_task``, the role's task registered as ``__evidence_rollback``: the
rehearsal_info module's result, the rollback evidence read from the node's own transition records and
the check rehearse.yml kept there, under its ``rollback`` key. A read that did not run (check mode, no
canary) gives None (the rollback criterion defers: not rehearsed). A read that failed (under
``failed_when: false`` a result without ``rollback``) becomes ``{state: "not read", rehearsed: false,
error}``: the criterion defers naming the error. No operator statement stands in for either.
"""

from __future__ import annotations

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import shape_check as S
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence.composition import task_result

NOT_READ = "rehearsal_info returned no rollback evidence"
_TEXT = S.Nullable(S.SCALAR)
# What the record takes for it (`Source.shape`): anything; the rollback criterion first names what it must be (`STATES`), then
# checks `RESULT` (`_record.inputs.check_rollback`), so a typed-in {rehearsed: true} is refused in the verdict's words.
SHAPE = S.ANY
# _rehearsal.evidence.STATES, and "not read": the rehearsal_info read failed (NOT_READ)
STATES = ("rehearsed", "not reconciled", "refused", "unchecked", "not converged", "not rehearsed", "not read")
_REHEARSED_TRANSITION = S.Nullable(S.Fields("a transition of the rehearsal", {"transition": S.STR, "target": S.Nullable(S.STR)}, {
    "outcome": S.Nullable(S.STR), "opened": S.Nullable(S.STR), "closed": S.Nullable(S.STR), "duration_s": S.Nullable(S.NUMBER),
    "failed_steps": S.Nullable(S.ListOf(S.STR))}))
RESULT = S.Fields("the rehearsal_info module's rollback evidence", {"state": S.OneOf(*STATES), "rehearsed": S.BOOL}, {
    "node": _TEXT, "enable": _REHEARSED_TRANSITION, "rollback": _REHEARSED_TRANSITION, "re_enable": _REHEARSED_TRANSITION,
    "check": S.Nullable(S.Fields("the check kept after the rollback", {}, {
        "workloads": S.Nullable(S.ListOf(S.Fields("a workload of the check", {"owner": S.STR}, {"state": _TEXT}))),
        "observed_at": _TEXT, "waited_s": S.Nullable(S.NUMBER), "reconciled": S.Nullable(S.BOOL)})),
    "missing": S.Nullable(S.ListOf(S.STR)), "problems": S.Nullable(S.ListOf(S.STR)), "transitions": S.Nullable(S.ListOf(S.STR)),
    "notes": S.Nullable(S.ListOf(S.STR)), "error": _TEXT})


def compose(reads):
    found = task_result.result(reads, "rollback_task")
    if found is None:
        return None
    if found.get("failed") or not isinstance(found.get("rollback"), dict):
        return {"state": "not read", "rehearsed": False, "error": str(found.get("msg") or NOT_READ)}
    return found["rollback"]
