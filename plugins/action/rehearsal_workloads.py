# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The rehearsal_workloads action: a node's workloads through the API before a rehearsed rollback, and their return after it.

The logic is in module_utils/_evidence (rehearsal_workloads, rehearsal_wait); this adapts it to a
task: arguments, progress lines through Ansible's display while it waits, and one place
(`outcome`) that turns an error into a failed result. It only reads: check mode runs it the same way.
"""

from __future__ import annotations

import math

from ansible.utils.display import Display

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._rehearsal import specs
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import shape_check as S
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base.errors import NumaGateError
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._rehearsal import wait as rehearsal_wait
from ansible_collections.gpusmith.numa_gate.plugins.plugin_utils.api_action import NodeApiAction

ARGUMENT_SPEC = specs.REHEARSAL_WORKLOADS  # declared once: the module file documents the same dict
_POD = S.Fields("a pod of the workload", {"name": S.STR, "uid": S.Nullable(S.STR), "ready": S.BOOL})
BEFORE = S.Fields("the rehearsal_workloads result before the rollback", {"workloads": S.ListOf(S.Fields("a workload", {
    "owner": S.STR, "kind": S.Nullable(S.STR), "namespace": S.Nullable(S.STR), "name": S.Nullable(S.STR), "uid": S.Nullable(S.STR),
    "pods": S.ListOf(_POD)}))}, {"observed_at": S.Nullable(S.STR), "unowned": S.Nullable(S.ListOf(S.STR))})


class ActionModule(NodeApiAction):
    """Observe, or wait for, one node's workloads (see the module's docs)."""

    ARGUMENT_SPEC = ARGUMENT_SPEC

    def check(self, args):
        if args["timeout"] < 0 or not (math.isfinite(args["poll"]) and args["poll"] > 0):
            raise NumaGateError("timeout must be 0 or more seconds and poll a finite number of seconds above 0, not %r and %r"
                                % (args["timeout"], args["poll"]))
        return S.check(args["before"], S.Nullable(BEFORE), "before", NumaGateError)

    def ask(self, api, args, checked):
        before = checked
        if before is None:
            return dict(rehearsal_wait.observe(api, args["node"]), changed=False)
        return dict(rehearsal_wait.wait(api, args["node"], before, args["timeout"], args["poll"], display=Display().display), changed=False)
