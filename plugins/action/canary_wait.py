# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The canary_wait action: wait on the controller for the canary's pods to be admitted or refused, with progress lines.

The logic is in module_utils/_evidence/canary_wait.py; this adapts it to a task, its progress lines through Ansible's display.
It only reads: check mode runs it the same way.
"""

from __future__ import annotations

from ansible.utils.display import Display

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence import canary_wait
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence import specs
from ansible_collections.gpusmith.numa_gate.plugins.plugin_utils.api_action import NodeApiAction

ARGUMENT_SPEC = specs.CANARY_WAIT  # declared once: the module file documents the same dict


class ActionModule(NodeApiAction):
    """Wait for one node's canary (see the module's docs)."""

    ARGUMENT_SPEC = ARGUMENT_SPEC

    def ask(self, api, args, checked):
        found = canary_wait.wait(api, args["namespace"], name=args["name"], selector=args["selector"], replicas=args["replicas"],
                                 timeout=args["timeout"], poll=args["poll"], display=Display().display,
                                 window=args["window"])
        return dict(found, changed=False)
