# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The stack_info action: the versions one node and its cluster run, each with where and when it was read, from the controller.

The logic is in module_utils/_stack/observe.py; this reads the API (GET /version, /metrics, the Node and, when asked,
the Deployments and DaemonSets) and hands the answers over. A failed read is kept as its error, never as silence.
It only reads: check mode runs it the same way.
"""

from __future__ import annotations

import datetime

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base.errors import NumaGateError
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kube_api import answers as kube_answers
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._stack import observe
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._stack import specs
from ansible_collections.gpusmith.numa_gate.plugins.plugin_utils.api_action import NodeApiAction

ARGUMENT_SPEC = specs.STACK_INFO  # declared once: the module file documents the same dict
MAX_METRICS_BYTES = 32 * 1024 * 1024  # kube-apiserver's /metrics runs to a few MiB on a large cluster


def _read(ask):
    try:
        return ask()
    except NumaGateError as exc:
        return {"error": str(exc)}


def _items(api, path, kind):
    # A list of another shape is a read that failed (named), never a list with nothing in it.
    return [dict(item, kind=kind) for item in kube_answers.workload_list(api.request("GET", path), "GET %s" % path)]


def _version(api):
    found = api.request("GET", "/version")
    if not isinstance(found.get("gitVersion"), (str, type(None))):
        raise kube_answers.ShapeError("GET /version: the answer's gitVersion is %r, expected a string such as v1.37.1" % (found["gitVersion"],))
    return found


class ActionModule(NodeApiAction):
    """Read one node's stack (see the module's docs)."""

    ARGUMENT_SPEC = ARGUMENT_SPEC

    def ask(self, api, args, checked):
        read_at = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
        answers = {"version": _read(lambda: _version(api)),
                   "metrics": _read(lambda: api.request("GET", "/metrics", raw=True, max_bytes=MAX_METRICS_BYTES)),
                   "node": _read(lambda: api.get_node(args["node"]))}
        if args["workloads"]:  # two reads: a list that fails (RBAC, an API not served) hides nothing the other found
            answers["deployments"] = _read(lambda: _items(api, "/apis/apps/v1/deployments", "Deployment"))
            answers["daemonsets"] = _read(lambda: _items(api, "/apis/apps/v1/daemonsets", "DaemonSet"))
        return dict(observe.observe(answers, read_at), changed=False)
