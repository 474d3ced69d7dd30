# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A measured window of a serving process from two scrapes of its own ``/metrics`` (pure).

Public: `DEFAULT_METRICS`, `metric_names`, `parse_scrape`, `scrape_window`, `aggregate`, `le_text`, `trim`, `HAS_PROMETHEUS`.

A window is the increase of each metric between the start and the end of the measured part of a
run, per series first and summed over series only then ("rate, then aggregate"), so a restart of
the server inside the window is not mistaken for negative work:

- a histogram series is reset when its ``_count`` or any of its ``_bucket`` counts went down; its
  increase is then its end value (counted from zero, as Prometheus' rate() does), and the window is
  flagged ``reset``;
- a counter series that went down likewise; a series only in the end scrape counts from zero;
- a summary is kept as ``{"type": "summary"}``: its quantiles cannot be aggregated (the comparison
  refuses it); a metric in neither scrape is ``{"type": null}``.

The text is parsed with prometheus-client's parser. `DEFAULT_METRICS` are vLLM's current names; a
mapping (key to name) lets another server's names be used. The query path
(`service_query.query_window`) returns the same shape, built by the same `aggregate`.
"""

from __future__ import annotations

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._service_comparison.errors import ServiceComparisonError
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._service_comparison import inputs as service_inputs
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._service_comparison.quantile import parse_le

try:
    from prometheus_client.parser import text_string_to_metric_families
    HAS_PROMETHEUS = True
    PROMETHEUS_IMPORT_ERROR = None
except ImportError as _exc:  # pragma: no cover - the controller requirement is missing
    HAS_PROMETHEUS = False
    PROMETHEUS_IMPORT_ERROR = str(_exc)

DEFAULT_METRICS = {
    "ttft": "vllm:time_to_first_token_seconds",
    "itl": "vllm:inter_token_latency_seconds",
    "tpot": "vllm:request_time_per_output_token_seconds",
    "e2e": "vllm:e2e_request_latency_seconds",
    "requests": "vllm:request_success_total",
    "prefix_cache_queries": "vllm:prefix_cache_queries_total",
    "prefix_cache_hits": "vllm:prefix_cache_hits_total",
}
COUNTER_KEYS = ("requests", "prefix_cache_queries", "prefix_cache_hits")


def metric_names(mapping=None):
    """`DEFAULT_METRICS` with the operator's ``mapping`` (key to metric name) applied; unknown keys add metrics."""
    names = dict(DEFAULT_METRICS)
    for key, name in (service_inputs.check_mapping(mapping) or {}).items():
        if not isinstance(name, str) or not name:
            raise ServiceComparisonError("metric mapping %s must name a metric, got %r" % (key, name))
        names[key] = name
    return names


def le_text(upper):
    """One spelling per bound, so ``1``, ``1.0`` and ``1e0`` are the same bucket: ``+Inf`` or Python's repr of the float."""
    return "+Inf" if upper == float("inf") else repr(float(upper))


def _series_key(labels, drop=("le", "quantile")):
    return tuple(sorted((key, value) for key, value in labels.items() if key not in drop))


def parse_scrape(text):
    """{"types": {family: type}, "samples": {sample name: [(labels, value)]}} of one scrape's text."""
    if not HAS_PROMETHEUS:
        raise ServiceComparisonError("parsing a service's metrics needs the Python library prometheus-client: %s" % PROMETHEUS_IMPORT_ERROR)
    types, samples = {}, {}
    try:
        for family in text_string_to_metric_families(text):
            types[family.name] = family.type
            for sample in family.samples:
                samples.setdefault(sample.name, []).append((dict(sample.labels), float(sample.value)))
    except ValueError as exc:
        raise ServiceComparisonError("the service's metrics are not in the Prometheus text format: %s" % exc) from exc
    return {"types": types, "samples": samples}


def trim(text, mapping=None):
    """Only the lines of the wanted metrics (and their # TYPE / # HELP lines): what a task result keeps of a scrape."""
    names = tuple(metric_names(mapping).values())
    kept = []
    for line in text.splitlines():
        words = line.split()
        name = words[2] if line.startswith("#") and len(words) > 2 else line.split("{", 1)[0].split(" ", 1)[0]
        if name.startswith(names):
            kept.append(line)
    return "\n".join(kept) + ("\n" if kept else "")


def _matches(labels, match):
    return all(labels.get(key) == str(value) for key, value in (match or {}).items())


def _kind(parsed, name):
    types, samples = parsed["types"], parsed["samples"]
    if types.get(name) == "summary" or any("quantile" in sample[0] for sample in samples.get(name, [])):
        return "summary"
    if name + "_bucket" in samples:
        return "histogram"
    if name in samples:
        return "counter"
    return None


def _histogram_series(parsed, name, match):
    series = {}
    for labels, value in parsed["samples"].get(name + "_bucket", []):
        upper = parse_le(labels.get("le"))
        if upper is None or not _matches(labels, match):
            continue  # Prometheus ignores a bucket whose le is not a number
        entry = series.setdefault(_series_key(labels), {"buckets": {}, "count": 0.0, "sum": 0.0})
        entry["buckets"][le_text(upper)] = value
    for suffix in ("count", "sum"):
        for labels, value in parsed["samples"].get("%s_%s" % (name, suffix), []):
            if _matches(labels, match) and _series_key(labels) in series:
                series[_series_key(labels)][suffix] = value
    return series


def _counter_series(parsed, name, match):
    return {_series_key(labels): {"value": value} for labels, value in parsed["samples"].get(name, []) if _matches(labels, match)}


def _histogram_deltas(first, second):
    deltas = {}
    for key, end in second.items():
        start = first.get(key)
        reset = start is not None and (end["count"] < start["count"] or any(
            value < start["buckets"].get(le, 0.0) for le, value in end["buckets"].items()))
        if start is None or reset:
            deltas[key] = dict(end, buckets=dict(end["buckets"]), reset=reset)
        else:
            deltas[key] = {"buckets": {le: value - start["buckets"].get(le, 0.0) for le, value in end["buckets"].items()},
                           "count": end["count"] - start["count"], "sum": end["sum"] - start["sum"], "reset": False}
    return deltas


def _counter_deltas(first, second):
    deltas = {}
    for key, end in second.items():
        start = first.get(key)
        reset = start is not None and end["value"] < start["value"]
        deltas[key] = {"value": end["value"] if start is None or reset else end["value"] - start["value"], "reset": reset}
    return deltas


def aggregate(name, kind, series):
    """The window entry of one metric from per-series increases (resets already handled), summed over series.

    Histogram: {"name", "type", "buckets": [[le, increase]] by bound, "count", "sum", "series", "reset"};
    counter: {"name", "type", "total", "by": [{"labels", "increase"}], "series", "reset"}. Series of one
    histogram with different bucket boundaries are refused: their sum is not a histogram.
    """
    if kind not in ("histogram", "counter"):
        return {"name": name, "type": kind}
    reset = any(entry.get("reset") for entry in series.values())
    if kind == "counter":
        by = [{"labels": dict(key), "increase": entry["value"]} for key, entry in sorted(series.items())]
        return {"name": name, "type": "counter", "total": sum(entry["increase"] for entry in by), "by": by,
                "series": len(by), "reset": reset}
    bounds, totals, count, total_sum = None, {}, 0.0, 0.0
    for key, entry in sorted(series.items()):
        these = sorted(entry["buckets"], key=parse_le)
        if bounds is None:
            bounds, first_key = these, key
        elif these != bounds:
            raise ServiceComparisonError("%s: series %s and %s have different bucket boundaries (%s; %s): they cannot be summed" % (
                name, _labels_text(first_key), _labels_text(key), ", ".join(bounds), ", ".join(these)))
        for le, value in entry["buckets"].items():
            totals[le] = totals.get(le, 0.0) + value
        count += entry["count"]
        total_sum += entry["sum"]
    return {"name": name, "type": "histogram", "buckets": [[le, totals[le]] for le in (bounds or [])], "count": count,
            "sum": total_sum, "series": len(series), "reset": reset}


def _labels_text(key):
    return "{%s}" % ",".join('%s="%s"' % item for item in key)


def scrape_window(first, second, mapping=None, match=None):
    """{"source": "scrape", "start", "end", "duration", "metrics": {key: entry}} between two scrapes.

    ``first`` and ``second``: {"text", "timestamp" (seconds)}, taken at the start and the end of the
    measured part; ``match``: labels every series must carry (for example ``{"model_name": ...}``).
    """
    service_inputs.check_scrape(first, "first")
    service_inputs.check_scrape(second, "second")
    service_inputs.check_match(match)
    start, end = float(first["timestamp"]), float(second["timestamp"])
    if end <= start:
        raise ServiceComparisonError("the end scrape (%s) is not later than the start scrape (%s)" % (end, start))
    before, after = parse_scrape(first["text"]), parse_scrape(second["text"])
    metrics = {}
    for key, name in sorted(metric_names(mapping).items()):
        kind = _kind(after, name) or _kind(before, name)
        if kind == "histogram":
            series = _histogram_deltas(_histogram_series(before, name, match), _histogram_series(after, name, match))
        elif kind == "counter":
            series = _counter_deltas(_counter_series(before, name, match), _counter_series(after, name, match))
        else:
            series = {}
        metrics[key] = aggregate(name, kind, series)
    return {"source": "scrape", "start": start, "end": end, "duration": end - start, "metrics": metrics}
