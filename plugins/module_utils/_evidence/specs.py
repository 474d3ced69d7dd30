# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The kubelet_metrics_info and canary_wait actions' argument specs, declared once: each action and its module file import them.

Public: `KUBELET_METRICS_INFO`, `CANARY_WAIT`.

Plain dicts: the module files (plugins/modules/kubelet_metrics_info.py, canary_wait.py) are imported where only the node's Python is,
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

CANARY_WAIT = {
    "node": {"type": "str", "required": True},
    **connection_spec.ARGUMENT_SPEC,
    "namespace": {"type": "str", "required": True},
    "name": {"type": "str"},
    "selector": {"type": "dict"},
    "replicas": {"type": "int", "default": 1},
    "timeout": {"type": "int", "default": 180},
    "poll": {"type": "float", "default": 3},
    "window": {"type": "bool", "default": False},
    "request_timeout": connection_spec.REQUEST_TIMEOUT_SPEC,
}
