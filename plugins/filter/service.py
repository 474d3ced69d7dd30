# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filters: service_scrape_window, service_comparison (docs in plugins/filter/<name>.yml)."""

from __future__ import annotations

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._service_comparison import compare as service_compare
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._service_comparison import window as service_window
from ansible_collections.gpusmith.numa_gate.plugins.plugin_utils.filters import adapt


def service_scrape_window(second, first, mapping=None, match=None):
    """The measured window between two scrapes of a service's /metrics ({text, timestamp} each), per series, reset-aware."""
    return adapt("service_scrape_window", service_window.scrape_window, first, second, mapping, match)


def service_comparison(runs, objectives, settings=None):
    """Baseline against canary: refusals first, then min/median/max per quantile and side, the objectives and the state."""
    return adapt("service_comparison", service_compare.compare, runs, objectives, settings)


class FilterModule(object):
    """The service comparison filters."""

    def filters(self):
        return {"service_scrape_window": service_scrape_window, "service_comparison": service_comparison}
