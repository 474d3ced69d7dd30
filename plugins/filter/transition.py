# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filters: transition_resume, transition_decision (docs in plugins/filter/<name>.yml)."""

from __future__ import annotations

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._transition import decision, resume
from ansible_collections.gpusmith.numa_gate.plugins.plugin_utils.filters import adapt


def transition_resume(summary, resumed, unschedulable_now, target_in_place):
    """What a resumed transition skips, and whose cordon it is, from its journal's summary."""
    return adapt("transition_resume", resume.plan, summary, resumed, unschedulable_now, target_in_place)


def transition_decision(render, target, checkpoints, baseline, now=None, allow_disruption=False, host="the node", mode="dropin", config_dir=None):
    """Whether the node is at its target, why not, and the refusal to stop with, from what the role read."""
    return adapt("transition_decision", decision.decide, target, render, checkpoints, baseline, now=now, allow_disruption=allow_disruption,
                 host=host, mode=mode, config_dir=config_dir)


class FilterModule(object):
    """The transition filters."""

    def filters(self):
        return {"transition_resume": transition_resume, "transition_decision": transition_decision}
