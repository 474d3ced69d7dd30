# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The kubelet_render action: kubelet_config, rendered on the controller when a reading allows it.

In check mode, for ``mode: dropin, state: present``, with a ``reading`` of this same layout (topology_facts'
``kubelet_config`` return), the result is computed here by module_utils/_render/preview.py with no module
run on the node; otherwise the gpusmith.numa_gate.kubelet_config module runs with the same arguments.
"""

from __future__ import annotations

import json

from ansible.plugins.action import ActionBase

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kubelet.config import layout as _layout
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._render import preview as render
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._render import specs

MODULE = "gpusmith.numa_gate.kubelet_config"
LAYOUT_DEFAULTS = _layout.DEFAULTS
# Declared once: the module file documents the same dict. Not checked here: kubelet_config checks what it is handed.
ARGUMENT_SPEC = specs.KUBELET_RENDER


class ActionModule(ActionBase):
    """Render our drop-in from ``reading`` on the controller, or run the kubelet_config module."""

    TRANSFERS_FILES = False

    def run(self, tmp=None, task_vars=None):
        result = super().run(tmp, task_vars)
        del tmp  # unused
        args = dict(self._task.args)
        reading = args.pop("reading", None)
        layout = {name: args.get(name, default) for name, default in LAYOUT_DEFAULTS.items()}
        local = (bool(self._task.check_mode) and _given(args, "mode") == "dropin"
                 and _given(args, "state") == "present" and render.matches(reading, layout))
        if not local:
            result.update(self._execute_module(module_name=MODULE, module_args=args, task_vars=task_vars))
            return result
        # Plain values, as a module gets them: the controller's tagged strings are no YAML the safe dumper writes.
        reading, settings, node = json.loads(json.dumps([reading, args.get("settings"), args.get("node")]))
        try:
            found, warnings = render.dropin(reading, settings, node,
                                            stale_checkpoints=_given(args, "stale_checkpoints"))
        except render.RenderError as exc:
            result.update(exc.details, failed=True, msg=str(exc), changed=False)
            warnings = list(exc.warnings)
        else:
            result.update(found)
            if not self._task.diff:
                result.pop("diff", None)
        if warnings:
            result["warnings"] = warnings
        result["rendered_on"] = "controller"
        return result


def _given(args, name):
    """The task's ``name``, or its default (kubelet_config's, from the one spec)."""
    return args.get(name, ARGUMENT_SPEC[name].get("default"))
