# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The kubelet_verify action: a node Ready and healthy for a window, and /configz as expected, from the controller.

The logic is in module_utils/_transition (ready, configz); this adapts it to a task: arguments,
progress lines through Ansible's display while it waits, credentials masked in what it returns,
and one place (`outcome`) that turns an error into a failed result. It only reads: check mode
runs it the same way.
"""

from __future__ import annotations

from ansible.plugins.action import ActionBase
from ansible.utils.display import Display

from ansible_collections.gpusmith.numa_gate.plugins.module_utils import _k8s_names
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._errors import NumaGateError
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kubelet import secrets
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kube_api import api as kube_api
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kube_api import connection
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._transition import ready
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kube_api.outcome import outcome

ARGUMENT_SPEC = {
    **connection.ARGUMENT_SPEC,
    "request_timeout": {"type": "float", "default": kube_api.REQUEST_TIMEOUT},
    "node": {"type": "str", "required": True},
    "expect": {"type": "dict", "default": {}},
    "timeout": {"type": "int", "default": 180},
    "stable_s": {"type": "int", "default": 20},
    "poll": {"type": "float", "default": 2},
}


class ActionModule(ActionBase):
    """Verify one node's kubelet (see the module's docs)."""

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
            if args["timeout"] < 0 or args["stable_s"] < 0 or not args["poll"] > 0:
                raise NumaGateError("timeout and stable_s must be 0 or more seconds and poll more than 0, not %r, %r and %r"
                                    % (args["timeout"], args["stable_s"], args["poll"]))
            api = kube_api.connect(settings=connection.from_task(args), timeout=args["request_timeout"])
            return dict(ready.verify(api, args["node"], args["expect"], timeout=args["timeout"], stable_s=args["stable_s"],
                                     poll=args["poll"], display=display.display), changed=False)

        answer = outcome(body, node=args["node"])
        result.update(_masked(answer, args["expect"]))
        return result


def _masked(answer, expect):
    """``answer`` with the credentials a kubelet configuration may carry masked (configz, mismatches, msg)."""
    config = answer.get("configz") or {}
    if "msg" in answer:
        answer["msg"] = secrets.mask_text(secrets.mask_text(answer["msg"], config), expect)
    for entry in answer.get("mismatches") or []:
        field = entry["field"].split(".")[0]
        if field in secrets.SENSITIVE_FIELDS + secrets.URL_FIELDS:
            entry["expected"] = secrets.mask({field: entry["expected"]})[field]
            entry["actual"] = secrets.mask({field: entry["actual"]})[field]
    return secrets.mask(answer)
