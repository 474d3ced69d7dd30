# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The transition_lock action: take, renew or release a node's maintenance lock through the Kubernetes API.

The logic is in module_utils/_transition/api/lock.py (the Lease) and maintenance.py (the NVIDIA Maintenance Operator's
NodeMaintenance, where served); this adapts it to a task: arguments, which of the two (``kind``), check mode (reads,
writes nothing), progress lines while a request waits to be granted, and one place (`outcome`) that turns an error into
a failed result.
"""

from __future__ import annotations

from ansible.plugins.action import ActionBase
from ansible.utils.display import Display

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import k8s_names as _k8s_names
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base.errors import NumaGateError
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kube_api import api as kube_api
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kube_api import connection
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kube_api.outcome import outcome
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._transition.api import lock, maintenance, specs
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
            served = args["kind"] != "lease" and maintenance.served(api)
            if args["kind"] == "node_maintenance" and not served:
                raise NumaGateError("kind node_maintenance needs the NVIDIA Maintenance Operator's NodeMaintenance CRD, and the API serves no "
                                    "nodemaintenances in maintenance.nvidia.com/v1alpha1; nothing was changed (kind auto or lease takes a Lease)")
            if served:
                _k8s_names.namespace(args["maintenance_namespace"])
                if args["state"] == "released":
                    return maintenance.release(api, args["maintenance_namespace"], args["node"], args["transition"], check_mode=check)
                return maintenance.hold(api, args["maintenance_namespace"], args["node"], args["transition"], timeout=args["timeout"],
                                        poll=args["poll"], check_mode=check, display=Display().display)
            if args["state"] == "released":
                return dict(lock.release(api, args["namespace"], args["node"], args["transition"], check_mode=check), lock_kind="Lease")
            return dict(lock.hold(api, args["namespace"], args["node"], args["transition"], args["duration"], check_mode=check), lock_kind="Lease")

        result.update(outcome(body, node=args["node"], state=args["state"]))
        return result
