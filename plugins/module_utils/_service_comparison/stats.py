# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Run-to-run variation of the service measurements, and what a difference between the sides may claim (pure).

Public: `spread`, `difference`, `quantile_label`, `window_quantiles`, `NO_DIFFERENCE`.

Each side's repetitions give a range (min, median, max). A difference between the sides is
measurable only when the two ranges do not overlap: then it is the gap between them (the part
beyond the run-to-run spread), "canary higher" or "canary lower" by that much. Inside the spread it
is `NO_DIFFERENCE`, never a gain or a loss, whatever the medians say.
"""

from __future__ import annotations

import math
import statistics

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._service_comparison.quantile import entry_quantile

NO_DIFFERENCE = "no measurable difference"


def quantile_label(q):
    """``p95`` for 0.95, ``p99.9`` for 0.999."""
    return "p%s" % ("%.6f" % (float(q) * 100)).rstrip("0").rstrip(".")


def spread(values):
    """{"min", "median", "max", "values"} of one side's repetitions (None when a value is unknown)."""
    values = [None if value is None or (isinstance(value, float) and math.isnan(value)) else value for value in values]
    known = [value for value in values if value is not None]
    if not known or len(known) != len(values):
        return {"min": None, "median": None, "max": None, "values": values}
    return {"min": min(known), "median": statistics.median(known), "max": max(known), "values": values}


def _fmt(value):
    return "%.6g" % value


def difference(baseline, canary, unit=""):
    """{"median_difference", "beyond_spread", "finding"} of two `spread` results.

    ``beyond_spread`` is the gap between the ranges (positive: canary higher, negative: canary
    lower), 0 when they overlap; ``finding`` says it in words.
    """
    if baseline["median"] is None or canary["median"] is None:
        return {"median_difference": None, "beyond_spread": None, "finding": "unknown: a repetition has no value"}
    median_difference = canary["median"] - baseline["median"]
    if canary["min"] > baseline["max"]:
        gap = canary["min"] - baseline["max"]
        words = "canary higher"
    elif canary["max"] < baseline["min"]:
        gap = canary["max"] - baseline["min"]
        words = "canary lower"
    else:
        return {"median_difference": median_difference, "beyond_spread": 0.0, "finding": "%s (the ranges %s-%s and %s-%s overlap)" % (
            NO_DIFFERENCE, _fmt(baseline["min"]), _fmt(baseline["max"]), _fmt(canary["min"]), _fmt(canary["max"]))}
    relative = " (%.1f%% of the baseline median)" % (100.0 * abs(gap) / baseline["median"]) if baseline["median"] else ""
    return {"median_difference": median_difference, "beyond_spread": gap,
            "finding": "%s by %s%s%s beyond the run-to-run spread" % (words, _fmt(abs(gap)), unit, relative)}


def window_quantiles(entry, quantiles):
    """{label: value} of one window's histogram entry (`service_window.aggregate`), None where Prometheus would say NaN."""
    out = {}
    for q in quantiles:
        value = entry_quantile(q, entry, legacy=entry.get("quantile_rule") == "running-max")["value"]
        out[quantile_label(q)] = None if math.isnan(value) else value
    return out
