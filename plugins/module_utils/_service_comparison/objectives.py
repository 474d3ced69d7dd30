# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The operator's service objectives, checked against the comparison's table (pure).

Public: `check_objective`, `describe`, `validate`, `METRICS`.

An objective is a mapping:

- absolute latency: ``{metric: ttft, quantile: 0.95, at_most: 0.5}`` holds when every canary
  repetition's p95 is at most 0.5 s;
- relative latency: ``{metric: itl, quantile: 0.95, relative: 0.05}`` holds unless the canary is
  higher than the baseline beyond the run-to-run spread by more than 5 % of the baseline median;
- ``{metric: error_ratio, at_most: 0.01}``: every canary repetition's errors / completed requests;
- ``{metric: throughput, relative: 0.05}`` (not lower than the baseline beyond the spread by more than
  5 %) or ``{metric: throughput, at_least: 10}``: completed non-error requests per second.

Each result is ``{"objective", "held": True | False | None, "detail"}``; None when the value was not
measured (the comparison is then incomparable).
"""

from __future__ import annotations

import math

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._service_comparison.errors import ServiceComparisonError
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._service_comparison.checks import LATENCY_KEYS
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._service_comparison.stats import quantile_label

METRICS = LATENCY_KEYS + ("error_ratio", "throughput")
_BOUNDS = ("at_most", "at_least", "relative")


def validate(objective, index):
    """The objective, or a ServiceComparisonError naming ``objectives[index]`` and the rule it breaks."""
    where = "objectives[%d]" % index
    if not isinstance(objective, dict):
        raise ServiceComparisonError("%s must be a mapping such as {metric: ttft, quantile: 0.95, at_most: 0.5}, got %r" % (where, objective))
    unknown = sorted(set(objective) - set(("metric", "quantile", "name") + _BOUNDS))
    if unknown:
        raise ServiceComparisonError("%s has unknown keys %s (known: metric, quantile, at_most, at_least, relative, name)" % (where, ", ".join(unknown)))
    metric = objective.get("metric")
    if metric not in METRICS:
        raise ServiceComparisonError("%s metric must be one of %s, got %r" % (where, ", ".join(METRICS), metric))
    bounds = [key for key in _BOUNDS if key in objective]
    if len(bounds) != 1:
        raise ServiceComparisonError("%s needs exactly one of at_most, at_least, relative, got %s" % (where, ", ".join(bounds) or "none"))
    for key in bounds:
        value = objective[key]
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
            raise ServiceComparisonError("%s %s must be a number >= 0, got %r" % (where, key, value))
    if metric in LATENCY_KEYS:
        q = objective.get("quantile")
        if isinstance(q, bool) or not isinstance(q, (int, float)) or not 0 < q < 1:
            raise ServiceComparisonError("%s quantile must be a number between 0 and 1 (0.95 for p95), got %r" % (where, q))
        if "at_least" in objective:
            raise ServiceComparisonError("%s: a latency objective is at_most or relative, not at_least" % where)
    elif "quantile" in objective:
        raise ServiceComparisonError("%s: %s has no quantile" % (where, metric))
    if metric == "error_ratio" and "at_most" not in objective:
        raise ServiceComparisonError("%s: error_ratio takes at_most" % where)
    return objective


def describe(objective):
    """``p95 ttft <= 0.5 s``, ``p95 itl not worse than baseline by more than 5% beyond the spread``, ... (or the operator's name)."""
    if objective.get("name"):
        return objective["name"]
    metric = objective["metric"]
    what = "%s %s" % (quantile_label(objective["quantile"]), metric) if metric in LATENCY_KEYS else metric.replace("_", " ")
    unit = " s" if metric in LATENCY_KEYS else (" req/s" if metric == "throughput" else "")
    if "at_most" in objective:
        return "%s <= %g%s" % (what, objective["at_most"], unit)
    if "at_least" in objective:
        return "%s >= %g%s" % (what, objective["at_least"], unit)
    return "%s not %s than baseline by more than %g%% beyond the spread" % (
        what, "lower" if metric == "throughput" else "worse", 100 * objective["relative"])


def _row(table, objective):
    metric = objective["metric"]
    if metric in LATENCY_KEYS:
        return ((table["latency"].get(metric) or {}).get("quantiles") or {}).get(quantile_label(objective["quantile"]))
    return table.get(metric)


def check_objective(objective, table):
    """{"objective", "held", "detail"} of one objective against the comparison's ``table``."""
    text = describe(objective)
    row = _row(table, objective)
    if row is None or row["canary"]["max"] is None or row["baseline"]["max"] is None:
        return {"objective": text, "held": None, "detail": "%s was not measured on both sides" % text}
    canary, baseline = row["canary"], row["baseline"]
    if "at_most" in objective:
        held = canary["max"] <= objective["at_most"]
        return {"objective": text, "held": held, "detail": "canary %s: worst repetition %.6g (median %.6g)" % (
            "held" if held else "did not hold", canary["max"], canary["median"])}
    if "at_least" in objective:
        held = canary["min"] >= objective["at_least"]
        return {"objective": text, "held": held, "detail": "canary %s: worst repetition %.6g (median %.6g)" % (
            "held" if held else "did not hold", canary["min"], canary["median"])}
    allowed = objective["relative"] * baseline["median"]
    worse = row["beyond_spread"] if objective["metric"] != "throughput" else -row["beyond_spread"]
    held = worse <= allowed
    return {"objective": text, "held": held, "detail": "%s; allowed %.6g beyond the spread" % (row["finding"], allowed)}
