# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A measured window of a serving process from two scrapes of its own ``/metrics`` (pure).

Public: `DEFAULT_METRICS`, `metric_names`, `parse_scrape`, `scrape_window`, `pods_window`, `aggregate`, `le_text`, `trim`, `range_seconds`,
`rate_of`, `go_sum`, `HAS_PROMETHEUS`.

A window is the increase of each metric between the start and the end of the measured part of a
run, per series first and summed over series only then ("rate, then aggregate"), so a restart of
the server inside the window is not mistaken for negative work:

- each series is decided alone, as Prometheus' rate() decides: every ``_bucket`` series (one per
  ``le`` as written, so ``0.1`` and ``1e-1`` are two series, added), ``_count`` and ``_sum``; one that
  went down counts from zero (its increase is its end value) and the window is flagged ``reset``;
- a series whose ``*_created`` sample changed between the scrapes restarted even where no count went
  down: every one of its series counts from zero and the entry is flagged ``created_restart`` (a
  restart Prometheus' rate() does not see: its quantile then differs from Prometheus');
- a counter series likewise; a series only in the end scrape counts from zero;
- ``rates`` are each bucket series' increase times ``1 / w`` (``w`` the window in milliseconds, as
  Prometheus' range), summed by ``le`` in series order, the floats ``histogram_quantile`` works on;
- a summary is kept as ``{"type": "summary"}``: its quantiles cannot be aggregated (the comparison
  refuses it); a metric in neither scrape is ``{"type": null}``.

The text is parsed with prometheus-client's parser. `DEFAULT_METRICS` are vLLM's current names; a
mapping (key to name) lets another server's names be used. The query path
(`service_query.query_window`) returns the same shape, built by the same `aggregate`.
"""

from __future__ import annotations

import math

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


def parse_scrape(text, where="the scrape"):
    """{"types": {family: type}, "samples": {sample name: [(labels, value)]}, "where"} of one scrape's text.

    ``where`` names the scrape in messages. A series (name and label set) given twice is refused.
    """
    if not HAS_PROMETHEUS:
        raise ServiceComparisonError("parsing a service's metrics needs the Python library prometheus-client: %s" % PROMETHEUS_IMPORT_ERROR)
    types, samples, seen = {}, {}, {}
    try:
        for family in text_string_to_metric_families(text):
            types[family.name] = family.type
            for sample in family.samples:
                labels, value = dict(sample.labels), float(sample.value)
                series = (sample.name, _series_key(labels, drop=()))
                if series in seen:
                    # Prometheus' scrape loop (scrape/scrape.go, append: seriesAlreadyScraped) refuses a series given twice in
                    # one scrape as storage.ErrDuplicateSampleForTimestamp; the collection keeps neither value.
                    raise ServiceComparisonError("%s gives the series %s%s twice (%r, then %r): a series is one sample per scrape "
                                                 "(Prometheus drops the second as a duplicate sample for its timestamp); not a window"
                                                 % (where, sample.name, _labels_text(series[1]), seen[series], value))
                seen[series] = value
                samples.setdefault(sample.name, []).append((labels, value))
    except ValueError as exc:
        raise ServiceComparisonError("the service's metrics are not in the Prometheus text format: %s" % exc) from exc
    return {"types": types, "samples": samples, "where": where}


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
    return all(labels.get(key) in ([str(one) for one in value] if isinstance(value, list) else [str(value)]) for key, value in (match or {}).items())


def _kind(parsed, name):
    types, samples = parsed["types"], parsed["samples"]
    if types.get(name) == "summary" or any("quantile" in sample[0] for sample in samples.get(name, [])):
        return "summary"
    if name + "_bucket" in samples:
        return "histogram"
    if name in samples:
        return "counter"
    return None


def _created_name(name):
    return (name[:-len("_total")] if name.endswith("_total") else name) + "_created"


def _created(parsed, name, match):
    return {_series_key(labels): value for labels, value in parsed["samples"].get(_created_name(name), []) if _matches(labels, match)}


def _counted(parsed, sample, labels, value):
    """``value`` of a counter's sample, refused below zero: a counter starts at 0 and only goes up (a window on it cannot be true)."""
    if value < 0:
        raise ServiceComparisonError("%s gives the counter %s%s as %r: a counter is never below zero; not a window"
                                     % (parsed.get("where", "the scrape"), sample, _labels_text(_series_key(labels, drop=())), value))
    return value


def _histogram_series(parsed, name, match):
    """{series key: {"buckets": {le as written: count}, "count", "sum", "created"}}: each spelling of a bound is its own series."""
    series = {}
    for labels, value in parsed["samples"].get(name + "_bucket", []):
        upper = parse_le(labels.get("le"))
        if upper is None or math.isnan(upper) or not _matches(labels, match):
            continue  # Prometheus skips a bucket whose le strconv.ParseFloat refuses (a NaN bound is not compared)
        entry = series.setdefault(_series_key(labels), {"buckets": {}, "count": 0.0, "sum": 0.0})
        entry["buckets"][labels["le"]] = _counted(parsed, name + "_bucket", labels, value)
    for suffix in ("count", "sum"):
        for labels, value in parsed["samples"].get("%s_%s" % (name, suffix), []):
            if _matches(labels, match) and _series_key(labels) in series:
                # The sum may go down (negative observations); the count is a counter.
                series[_series_key(labels)][suffix] = _counted(parsed, "%s_count" % name, labels, value) if suffix == "count" else value
    for key, value in _created(parsed, name, match).items():
        if key in series:
            series[key]["created"] = value
    return series


def _counter_series(parsed, name, match):
    created = _created(parsed, name, match)
    return {_series_key(labels): {"value": _counted(parsed, name, labels, value), "created": created.get(_series_key(labels))}
            for labels, value in parsed["samples"].get(name, []) if _matches(labels, match)}


def _increase(start, end, restarted):
    """Prometheus' increase of one series from two samples: end - start, or end when it went down (or restarted)."""
    if start is None or restarted or end < start:
        return end, start is not None
    return end - start, False


def _restarted(start, end):
    """The series' ``_created`` moved: the process restarted even where no count went down (Prometheus cannot see it)."""
    return start is not None and start.get("created") is not None and end.get("created") is not None and start["created"] != end["created"]


def _histogram_deltas(first, second):
    deltas = {}
    for key, end in second.items():
        start = first.get(key)
        hidden = _restarted(start, end)
        entry = {"buckets": {}, "reset": False, "created_restart": hidden}
        for le, value in end["buckets"].items():
            entry["buckets"][le], reset = _increase(None if start is None else start["buckets"].get(le), value, hidden)
            entry["reset"] |= reset
        for suffix in ("count", "sum"):
            entry[suffix], reset = _increase(None if start is None else start[suffix], end[suffix], hidden)
            entry["reset"] |= reset
        deltas[key] = entry
    return deltas


def _counter_deltas(first, second):
    deltas = {}
    for key, end in second.items():
        start = first.get(key)
        hidden = _restarted(start, end)
        value, reset = _increase(None if start is None else start["value"], end["value"], hidden)
        deltas[key] = {"value": value, "reset": reset, "created_restart": hidden}
    return deltas


def range_seconds(window_ms):
    """Go's ``time.Duration.Seconds()`` of a range of ``window_ms`` milliseconds: whole seconds plus nanoseconds / 1e9."""
    nanoseconds = int(window_ms) * 1000000
    return float(nanoseconds // 1000000000) + float(nanoseconds % 1000000000) / 1e9


def rate_of(increase, window_ms):
    """Prometheus' rate() of a series whose range starts and ends on samples: the increase times ``1 / w`` (factor first)."""
    return increase * (1.0 / range_seconds(window_ms))


def go_sum(values, kahan=False):
    """Prometheus' ``sum`` of floats in series order: a plain running sum (to 2.53) or Kahan-Neumaier (``kahan``, 2.54 on)."""
    total, compensation = None, 0.0
    for value in values:
        if total is None:
            total = value
        elif not kahan:
            total += value
        else:
            step = total + value
            if math.isinf(step):
                compensation = 0.0
            elif abs(total) >= abs(value):
                compensation += (total - step) + value
            else:
                compensation += (value - step) + total
            total = step
    if total is None:
        return 0.0
    return total + compensation if kahan else total


def _by_bound(series, field, kahan):
    """[[le_text, value]] by bound: summed over series per ``le`` spelling (sum by (le)), then spellings of one bound added."""
    spellings = {}
    for unused_key, entry in sorted(series.items()):
        for le, value in entry[field].items():
            spellings.setdefault(le, []).append(value)
    bounds = {}
    for le, values in sorted(spellings.items(), key=lambda item: parse_le(item[0])):
        bound = le_text(parse_le(le))
        total = go_sum(values, kahan)
        bounds[bound] = bounds[bound] + total if bound in bounds else total
    return [[le, value] for le, value in bounds.items()]


def _never_below_zero(name, kind, series):
    """Refuses an increase below zero (a Prometheus answer or a caller's series): no count of work goes down over a window."""
    for key, entry in sorted(series.items()):
        parts = [("", entry.get("value"))] if kind == "counter" else \
            [('_bucket{le="%s"}' % le, value) for le, value in sorted(entry.get("buckets", {}).items())] + [("_count", entry.get("count"))]
        for suffix, value in parts:
            if isinstance(value, (int, float)) and value < 0:
                raise ServiceComparisonError("%s%s %s: its increase over the window is %r, below zero (an increase is never negative); "
                                             "not a window" % (name, suffix, _labels_text(key), value))


def aggregate(name, kind, series, window_ms=None, kahan=False):
    """The window entry of one metric from per-series increases (resets already handled), summed over series.

    Histogram: {"name", "type", "buckets": [[le, increase]] by bound, "rates": [[le, rate]] (when ``window_ms`` or the
    series' own "rates" give them), "count", "sum", "series", "reset", "created_restart"}; counter: {"name", "type",
    "total", "by": [{"labels", "increase"}], "series", "reset", "created_restart"}. A bound written twice (``0.1``,
    ``1e-1``) is two series added, as in Prometheus. Series of one histogram with different bucket boundaries are
    refused: their sum is not a histogram.
    """
    if kind not in ("histogram", "counter"):
        return {"name": name, "type": kind}
    _never_below_zero(name, kind, series)
    reset = any(entry.get("reset") for entry in series.values())
    hidden = any(entry.get("created_restart") for entry in series.values())
    if kind == "counter":
        by = [{"labels": dict(key), "increase": entry["value"]} for key, entry in sorted(series.items())]
        return {"name": name, "type": "counter", "total": sum(entry["increase"] for entry in by), "by": by,
                "series": len(by), "reset": reset, "created_restart": hidden}
    bounds, first_key = None, None
    for key, entry in sorted(series.items()):
        these = sorted({le_text(parse_le(le)) for le in entry["buckets"]}, key=parse_le)
        if bounds is None:
            bounds, first_key = these, key
        elif these != bounds:
            raise ServiceComparisonError("%s: series %s and %s have different bucket boundaries (%s; %s): they cannot be summed" % (
                name, _labels_text(first_key), _labels_text(key), ", ".join(bounds), ", ".join(these)))
        if window_ms is not None:
            entry["rates"] = {le: rate_of(value, window_ms) for le, value in entry["buckets"].items()}
    out = {"name": name, "type": "histogram", "buckets": _by_bound(series, "buckets", False),
           "count": sum(entry["count"] for unused, entry in sorted(series.items())),
           "sum": sum(entry["sum"] for unused, entry in sorted(series.items())), "series": len(series), "reset": reset,
           "created_restart": hidden}
    if series and all("rates" in entry for entry in series.values()):
        out["rates"] = _by_bound(series, "rates", kahan)
    return out


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
    if not math.isfinite((end - start) * 1000):
        raise ServiceComparisonError("the window from %s to %s is not a finite number of milliseconds" % (start, end))
    window_ms = int(round((end - start) * 1000))
    before, after = parse_scrape(first["text"], "the start scrape"), parse_scrape(second["text"], "the end scrape")
    return {"source": "scrape", "start": start, "end": end, "duration": end - start,
            "metrics": _metrics_between([(None, before, after)], mapping, match, window_ms)}


def _tagged(series, tag):
    """``series`` keyed by their labels with the pod first (``__pod__``, never a scraped label): one pod's series are not another's."""
    return series if tag is None else {(("__pod__", tag),) + key: entry for key, entry in series.items()}


def _metrics_between(scrapes, mapping, match, window_ms):
    """{key: window entry} from [(tag, start parse, end parse)]: each series' increase within its own scrape pair, then summed."""
    metrics = {}
    for key, name in sorted(metric_names(mapping).items()):
        kinds = sorted({kind for unused_tag, before, after in scrapes for kind in [_kind(after, name) or _kind(before, name)] if kind})
        if len(kinds) > 1:
            raise ServiceComparisonError("%s is a %s in one pod and a %s in another: the pods do not serve the same metric; not a window"
                                         % (name, kinds[0], kinds[1]))
        kind = kinds[0] if kinds else None
        series = {}
        for tag, before, after in scrapes:
            if kind == "histogram":
                series.update(_tagged(_histogram_deltas(_histogram_series(before, name, match), _histogram_series(after, name, match)), tag))
            elif kind == "counter":
                series.update(_tagged(_counter_deltas(_counter_series(before, name, match), _counter_series(after, name, match)), tag))
        metrics[key] = aggregate(name, kind, series, window_ms=window_ms)
    return metrics


def pods_window(first, second, mapping=None, match=None):
    """The window of the workload's own pods, each read through the API's pod proxy at the start and the end (`pod_metrics`).

    ``first`` and ``second``: {"timestamp", "pods": [{"pod", "uid", "text"}]}. The same pods (by uid) must be in both: a pod
    that came or went is another process, whose counters say nothing about this window. Each pod's series are its own
    (a reset is decided per pod and series), then summed over the pods. ``source`` is ``scrape`` (two scrapes), ``pods``
    names the pods read.
    """
    service_inputs.check_match(match)
    start, end = float(first["timestamp"]), float(second["timestamp"])
    if end <= start:
        raise ServiceComparisonError("the end reading of the pods (%s) is not later than the start reading (%s)" % (end, start))
    at_start = {entry["uid"]: entry for entry in first["pods"]}
    at_end = {entry["uid"]: entry for entry in second["pods"]}
    if sorted(at_start) != sorted(at_end):
        gone = ["%s (uid %s)" % (at_start[uid]["pod"], uid) for uid in sorted(set(at_start) - set(at_end))]
        came = ["%s (uid %s)" % (at_end[uid]["pod"], uid) for uid in sorted(set(at_end) - set(at_start))]
        raise ServiceComparisonError("the pods read at the start and at the end differ (only at the start: %s; only at the end: %s): "
                                     "a window is the same pods' counters at both ends" % (", ".join(gone) or "none", ", ".join(came) or "none"))
    scrapes = [(at_start[uid]["pod"], parse_scrape(at_start[uid]["text"], "the start scrape of pod %s" % at_start[uid]["pod"]),
                parse_scrape(at_end[uid]["text"], "the end scrape of pod %s" % at_end[uid]["pod"])) for uid in sorted(at_start)]
    window_ms = int(round((end - start) * 1000))
    return {"source": "scrape", "start": start, "end": end, "duration": end - start,
            "pods": [{"pod": at_start[uid]["pod"], "uid": uid} for uid in sorted(at_start)],
            "metrics": _metrics_between(scrapes, mapping, match, window_ms)}
