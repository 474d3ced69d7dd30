# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filters: service_load_plan, service_load_comparison, service_cpu_window, service_cpu_slack (docs in plugins/filter/<name>.yml)."""

from __future__ import annotations

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._record import service_slack
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._service_comparison import runs as service_runs
from ansible_collections.gpusmith.numa_gate.plugins.plugin_utils.filters import adapt


def service_load_plan(settings):
    """The windows of a service comparison in the order they run (A B A B ...), each with its warmup and measured run rendered."""
    return adapt("service_load_plan", service_runs.plan, settings)


def service_load_comparison(windows, objectives, settings=None):
    """The windows run, compared (service_comparison), with per window what ran and when (``runs``)."""
    return adapt("service_load_comparison", service_runs.compare, windows, objectives, settings)


def service_cpu_window(second, first, pods):
    """One window's CPU use: each container cgroup's usage samples at the start (``first``) and end (``second``) of the window."""
    return adapt("service_cpu_window", lambda end, start, subjects: service_slack.window_use(start, end, subjects), second, first, pods)


def service_cpu_slack(windows, topology):
    """The reservation slack per side from the CPU use measured in the windows run (null when none was measured)."""
    return adapt("service_cpu_slack", service_slack.from_windows, windows, topology)


class FilterModule(object):
    """The service load filters."""

    def filters(self):
        return {"service_load_plan": service_load_plan, "service_load_comparison": service_load_comparison,
                "service_cpu_window": service_cpu_window, "service_cpu_slack": service_cpu_slack}
