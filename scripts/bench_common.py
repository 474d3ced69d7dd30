# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What the benchmark scripts share: where things are, and how a call is timed."""

from __future__ import annotations

import os
import statistics
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHARED = os.environ.get("NUMA_GATE_SHARED") or os.path.join(os.path.dirname(REPO), "shared")
# The checkout, importable as ansible_collections.gpusmith.numa_gate (the link `make` creates).
sys.path.insert(0, os.path.join(REPO, ".build", "collections"))


def timed(function, runs):
    """Median and minimum wall time of function() over runs, in milliseconds."""
    samples = []
    for _sample in range(runs):
        start = time.perf_counter()
        function()
        samples.append((time.perf_counter() - start) * 1000.0)
    return statistics.median(samples), min(samples)
