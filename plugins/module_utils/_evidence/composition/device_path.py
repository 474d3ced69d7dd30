# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The ``device_path`` source: the device plugin, DRA slices and SR-IOV config read from the API, compared with the host (pure).

Public: `compose`, `NOT_READ`, `SHAPE`.

From ``device_path`` (device_path_info). Three states, never confused:

- not asked: the task did not run (check mode, no canary): None. The record says "not collected";
  the verdict takes no reason from it (a record accepted with a device path sees its absence as a
  change);
- read: the action's result (``node``, ``findings``, ``versions``, ``summary``, ...) as it returned it;
- failed: the action failed (the API refused a list, the node is unknown, a connection error). Under
  ``failed_when: false`` its result reads ``failed: false``, so a result without ``findings`` is a
  failed read too. It becomes ``{node, error, findings: [], versions: {}}``: the verdict defers naming
  the error, and its versions are unknown, not "none" (no change is claimed from them).
"""

from __future__ import annotations

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import shape_check as S
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence import inputs as _inputs
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence.composition import task_result

NOT_READ = "device_path_info returned no findings"
# What the record and the verdict take for it (`Source.shape`).
SHAPE = S.Fields("the device path (device_path_info)", {"findings": S.ListOf(_inputs.FINDING), "versions": S.MapOf(S.Nullable(S.SCALAR))},
                 {"summary": S.ANY, "node": S.Nullable(S.SCALAR), "error": S.Nullable(S.STR)})
_TASK_KEYS = ("changed", "failed", "failed_when_result", "invocation", "msg", "exception", "warnings", "deprecations", "_ansible_no_log")


def compose(reads):
    found = task_result.result(reads, "device_path")
    if found is None:
        return None
    if found.get("failed") or not isinstance(found.get("findings"), list):
        return {"node": found.get("node"), "error": str(found.get("msg") or NOT_READ), "findings": [], "versions": {}}
    return {key: item for key, item in found.items() if key not in _TASK_KEYS}
