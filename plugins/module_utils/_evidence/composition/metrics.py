# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The ``metrics`` source: the kubelet's resource manager series, as rates between the scrapes around the canary (pure).

Public: `compose`.

From ``metrics_after`` (kubelet_metrics_info with ``previous``: the scrape before the canary): its
``rates``. The first scrape failed, so no second one ran, or the second failed: None, and the
monitoring criterion defers ("no kubelet metrics were collected").
"""

from __future__ import annotations

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence.composition import task_result


def compose(reads):
    return (task_result.result(reads, "metrics_after") or {}).get("rates")
