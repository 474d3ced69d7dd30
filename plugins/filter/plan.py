# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filter: reservation_plan (docs in plugins/filter/reservation_plan.yml)."""

from __future__ import annotations

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._plan import plan
from ansible_collections.gpusmith.numa_gate.plugins.plugin_utils.filters import adapt


def reservation_plan(topology, policy=None, base_config=None):
    """Plan kubelet CPU and memory reservations from numa_gate_topology facts, over the node's kubelet configuration."""
    return adapt("reservation_plan", plan.reservation_plan, topology, policy, base_config)


class FilterModule(object):
    """The reservation planner filter."""

    def filters(self):
        return {"reservation_plan": reservation_plan}
