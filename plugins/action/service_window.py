# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The service_window action: one scrape of a service's /metrics (a window against an earlier one), or a window from Prometheus."""

from __future__ import annotations

import time

from ansible.plugins.action import ActionBase

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import shape_check as S
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._service_comparison import specs
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._service_comparison.errors import ServiceComparisonError
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._service_comparison import query as service_query
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._service_comparison import window as service_window
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._service_comparison import pod_metrics
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kube_api import api as kube_api
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kube_api import connection, transport, urls
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kube_api.outcome import outcome

ARGUMENT_SPEC = specs.SERVICE_WINDOW  # declared once: the module file documents the same dict


def read_window(args, clock=time.time, connect=kube_api.connect):
    """The action's result from validated ``args`` (but for the one read, pure): {"changed", "scrape"?, "window"?}.

    Each read is bounded by ``timeout`` (one deadline for the whole exchange) and ``max_bytes`` (`service_query`).
    """
    _check_options(args)
    request = {"timeout": args["timeout"], "max_bytes": args["max_bytes"], "headers": args["headers"]}
    problem = transport.header_problem(args["headers"] or {})
    if problem:
        raise ServiceComparisonError("service_window: %s (nothing was sent)" % problem.replace("; not sent", ""))
    if [bool(args["metrics_url"]), bool(args["prometheus_url"]), args["pods"] is not None].count(True) != 1:
        raise ServiceComparisonError("service_window needs exactly one of metrics_url (a scrape of the service), prometheus_url (a query) "
                                     "and pods (the workload's pods through the API's pod proxy)")
    if args["pods"] is not None:
        return _read_pods(args, clock, connect)
    if args["prometheus_url"]:
        if args["start"] is None or args["end"] is None:
            raise ServiceComparisonError("service_window with prometheus_url needs start and end (seconds since the epoch)")
        return {"changed": False, "window": service_query.query_window(args["prometheus_url"], args["start"], args["end"],
                                                                       args["mapping"], args["match"], **request)}
    text = service_query.fetch_metrics_text(args["metrics_url"], **request)
    scrape = {"url": urls.mask_url(args["metrics_url"]), "timestamp": round(clock(), 3), "text": service_window.trim(text, args["mapping"])}
    answer = {"changed": False, "scrape": scrape}
    if args["previous"]:
        answer["window"] = service_window.scrape_window(args["previous"], scrape, args["mapping"], args["match"])
    return answer


def _check_options(args):
    """The options a library would fail on with its own words (NaN, infinity, an IPv6 host without brackets), named first."""
    S.seconds(args["timeout"], "service_window's timeout", ServiceComparisonError)
    S.check(args["max_bytes"], S.Leaf("an integer above 0", lambda v: S.COUNT.test(v) and v > 0), "service_window's max_bytes", ServiceComparisonError)
    for key in ("start", "end"):
        if args[key] is not None:
            S.seconds(args[key], "service_window's %s" % key, ServiceComparisonError, S.EPOCH)
    for key in ("metrics_url", "prometheus_url"):
        problem = S.http_url_problem(args[key]) if args[key] else None
        if problem:
            raise ServiceComparisonError("service_window's %s %r %s; nothing was sent" % (key, urls.mask_url(args[key]), problem))


def _read_pods(args, clock, connect):
    """The pods' scrape through the API's pod proxy, and with ``previous`` (an earlier one of the same pods) the window between."""
    pod_metrics.check_pods(args["pods"], args["metrics_port"], args["metrics_path"])
    api = connect(settings=connection.from_task(args), timeout=args["request_timeout"])
    scrape = pod_metrics.read_pods(api, args["pods"], args["metrics_port"], args["metrics_path"], args["mapping"], args["max_bytes"], clock)
    answer = {"changed": False, "scrape": scrape}
    if args["previous"]:
        answer["window"] = service_window.pods_window(args["previous"], scrape, args["mapping"], args["match"])
    return answer


class ActionModule(ActionBase):
    """Read a measured window of a serving process from the controller (see the module's docs)."""

    TRANSFERS_FILES = False
    _requires_connection = False
    _VALID_ARGS = frozenset(ARGUMENT_SPEC)

    def run(self, tmp=None, task_vars=None):
        result = super().run(tmp, task_vars)
        del tmp
        _validation, args = self.validate_argument_spec(argument_spec=ARGUMENT_SPEC)
        result.update(outcome(lambda: read_window(args)))
        return result
