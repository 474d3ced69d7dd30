# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The kubelet_metrics_info action: scrape a node's kubelet metrics from the controller, and rates against an earlier scrape."""

from __future__ import annotations

from ansible.plugins.action import ActionBase

from ansible_collections.gpusmith.numa_gate.plugins.module_utils import _k8s_names
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence import metrics
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence import metrics_fetch
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kube_api import api as kube_api
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kube_api import connection
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kube_api.outcome import outcome

ARGUMENT_SPEC = {
    "node": {"type": "str", "required": True},
    **connection.ARGUMENT_SPEC,
    "previous": {"type": "dict"},
    "request_timeout": {"type": "float", "default": kube_api.REQUEST_TIMEOUT},
}


class ActionModule(ActionBase):
    """Read ``/api/v1/nodes/<node>/proxy/metrics`` through the API server (see the module's docs)."""

    TRANSFERS_FILES = False
    _requires_connection = False
    _VALID_ARGS = frozenset(ARGUMENT_SPEC) | connection.ALIASES

    def run(self, tmp=None, task_vars=None):
        result = super().run(tmp, task_vars)
        del tmp
        _validation, args = self.validate_argument_spec(argument_spec=ARGUMENT_SPEC)

        def body():
            _k8s_names.node_name(args["node"])  # before the kubeconfig's credential plugin runs, before any request
            if args["previous"] is not None:
                metrics.check_scrape(args["previous"], "previous")  # before any request
            api = kube_api.connect(settings=connection.from_task(args), timeout=args["request_timeout"])
            scrape = metrics_fetch.fetch_metrics(args["node"], connect=lambda *unused, **ignored: api)
            answer = {"changed": False, "scrape": scrape}
            if args["previous"]:
                answer["rates"] = metrics.rates(args["previous"], scrape)
            return answer

        result.update(outcome(body))
        return result
