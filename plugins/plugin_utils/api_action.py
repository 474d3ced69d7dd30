# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The set-up the controller-side actions share: nothing goes to the node, arguments checked, one place errors become failed results.

Public: `ControllerAction`, `NodeApiAction`.

An action file names its ``ARGUMENT_SPEC`` on its class (declared once in its step's module_utils package, where
its module file imports it too); what differs between the actions is only `answer`, or for one node's API reads
`check` and `ask`.
"""

from __future__ import annotations

from ansible.plugins.action import ActionBase

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import k8s_names as _k8s_names
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kube_api import api as kube_api
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kube_api import connection
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kube_api.outcome import outcome


class ControllerAction(ActionBase):
    """An action run on the controller only: the node's connection is not used, no file goes to it.

    A subclass sets ``ARGUMENT_SPEC`` (kubernetes.core's connection options among them: their aliases are valid
    keys too), ``ARGUMENT_RULES`` (validate_argument_spec's other keywords, e.g. mutually_exclusive) and `answer`.
    """

    TRANSFERS_FILES = False
    _requires_connection = False
    ARGUMENT_SPEC = {}
    ARGUMENT_RULES = {}

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        cls._VALID_ARGS = frozenset(cls.ARGUMENT_SPEC) | connection.ALIASES  # ActionBase.run refuses any other key

    def run(self, tmp=None, task_vars=None):
        result = super().run(tmp, task_vars)
        del tmp  # unused: nothing goes to the node
        _validation, args = self.validate_argument_spec(argument_spec=self.ARGUMENT_SPEC, **self.ARGUMENT_RULES)
        result.update(self.answer(args))
        return result

    def answer(self, args):
        """The task's result from its validated ``args`` (`outcome`'s dict: an error is a failed result, never raised)."""
        raise NotImplementedError


class NodeApiAction(ControllerAction):
    """A controller action on one node (``node``) through the API server (``request_timeout`` and the connection options).

    Its result names the node; a subclass sets `ask`, and `check` for its refusals before any request.
    """

    def answer(self, args):
        return outcome(lambda: self.asked(args), node=args["node"])

    def asked(self, args):
        """`ask`'s answer: the node's name and then `check` refuse bad input before the kubeconfig's credential plugin runs."""
        _k8s_names.node_name(args["node"])
        checked = self.check(args)
        api = kube_api.connect(settings=connection.from_task(args), timeout=args["request_timeout"])
        return self.ask(api, args, checked)

    def check(self, args):
        """What `ask` needs of ``args`` beyond their spec, checked before any request (NumaGateError refuses); None here."""
        del args
        return None

    def ask(self, api, args, checked):
        """The result's dict (``changed`` included) from the API client ``api``, the ``args`` and what `check` returned."""
        raise NotImplementedError
