# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The ``configuration`` source: the kubelet Ready, healthy and running the planned settings (/configz) (pure).

Public: `compose`, `MATCHES`.

From ``kubelet_verify`` (kubelet_verify, through the API): ``{verified, message}``. Verified only
when the task did not fail and named no mismatch; a result without ``mismatches`` (the module failed:
not Ready, /configz unreadable) is not verified, and its ``msg`` says why. Not run: not verified.
"""

from __future__ import annotations

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence.composition import task_result

MATCHES = "/configz matches the plan"


def compose(reads):
    found = task_result.result(reads, "kubelet_verify") or {}
    succeeded = bool(found) and not found.get("failed", False)
    mismatches = found.get("mismatches", ["unknown"])
    verified = succeeded and mismatches is not None and len(mismatches) == 0
    return {"verified": verified, "message": found["msg"] if "msg" in found else (MATCHES if succeeded else "")}
