# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The transition_lock action: take, renew or release a node's maintenance lock (a Lease) through the Kubernetes API.

The logic is in module_utils/_transition/api/lock.py; this adapts it to a task: arguments, check mode
(reads the lease, writes nothing) and one place (`outcome`) that turns an error into a failed result.
"""

from __future__ import annotations

from ansible.plugins.action import ActionBase

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import k8s_names as _k8s_names
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kube_api import api as kube_api
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kube_api import connection
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kube_api.outcome import outcome
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._transition.api import lock, specs
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._transition.journal import transitions

ARGUMENT_SPEC = specs.TRANSITION_LOCK  # declared once: the module file documents the same dict


class ActionModule(ActionBase):
    """Bring the node's lock to ``state`` for ``transition`` (see the module's docs)."""

    TRANSFERS_FILES = False
    _requires_connection = False
    _VALID_ARGS = frozenset(ARGUMENT_SPEC) | connection.ALIASES

    def run(self, tmp=None, task_vars=None):
        result = super().run(tmp, task_vars)
        del tmp
        _validation, args = self.validate_argument_spec(argument_spec=ARGUMENT_SPEC)

        def body():
            _k8s_names.node_name(args["node"])
            _k8s_names.namespace(args["namespace"])
            transitions.check_id(args["transition"])
            settings = connection.from_task(args)
            api = kube_api.connect(settings=settings, timeout=args["request_timeout"])
            check = bool(self._task.check_mode)
            if args["state"] == "released":
                return lock.release(api, args["namespace"], args["node"], args["transition"], check_mode=check)
            return lock.hold(api, args["namespace"], args["node"], args["transition"], args["duration"], check_mode=check)

        result.update(outcome(body, node=args["node"], state=args["state"]))
        return result
