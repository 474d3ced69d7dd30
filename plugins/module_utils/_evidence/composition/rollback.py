# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The ``rollback`` source: whether a rollback of this node was rehearsed (pure).

Public: `compose`, `NOT_READ`.

From ``rollback_task``, the role's task registered as ``__placement_evidence_rollback``: the
rehearsal_info module's result, the rollback evidence read from the node's own transition records and
the check rehearse.yml kept there, under its ``rollback`` key. A read that did not run (check mode, no
canary) gives None (the rollback criterion defers: not rehearsed). A read that failed (under
``failed_when: false`` a result without ``rollback``) becomes ``{state: "not read", rehearsed: false,
error}``: the criterion defers naming the error. No operator statement stands in for either.
"""

from __future__ import annotations

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence.composition import task_result

NOT_READ = "rehearsal_info returned no rollback evidence"


def compose(reads):
    found = task_result.result(reads, "rollback_task")
    if found is None:
        return None
    if found.get("failed") or not isinstance(found.get("rollback"), dict):
        return {"state": "not read", "rehearsed": False, "error": str(found.get("msg") or NOT_READ)}
    return found["rollback"]
