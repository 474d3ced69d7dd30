# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The service_load and service_window actions' argument specs, declared once: each action and module file import them.

Public: `SERVICE_LOAD`, `SERVICE_WINDOW`, `READ_TIMEOUT`, `READ_MAX_BYTES`.

Plain dicts: the module files (plugins/modules/service_load.py, service_window.py) are imported where only the
node's Python is, so this file imports nothing but the connection options' own spec (`_kube_api.connection_spec`,
no imports). The read bounds' defaults are declared here, and `query` (which imports urllib3) reads them from here.
"""

from __future__ import annotations

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kube_api import connection_spec

# One read of a service's /metrics or of Prometheus: seconds for the whole exchange, and bytes of body (query.DEFAULT_*).
READ_TIMEOUT = 10.0
READ_MAX_BYTES = 4 * 1024 * 1024

SERVICE_LOAD = {
    "side": {"type": "str", "required": True, "choices": ["baseline", "canary"]},
    "repetition": {"type": "int", "required": True},
    "window": {"type": "int", "required": True},
    "phase": {"type": "str", "default": "measure", "choices": ["warmup", "measure"]},
    "argv": {"type": "list", "elements": "str"},
    "job": {"type": "dict"},
    "stop_after": {"type": "float"},
    "timeout": {"type": "float", "default": 3600.0},
    "result_file": {"type": "str"},
    "max_result_bytes": {"type": "int", "default": 16 * 1024 * 1024},
    **connection_spec.ARGUMENT_SPEC,
    "request_timeout": connection_spec.REQUEST_TIMEOUT_SPEC,
    "poll": {"type": "float", "default": 2.0},
}

SERVICE_WINDOW = {
    "metrics_url": {"type": "str"},
    "previous": {"type": "dict"},
    "prometheus_url": {"type": "str"},
    "start": {"type": "float"},
    "end": {"type": "float"},
    "mapping": {"type": "dict", "default": {}},
    "match": {"type": "dict", "default": {}},
    "headers": {"type": "dict", "default": {}, "no_log": True},
    "timeout": {"type": "float", "default": READ_TIMEOUT},
    "max_bytes": {"type": "int", "default": READ_MAX_BYTES},
    # The workload's own pods, read through the API's pod proxy with the connection options below.
    "pods": {"type": "list", "elements": "dict"},
    "metrics_port": {"type": "int"},
    "metrics_path": {"type": "str", "default": "metrics"},
    **connection_spec.ARGUMENT_SPEC,
    "request_timeout": connection_spec.REQUEST_TIMEOUT_SPEC,
}
