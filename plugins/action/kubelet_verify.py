# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The kubelet_verify action: a node Ready and healthy for a window, and /configz as expected, from the controller.

The logic is in module_utils/_transition (ready, configz); this adapts it to a task: arguments,
progress lines through Ansible's display while it waits, credentials masked in what it returns,
and one place (`outcome`) that turns an error into a failed result. It only reads: check mode
runs it the same way.

With ``decide`` it is the transition's decision (`_transition.decision.decide`, the same function as the
``transition_decision`` filter): it asks the API only when the node's files say the node is at its target,
and returns the decision, the API's answer under ``now``, and fails only on input the decision refuses
(a node that is not Ready is not at its target, not a failure). The kubelet_transition role decides this
way: one task on the controller, no filter lookup (which loads every filter file of the collection in
the task's worker process).
"""

from __future__ import annotations

from ansible.utils.display import Display

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._transition.api import specs
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base.errors import NumaGateError
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kubelet.config import secrets
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._transition import decision
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._transition.api import came_back, ready
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kube_api.outcome import outcome
from ansible_collections.gpusmith.numa_gate.plugins.plugin_utils.api_action import NodeApiAction

ARGUMENT_SPEC = specs.KUBELET_VERIFY  # declared once: the module file documents the same dict


class ActionModule(NodeApiAction):
    """Verify one node's kubelet (see the module's docs)."""

    ARGUMENT_SPEC = ARGUMENT_SPEC

    def check(self, args):
        if args["timeout"] < 0 or args["stable_s"] < 0 or not args["poll"] > 0:
            raise NumaGateError("timeout and stable_s must be 0 or more seconds and poll more than 0, not %r, %r and %r"
                                % (args["timeout"], args["stable_s"], args["poll"]))

    def ask(self, api, args, checked):
        display = Display().display
        found = ready.verify(api, args["node"], args["expect"], timeout=args["timeout"], stable_s=args["stable_s"], poll=args["poll"],
                             display=display)
        if args["stayed"] is not None:
            # The pods that stayed through the restart, once the kubelet is up: a verify that fails here restores the node.
            # waited_s stays the whole wait (Ready and stable, then the pods), not the second wait alone.
            back = came_back.check(api, args["node"], args["stayed"], timeout=args["timeout"], poll=args["poll"], display=display)
            found.update(back, waited_s=round(found["waited_s"] + back["waited_s"], 1))
        return dict(found, changed=False)

    def answer(self, args):
        decide = args["decide"]
        if decide is None:
            return _masked(super().answer(args), args["expect"])

        def decided(now):
            return decision.decide(decide["target"], decide["render"], decide["checkpoints"], decide["baseline"], now=now,
                                   allow_disruption=decide["allow_disruption"], host=decide["host"], mode=decide["mode"],
                                   config_dir=decide["config_dir"])

        first = outcome(lambda: {"decision": decided(None)}, node=args["node"])
        if first.get("failed") or not first["decision"]["ask_api"]:
            return dict(first, changed=False, node=args["node"], asked_api=False)
        now = _masked(super().answer(args), args["expect"])
        return dict(outcome(lambda: {"decision": decided(now)}, node=args["node"]), changed=False, node=args["node"], asked_api=True, now=now)


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
