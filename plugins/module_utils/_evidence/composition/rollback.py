# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The ``rollback`` source: whether a rollback of this node was rehearsed (pure).

Public: `compose`.

From ``rollback_task``, the role's task registered as ``__placement_evidence_rollback``: the
rehearsal_info module's result, the rollback evidence read from the node's own transition records and
the check rehearse.yml kept there, under its ``rollback`` key. A read that did not run or failed gives
None (the rollback criterion defers); no operator statement stands in for it.
"""

from __future__ import annotations

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence.composition import task_result


def compose(reads):
    found = task_result.result(reads, "rollback_task")
    if found is not None and "rollback" in found:
        return found["rollback"]
    return None
