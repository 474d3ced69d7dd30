# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The rehearsal_workloads action's argument spec, declared once: the action and its module file both import it.

Public: `REHEARSAL_WORKLOADS`.

Plain dicts: the module file (plugins/modules/rehearsal_workloads.py) is imported where only the node's Python is,
so this file imports nothing but the connection options' own spec (`_kube_api.connection_spec`, no imports).
"""

from __future__ import annotations

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kube_api import connection_spec

REHEARSAL_WORKLOADS = {
    **connection_spec.ARGUMENT_SPEC,
    "request_timeout": connection_spec.REQUEST_TIMEOUT_SPEC,
    "node": {"type": "str", "required": True},
    "before": {"type": "dict"},
    "timeout": {"type": "int", "default": 300},
    "poll": {"type": "float", "default": 3},
}
