# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filters: stack_refusals, stack_notes (docs in plugins/filter/<name>.yml)."""

from __future__ import annotations

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._stack import eligibility
from ansible_collections.gpusmith.numa_gate.plugins.plugin_utils.filters import adapt


def stack_refusals(observed, pool_selector, allow_kubelet_1_36=False, node=None):
    """What keeps the node from enable.yml (the stack_info result), one message each; [] when it is eligible."""
    return adapt("stack_refusals", eligibility.refusals, observed, {"pool_selector": pool_selector, "allow_kubelet_1_36": allow_kubelet_1_36}, node)


def stack_notes(observed):
    """What stack_info could not read that refuses nothing (said, never silence)."""
    return adapt("stack_notes", eligibility.notes, observed)


class FilterModule(object):
    """The stack filters."""

    def filters(self):
        return {"stack_refusals": stack_refusals, "stack_notes": stack_notes}
