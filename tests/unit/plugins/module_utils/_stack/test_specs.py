# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""stack_info's argument spec: declared once, the connection options and the shared request timeout in it."""

from __future__ import annotations

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kube_api import connection_spec
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._stack import specs
from ansible_collections.gpusmith.numa_gate.plugins.modules import stack_info


def test_the_spec():
    assert specs.STACK_INFO["node"] == {"type": "str", "required": True}
    assert specs.STACK_INFO["workloads"] == {"type": "bool", "default": False}
    assert specs.STACK_INFO["request_timeout"] is connection_spec.REQUEST_TIMEOUT_SPEC
    assert set(connection_spec.ARGUMENT_SPEC) < set(specs.STACK_INFO)
    assert stack_info.ARGUMENT_SPEC is specs.STACK_INFO
