# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The kube_node action: cordon, drain or uncordon a node through the Kubernetes API, from the controller.

The logic is in module_utils/_transition (node, drain, cordon); this adapts it to a task:
arguments, check mode, progress lines through Ansible's display while the drain waits, and one
place (`outcome`) that turns an error into a failed result. With ``journal``, the step's events are
recorded on the node through ``transition_journal`` in the same task (`step_journal.controller_events`),
so the task runs with the node's connection; the API requests go from the controller all the same.
"""

from __future__ import annotations

from ansible.plugins.action import ActionBase
from ansible.utils.display import Display

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._transition.api import specs
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import k8s_names as _k8s_names
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base.errors import NumaGateError
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._transition.journal import step as step_journal
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kube_api import api as kube_api
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kube_api import connection
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._transition.api import node as kube_node
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kube_api.outcome import outcome

ARGUMENT_SPEC = specs.KUBE_NODE  # declared once: the module file documents the same dict


class ActionModule(ActionBase):
    """Bring one node to ``state`` (see the module's docs)."""

    TRANSFERS_FILES = False
    # The node's connection: only a task with journal uses it (its events are written on the node).
    _requires_connection = True
    _VALID_ARGS = frozenset(ARGUMENT_SPEC) | connection.ALIASES

    def run(self, tmp=None, task_vars=None):
        result = super().run(tmp, task_vars)
        del tmp  # unused: the journal's module run makes its own
        _validation, args = self.validate_argument_spec(argument_spec=ARGUMENT_SPEC)
        display = Display()

        journal = args["journal"] if not self._task.check_mode else None
        recorded = {}

        def body():
            _k8s_names.node_name(args["node"])  # before the kubeconfig's credential plugin runs, before any request
            options = kube_node.options_from(args)
            settings = connection.from_task(args)  # bad connection input is refused before the journal on the node is written
            if journal:
                recorded.update(self._recorded(journal, step_journal.controller_events(journal, args["state"]), task_vars))
            api = kube_api.connect(settings=settings, timeout=args["request_timeout"])
            return kube_node.apply(api, args["node"], args["state"], options, check_mode=bool(self._task.check_mode), display=display.display,
                                   admission=args["admission"] if args["state"] == "drainable" else None)

        result.update(outcome(body, node=args["node"], state=args["state"]))
        if journal and not result.get("failed"):
            after = step_journal.controller_events(journal, args["state"], result)
            # The uncordon's finished event ends the transition: its record comes back with it, in the same module run.
            report = args["node"] if args["state"] == "uncordoned" else None
            if after:
                recorded = outcome(lambda: self._recorded(journal, after, task_vars, report))
            result.update(recorded, changed=result.get("changed", False))
        if journal:
            self._remove_tmp_path(self._connection._shell.tmpdir)  # pylint: disable=protected-access
        if result.get("pod_warnings"):
            result["warnings"] = list(result.get("warnings") or []) + result["pod_warnings"]
        return result

    def _recorded(self, journal, events, task_vars, report=None):
        """Append ``events`` to the node's journal of ``journal``'s transition (one module run on the node).

        {"journal": its summary}, with "transition_record" (the record read after the events) when ``report`` names the node.
        """
        if not events:
            return {"journal": None}
        args = {"action": "record", "state_dir": journal["state_dir"], "transition": journal["transition"], "entries": events}
        if report:
            args.update(report=True, node=report)
        done = self._execute_module(module_name="gpusmith.numa_gate.transition_journal", task_vars=task_vars, module_args=args)
        if done.get("failed"):
            raise NumaGateError("the %s step could not be recorded in transition %s's journal on the node: %s"
                                % (journal["step"], journal["transition"], done.get("msg")))
        found = {"journal": done.get("journal")}
        if report:
            found["transition_record"] = done.get("record")
        return found
