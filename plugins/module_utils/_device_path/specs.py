# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The device_path_info action's argument spec, declared once: the action and its module file both import it.

Public: `DEVICE_PATH_INFO`, `DEVICE_PATH_INFO_RULES`.

Plain dicts: the module file (plugins/modules/device_path_info.py) is imported where only the node's Python is,
so this file imports nothing but the connection options' own spec (`_kube_api.connection_spec`, no imports).
"""

from __future__ import annotations

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kube_api import connection_spec

DEVICE_PATH_INFO = {
    **connection_spec.ARGUMENT_SPEC,
    "request_timeout": connection_spec.REQUEST_TIMEOUT_SPEC,
    "node": {"type": "str", "required": True},
    "topology": {"type": "dict"},
    "oracle": {"type": "dict"},
    "allocatable": {"type": "dict"},
    "selectors": {"type": "dict", "default": {}},
}
# validate_argument_spec's (and AnsibleModule's) other keywords.
DEVICE_PATH_INFO_RULES = {"mutually_exclusive": [("topology", "oracle")], "required_one_of": [("topology", "oracle")]}
