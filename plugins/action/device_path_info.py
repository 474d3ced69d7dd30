# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The device_path_info action: one node's device path read from the Kubernetes API and compared with the host, from the controller.

The logic is in module_utils/_evidence/device_path (read, compare and the per-plugin readers); this
adapts it to a task: arguments, the locality oracle from the topology facts, the YAML parser for
NVIDIA's config file, and one place (`outcome`) that turns an error into a failed result. It only
reads: check mode runs it the same way.
"""

from __future__ import annotations

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._device_path import specs
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base.errors import NumaGateError
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._device_path import read as device_path
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._plan import locality
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kubelet.config import documents
from ansible_collections.gpusmith.numa_gate.plugins.plugin_utils.api_action import NodeApiAction

ARGUMENT_SPEC = specs.DEVICE_PATH_INFO  # declared once: the module file documents the same dict


class ActionModule(NodeApiAction):
    """Read and compare one node's device path (see the module's docs)."""

    ARGUMENT_SPEC = ARGUMENT_SPEC
    ARGUMENT_RULES = specs.DEVICE_PATH_INFO_RULES

    def check(self, args):
        oracle = locality.build(args["topology"]) if args["topology"] is not None else args["oracle"]
        if not isinstance(oracle.get("devices"), list):
            raise NumaGateError("oracle must be the locality_oracle filter's result (a mapping with a devices list); give topology "
                                "(topology_facts) instead to have it built here")
        return oracle

    def ask(self, api, args, checked):
        found = device_path.read(api, args["node"], checked, selectors=args["selectors"], allocatable=args["allocatable"], parse_yaml=documents.parse_yaml)
        return dict(found, changed=False)
