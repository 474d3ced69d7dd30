# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filters: rehearsal_restarts (docs in plugins/filter/<name>.yml)."""

from __future__ import annotations

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._rehearsal import restart
from ansible_collections.gpusmith.numa_gate.plugins.plugin_utils.filters import adapt


def rehearsal_restarts(stops, before, after, pod_resources_before, pod_resources_after):
    """Each asked restart of a main container: seen or not, and how its PodResources allocation changed."""
    return adapt("rehearsal_restarts", restart.results, stops, before, after, pod_resources_before, pod_resources_after)


class FilterModule(object):
    """The rehearsal filters."""

    def filters(self):
        return {"rehearsal_restarts": rehearsal_restarts}
