# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The kubelet_metrics_info action's argument spec, declared once: the action and its module file both import it.

Public: `KUBELET_METRICS_INFO`.

Plain dicts: the module file (plugins/modules/kubelet_metrics_info.py) is imported where only the node's Python is,
so this file imports nothing but the connection options' own spec (`_kube_api.connection_spec`, no imports).
"""

from __future__ import annotations

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kube_api import connection_spec

KUBELET_METRICS_INFO = {
    "node": {"type": "str", "required": True},
    **connection_spec.ARGUMENT_SPEC,
    "previous": {"type": "dict"},
    "request_timeout": connection_spec.REQUEST_TIMEOUT_SPEC,
}
