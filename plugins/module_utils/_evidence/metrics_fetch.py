# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Controller side: one scrape of a node's kubelet metrics through the API server's node proxy.

Public: `fetch_metrics`.

GET ``/api/v1/nodes/<name>/proxy/metrics`` with the ``kubernetes`` client, through the transition's
`_kube_api.api.Api` (its raw request: the node name checked first, the answer bounded by
``api.MAX_PROXY_BYTES["metrics"]`` bytes and one deadline of ``timeout`` seconds), stamped with the
controller's clock and parsed by `metrics.parse`.
"""

from __future__ import annotations

import time

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence import metrics
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kube_api import api as _api


def fetch_metrics(node, kubeconfig=None, context=None, connect=_api.connect, timeout=_api.REQUEST_TIMEOUT):
    """{"node", "timestamp", "samples"} for one scrape of ``node``'s kubelet ``/metrics``."""
    client = connect(kubeconfig, context, timeout=timeout)
    text = client.node_proxy_get(node, "metrics")
    stamp = round(time.time(), 6)
    parsed = metrics.parse(text)
    return {"node": node, "timestamp": stamp, "samples": parsed["samples"]}
