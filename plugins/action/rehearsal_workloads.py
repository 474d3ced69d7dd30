# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The rehearsal_workloads action: a node's workloads through the API before a rehearsed rollback, and their return after it.

The logic is in module_utils/_evidence (rehearsal_workloads, rehearsal_wait); this adapts it to a
task: arguments, progress lines through Ansible's display while it waits, and one place
(`outcome`) that turns an error into a failed result. It only reads: check mode runs it the same way.
"""

from __future__ import annotations

from ansible.plugins.action import ActionBase
from ansible.utils.display import Display

from ansible_collections.gpusmith.numa_gate.plugins.module_utils import _k8s_names
from ansible_collections.gpusmith.numa_gate.plugins.module_utils import _shapes as S
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._errors import NumaGateError
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence import rehearsal_wait
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kube_api import api as kube_api
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kube_api import connection
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kube_api.outcome import outcome

ARGUMENT_SPEC = {
    **connection.ARGUMENT_SPEC,
    "request_timeout": {"type": "float", "default": kube_api.REQUEST_TIMEOUT},
    "node": {"type": "str", "required": True},
    "before": {"type": "dict"},
    "timeout": {"type": "int", "default": 300},
    "poll": {"type": "float", "default": 3},
}
_POD = S.Fields("a pod of the workload", {"name": S.STR, "uid": S.Nullable(S.STR), "ready": S.BOOL})
BEFORE = S.Fields("the rehearsal_workloads result before the rollback", {"workloads": S.ListOf(S.Fields("a workload", {
    "owner": S.STR, "kind": S.Nullable(S.STR), "namespace": S.Nullable(S.STR), "name": S.Nullable(S.STR), "uid": S.Nullable(S.STR),
    "pods": S.ListOf(_POD)}))}, {"observed_at": S.Nullable(S.STR), "unowned": S.Nullable(S.ListOf(S.STR))})


class ActionModule(ActionBase):
    """Observe, or wait for, one node's workloads (see the module's docs)."""

    TRANSFERS_FILES = False
    _requires_connection = False
    _VALID_ARGS = frozenset(ARGUMENT_SPEC) | connection.ALIASES

    def run(self, tmp=None, task_vars=None):
        result = super().run(tmp, task_vars)
        del tmp  # unused: nothing goes to the node
        _validation, args = self.validate_argument_spec(argument_spec=ARGUMENT_SPEC)
        display = Display()

        def body():
            _k8s_names.node_name(args["node"])  # before the kubeconfig's credential plugin runs, before any request
            if args["timeout"] < 0 or not args["poll"] > 0:
                raise NumaGateError("timeout must be 0 or more seconds and poll more than 0, not %r and %r" % (args["timeout"], args["poll"]))
            before = S.check(args["before"], S.Nullable(BEFORE), "before", NumaGateError)
            api = kube_api.connect(settings=connection.from_task(args), timeout=args["request_timeout"])
            if before is None:
                return dict(rehearsal_wait.observe(api, args["node"]), changed=False)
            return dict(rehearsal_wait.wait(api, args["node"], before, args["timeout"], args["poll"], display=display.display), changed=False)

        result.update(outcome(body, node=args["node"]))
        return result
