# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Whether baseline and canary runs measured the same work, before any quantile is compared (pure).

Public: `comparability`, `run_name`, `request_rate`, `LATENCY_KEYS`, `DEFAULT_SETTINGS`.

``runs`` are the measured repetitions (warmups already removed), each ``{"side", "window",
"identity", "load", "number"}``. Refusals (each names the metric or setting and what differs):

- fewer than ``min_repetitions`` per side, or sides not interleaved (A B A B) by start time;
- an image without a digest, or digests (or the model, the runtime) that differ from baseline repetition 1;
- an offered-load setting that differs (except the ``vary`` keys, the seed by default);
- a latency metric that is a summary, missing from some runs, with bucket boundaries that differ from
  baseline repetition 1's, or with fewer observations than ``min_observations``;
- no completed-request counter, or a run whose measured request rate is more than
  ``max_rate_difference`` away from the baseline median.

Warnings: prefix-cache hit ratios of the sides more than ``max_hit_ratio_difference`` apart, no prefix
cache counters, a counter reset inside a two-scrape window.
"""

from __future__ import annotations

import statistics

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._service_comparison.quantile import parse_le

LATENCY_KEYS = ("ttft", "itl", "tpot", "e2e")
DEFAULT_SETTINGS = {"min_repetitions": 3, "min_observations": 100, "max_rate_difference": 0.1, "max_hit_ratio_difference": 0.05,
                    "vary": ["seed"], "error_reasons": ["error", "abort"], "quantiles": [0.5, 0.9, 0.95, 0.99]}


def run_name(run):
    return "%s repetition %d" % (run["side"], run["number"])


def request_rate(run):
    """Completed requests (every finished reason) per second of the window, or None without the counter."""
    requests = run["window"]["metrics"].get("requests") or {}
    if requests.get("type") != "counter":
        return None
    return requests["total"] / run["window"]["duration"]


def _digest(image):
    return image.split("@", 1)[1] if isinstance(image, str) and "@" in image else None


def _repetition_refusals(runs, settings):
    found = []
    counts = {side: sum(1 for run in runs if run["side"] == side) for side in ("baseline", "canary")}
    if min(counts.values()) < settings["min_repetitions"]:
        found.append("%d repetitions per side are needed to show run-to-run variation: baseline has %d, canary has %d (warmups excluded)"
                     % (settings["min_repetitions"], counts["baseline"], counts["canary"]))
    order = [run["side"] for run in sorted(runs, key=lambda run: run["window"]["start"])]
    if any(first == second for first, second in zip(order, order[1:])):
        found.append("the repetitions are not interleaved (A B A B): by start time they ran %s, so drift between runs does not cancel"
                     % ", ".join(order))
    return found


def _reference(runs):
    return next((run for run in runs if run["side"] == "baseline"), runs[0])


def _identity_refusals(runs):
    found = []
    reference = _reference(runs)
    ref_identity = reference.get("identity") or {}
    for run in runs:
        identity = run.get("identity") or {}
        images = identity.get("images") or {}
        if not images:
            found.append("%s has no application identity (images by digest): the same application cannot be shown" % run_name(run))
            continue
        for container, image in sorted(images.items()):
            if _digest(image) is None:
                found.append("the image of container %s in %s has no digest (%s): the application identity cannot be established"
                             % (container, run_name(run), image))
            elif run is not reference and _digest((ref_identity.get("images") or {}).get(container)) not in (None, _digest(image)):
                found.append("image digests differ for container %s: %s runs %s, %s runs %s" % (
                    container, run_name(reference), _digest(ref_identity["images"][container]), run_name(run), _digest(image)))
        if run is not reference:
            for container in sorted(set(ref_identity.get("images") or {}) - set(images)):
                found.append("container %s of %s is not in %s" % (container, run_name(reference), run_name(run)))
            for key in sorted(set(identity) | set(ref_identity)):
                if key != "images" and identity.get(key) != ref_identity.get(key):
                    found.append("%s differs: %s has %s, %s has %s" % (key, run_name(reference), ref_identity.get(key), run_name(run), identity.get(key)))
    return found


def _load_refusals(runs, settings):
    found = []
    reference = _reference(runs)
    ref_load = reference.get("load") or {}
    if not ref_load:
        found.append("%s records no offered load (request rate, concurrency cap, arrival variability): the same load cannot be shown"
                     % run_name(reference))
    for run in runs:
        if run is reference:
            continue
        load = run.get("load") or {}
        for key in sorted(set(load) | set(ref_load)):
            if key not in settings["vary"] and load.get(key) != ref_load.get(key):
                found.append("offered load differs: %s is %s in %s and %s in %s" % (
                    key, ref_load.get(key), run_name(reference), load.get(key), run_name(run)))
    return found


def _bounds_text(bounds):
    return ", ".join(sorted(bounds, key=parse_le))


def _metric_refusals(runs, settings):
    found = []
    for key in LATENCY_KEYS:
        entries = [(run, run["window"]["metrics"].get(key) or {"type": None}) for run in runs]
        present = [(run, entry) for run, entry in entries if entry.get("type") is not None]
        if not present:
            continue
        name = present[0][1].get("name") or key
        summaries = [run_name(run) for run, entry in present if entry["type"] == "summary"]
        if summaries:
            found.append("%s is a summary in %s: summary quantiles cannot be aggregated or compared; expose a histogram"
                         % (name, ", ".join(summaries)))
            continue
        missing = [run_name(run) for run, entry in entries if entry.get("type") is None]
        if missing:
            found.append("%s is missing from %s" % (name, ", ".join(missing)))
            continue
        reference_run, reference = present[0]
        ref_bounds = set(bucket[0] for bucket in reference["buckets"])
        for run, entry in present[1:]:
            bounds = set(bucket[0] for bucket in entry["buckets"])
            if bounds != ref_bounds:
                parts = ["only in %s: %s" % (run_name(reference_run), _bounds_text(ref_bounds - bounds)) if ref_bounds - bounds else "",
                         "only in %s: %s" % (run_name(run), _bounds_text(bounds - ref_bounds)) if bounds - ref_bounds else ""]
                found.append("%s: bucket boundaries differ between %s and %s (%s): histograms with different buckets cannot be compared"
                             % (name, run_name(reference_run), run_name(run), "; ".join(part for part in parts if part)))
        for run, entry in present:
            if entry["count"] < settings["min_observations"]:
                found.append("%s: %s has %g observations, fewer than the bound %d" % (name, run_name(run), entry["count"], settings["min_observations"]))
    return found


def _rate_refusals(runs, settings):
    rates = [(run, request_rate(run)) for run in runs]
    without = [run_name(run) for run, rate in rates if rate is None]
    if without:
        return ["no completed-request counter (%s) in %s: the measured request rate cannot be compared" % (
            (runs[0]["window"]["metrics"].get("requests") or {}).get("name") or "requests", ", ".join(without))]
    baseline = [rate for run, rate in rates if run["side"] == "baseline"]
    if not baseline:
        return []
    median = statistics.median(baseline)
    found = []
    for run, rate in rates:
        apart = abs(rate - median) / median if median else (0.0 if rate == 0 else float("inf"))
        if apart > settings["max_rate_difference"]:
            found.append("measured request rate differs: %s served %.3f req/s, the baseline median is %.3f req/s (%.1f%% apart, bound %.1f%%): "
                         "the offered load was not the same" % (run_name(run), rate, median, 100 * apart, 100 * settings["max_rate_difference"]))
    return found


def hit_ratio(runs, side):
    """rate(hits) / rate(queries) of one side's repetitions together, or None without both counters."""
    hits = queries = 0.0
    for run in runs:
        if run["side"] != side:
            continue
        metrics = run["window"]["metrics"]
        if (metrics.get("prefix_cache_hits") or {}).get("type") != "counter" or (metrics.get("prefix_cache_queries") or {}).get("type") != "counter":
            return None
        hits += metrics["prefix_cache_hits"]["total"]
        queries += metrics["prefix_cache_queries"]["total"]
    return hits / queries if queries else None


def _warnings(runs, settings):
    found = []
    ratios = {side: hit_ratio(runs, side) for side in ("baseline", "canary")}
    if None in ratios.values():
        found.append("no prefix cache hit and query counters on both sides: prompt-prefix reuse is not shown to be controlled")
    elif abs(ratios["baseline"] - ratios["canary"]) > settings["max_hit_ratio_difference"]:
        found.append("prefix cache hit ratio differs: baseline %.3f, canary %.3f (more than %g apart): reused prompts inflate throughput; "
                     "vary the seed, reset the prefix cache or restart the server between runs" % (
                         ratios["baseline"], ratios["canary"], settings["max_hit_ratio_difference"]))
    for run in runs:
        if run["window"].get("source") == "scrape":
            reset = sorted(entry.get("name") or key for key, entry in run["window"]["metrics"].items() if entry.get("reset"))
            if reset:
                found.append("%s: a counter reset inside %s (the server restarted): a two-scrape window counts only what followed the restart"
                             % (", ".join(reset), run_name(run)))
    return found


def comparability(runs, settings):
    """{"refusals": [message], "warnings": [message]} of the measured runs (in run order, numbered per side)."""
    refusals = _repetition_refusals(runs, settings)
    if not runs:
        return {"refusals": refusals, "warnings": []}
    refusals += _identity_refusals(runs) + _load_refusals(runs, settings) + _metric_refusals(runs, settings) + _rate_refusals(runs, settings)
    return {"refusals": refusals, "warnings": _warnings(runs, settings)}
