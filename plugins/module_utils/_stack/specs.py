# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The stack_info action's argument spec, declared once (the module file documents the same dict).

Public: `STACK_INFO`.

Plain dicts: the module file (plugins/modules/stack_info.py) is imported where only the node's Python is,
so this file imports nothing but the connection options' own spec (`_kube_api.connection_spec`, no imports).
"""

from __future__ import annotations

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kube_api import connection_spec

STACK_INFO = {
    "node": {"type": "str", "required": True},
    **connection_spec.ARGUMENT_SPEC,
    "workloads": {"type": "bool", "default": False},
    "request_timeout": connection_spec.REQUEST_TIMEOUT_SPEC,
}
