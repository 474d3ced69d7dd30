# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The ``configuration`` source: the kubelet Ready, healthy and running the planned settings (/configz) (pure).

Public: `compose`, `MATCHES`, `SHAPE`.

From ``kubelet_verify`` (kubelet_verify, through the API): ``{verified, message}``. kubelet_verify
returns ``msg`` only when it failed (not Ready and healthy in time, /configz unreadable, settings other
than the plan: `_transition.api.ready.verify`), and under ``failed_when: false`` its result reads
``failed: false`` all the same, with ``mismatches: []`` when it never got to /configz. So it is
verified only when the result has no ``msg``, says ``ready: true`` and names no mismatch; otherwise
not, and ``msg`` says why. Not run: not verified.
"""

from __future__ import annotations

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import shape_check as S
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence.composition import task_result

MATCHES = "/configz matches the plan"
# What the record and the verdict take for it (`Source.shape`).
SHAPE = S.Fields("a configuration attestation", {}, {"verified": S.Nullable(S.BOOL), "message": S.Nullable(S.SCALAR)})


def compose(reads):
    found = task_result.result(reads, "kubelet_verify") or {}
    failed = bool(found.get("failed")) or "msg" in found or found.get("ready") is not True
    verified = not failed and found.get("mismatches") == []
    return {"verified": verified, "message": found["msg"] if "msg" in found else (MATCHES if verified else "")}
