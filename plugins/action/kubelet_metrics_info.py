# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The kubelet_metrics_info action: scrape a node's kubelet metrics from the controller, and rates against an earlier scrape."""

from __future__ import annotations

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence import specs
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence import metrics
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence import metrics_fetch
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kube_api.outcome import outcome
from ansible_collections.gpusmith.numa_gate.plugins.plugin_utils.api_action import NodeApiAction

ARGUMENT_SPEC = specs.KUBELET_METRICS_INFO  # declared once: the module file documents the same dict


class ActionModule(NodeApiAction):
    """Read ``/api/v1/nodes/<node>/proxy/metrics`` through the API server (see the module's docs)."""

    ARGUMENT_SPEC = ARGUMENT_SPEC

    def answer(self, args):
        return outcome(lambda: self.asked(args))  # no node key: the module's RETURN has none (the scrape names it)

    def check(self, args):
        if args["previous"] is not None:
            metrics.check_scrape(args["previous"], "previous")

    def ask(self, api, args, checked):
        scrape = metrics_fetch.fetch_metrics(args["node"], connect=lambda *unused, **ignored: api)
        answer = {"changed": False, "scrape": scrape}
        if args["previous"]:
            answer["rates"] = metrics.rates(args["previous"], scrape)
        return answer
