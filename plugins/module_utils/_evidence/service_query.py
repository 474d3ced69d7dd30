# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A measured window read from the operator's Prometheus server over its HTTP API (controller side).

Public: `query_window`, `instant_query`, `fetch_metrics_text`, `DEFAULT_TIMEOUT`, `DEFAULT_MAX_BYTES`.

For a window ``[start, end]`` each metric is asked at ``time=end`` with a range of exactly
``end - start`` (in milliseconds): ``increase(<name>_bucket{match}[<w>ms])``, ``_count``, ``_sum``
for a histogram, ``increase(<name>{match}[<w>ms])`` for a counter, and ``resets(...)`` to flag a
restart. Prometheus computes each series' increase (resets adjusted) before the collection sums
the series, by the same `service_window.aggregate` as the scrape path. When the window's ends are
the server's own scrape times, ``increase`` is the exact difference of the samples, so the scrape
path and this one give the same numbers; otherwise Prometheus extrapolates to the window's ends,
as a dashboard does. A metric with a ``quantile`` label is a summary (``{"type": "summary"}``).

Every request has a timeout and a bound on the bytes read; a failed query names the query and
Prometheus' error.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.parse
import urllib.request

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence import nodefs
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence.histogram_quantile import parse_le
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence.service_window import aggregate, le_text, metric_names

DEFAULT_TIMEOUT = 10.0
DEFAULT_MAX_BYTES = 4 * 1024 * 1024


def _selector(name, match):
    if not match:
        return name
    return "%s{%s}" % (name, ",".join('%s="%s"' % (key, str(value).replace("\\", "\\\\").replace('"', '\\"'))
                                      for key, value in sorted(match.items())))


def _read(url, request, what, timeout, max_bytes, opener):
    try:
        with opener(request, timeout=timeout) as response:
            body = response.read(max_bytes + 1)
    except urllib.error.HTTPError as exc:
        body = exc.read(max_bytes + 1)
    except (urllib.error.URLError, OSError) as exc:
        raise nodefs.EvidenceError("%s at %s did not answer: %s" % (what, url, getattr(exc, "reason", exc))) from exc
    if len(body) > max_bytes:
        raise nodefs.EvidenceError("%s at %s is larger than %d bytes" % (what, url, max_bytes))
    return body


def fetch_metrics_text(url, timeout=DEFAULT_TIMEOUT, max_bytes=DEFAULT_MAX_BYTES, headers=None, opener=urllib.request.urlopen):
    """The body of one GET of a service's ``/metrics`` (text format), bounded in time and size."""
    request = urllib.request.Request(url, headers=dict(headers or {}, Accept="text/plain; version=0.0.4"))
    return _read(url, request, "the service's metrics", timeout, max_bytes, opener).decode("utf-8", "replace")


def instant_query(url, query, at, timeout=DEFAULT_TIMEOUT, max_bytes=DEFAULT_MAX_BYTES, headers=None, opener=urllib.request.urlopen):
    """The ``result`` list of ``GET <url>/api/v1/query?query=...&time=at`` (a vector)."""
    target = "%s/api/v1/query?%s" % (url.rstrip("/"), urllib.parse.urlencode({"query": query, "time": "%.3f" % at}))
    request = urllib.request.Request(target, headers=dict(headers or {}, Accept="application/json"))
    try:
        with opener(request, timeout=timeout) as response:
            body = response.read(max_bytes + 1)
    except urllib.error.HTTPError as exc:
        body = exc.read(max_bytes + 1)
    except (urllib.error.URLError, OSError) as exc:
        raise nodefs.EvidenceError("Prometheus at %s did not answer the query %s: %s" % (url, query, getattr(exc, "reason", exc))) from exc
    if len(body) > max_bytes:
        raise nodefs.EvidenceError("Prometheus' answer to %s is larger than %d bytes: narrow the query (match labels)" % (query, max_bytes))
    try:
        answer = json.loads(body.decode("utf-8"))
    except ValueError as exc:
        raise nodefs.EvidenceError("Prometheus at %s answered %s with something that is not JSON: %s" % (url, query, exc)) from exc
    if answer.get("status") != "success":
        raise nodefs.EvidenceError("Prometheus refused the query %s: %s: %s" % (query, answer.get("errorType"), answer.get("error")))
    data = answer.get("data") or {}
    if data.get("resultType") != "vector":
        raise nodefs.EvidenceError("Prometheus answered %s with a %s, not a vector" % (query, data.get("resultType")))
    return data.get("result") or []


def _key(metric, drop=("le", "__name__")):
    return tuple(sorted((key, value) for key, value in metric.items() if key not in drop))


def query_window(url, start, end, mapping=None, match=None, **request):
    """{"source": "prometheus", "start", "end", "duration", "range", "metrics": {key: entry}} for ``[start, end]``.

    ``request``: ``timeout``, ``max_bytes``, ``headers`` (for example Authorization), ``opener`` (tests).
    """
    start, end = float(start), float(end)
    window_ms = int(round((end - start) * 1000))
    if window_ms <= 0:
        raise nodefs.EvidenceError("the window's end (%s) is not later than its start (%s)" % (end, start))
    span = "[%dms]" % window_ms

    def ask(expression):
        return instant_query(url, expression, end, **request)

    metrics = {}
    for key, name in sorted(metric_names(mapping).items()):
        buckets = ask("increase(%s%s)" % (_selector(name + "_bucket", match), span))
        if buckets:
            series = {}
            for item in buckets:
                upper = parse_le(item["metric"].get("le"))
                if upper is None:
                    continue
                entry = series.setdefault(_key(item["metric"]), {"buckets": {}, "count": 0.0, "sum": 0.0, "reset": False})
                entry["buckets"][le_text(upper)] = float(item["value"][1])
            for suffix in ("count", "sum"):
                for item in ask("increase(%s%s)" % (_selector("%s_%s" % (name, suffix), match), span)):
                    if _key(item["metric"]) in series:
                        series[_key(item["metric"])][suffix] = float(item["value"][1])
            for item in ask("resets(%s%s)" % (_selector(name + "_bucket", match), span)):
                if _key(item["metric"]) in series and float(item["value"][1]) > 0:
                    series[_key(item["metric"])]["reset"] = True
            metrics[key] = aggregate(name, "histogram", series)
            continue
        plain = ask(_selector(name, match))
        if any("quantile" in item["metric"] for item in plain):
            metrics[key] = aggregate(name, "summary", {})
            continue
        increases = ask("increase(%s%s)" % (_selector(name, match), span))
        if not increases and not plain:
            metrics[key] = aggregate(name, None, {})
            continue
        resets = {_key(item["metric"]) for item in ask("resets(%s%s)" % (_selector(name, match), span)) if float(item["value"][1]) > 0}
        metrics[key] = aggregate(name, "counter", {_key(item["metric"]): {"value": float(item["value"][1]), "reset": _key(item["metric"]) in resets}
                                                   for item in increases})
    return {"source": "prometheus", "start": start, "end": end, "duration": end - start, "range": span.strip("[]"), "metrics": metrics}
