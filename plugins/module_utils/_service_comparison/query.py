# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A measured window read from the operator's Prometheus server over its HTTP API (controller side).

Public: `query_window`, `instant_query`, `fetch_metrics_text`, `new_pool`, `DEFAULT_TIMEOUT`, `DEFAULT_MAX_BYTES`.

For a window ``[start, end]`` each metric is asked at ``time=end`` with a range of exactly
``end - start`` (in milliseconds): ``increase(<name>_bucket{match}[<w>ms])``, ``_count``, ``_sum``
for a histogram, ``increase(<name>{match}[<w>ms])`` for a counter, and ``resets(...)`` to flag a
restart. Prometheus computes each series' increase (resets adjusted) before the collection sums
the series, by the same `service_window.aggregate` as the scrape path. When the window's ends are
the server's own scrape times, ``increase`` is the exact difference of the samples, so the scrape
path and this one give the same numbers; otherwise Prometheus extrapolates to the window's ends,
as a dashboard does. A metric with a ``quantile`` label is a summary (``{"type": "summary"}``).

Every read is one exchange over `_kube_api.transport` (a urllib3 pool bound by `transport.bound`):
one deadline, ``timeout`` seconds, for the whole exchange (connect, headers, body: a server that
trickles a byte every 2 s ends there too), at most ``max_bytes`` of body, no retry. The proxy is
the one the environment names (``http_proxy``, ``https_proxy``, ``no_proxy``); a URL's
``user:password@`` is sent as basic authentication (unless ``headers`` has an ``Authorization``)
and shown masked in every message. A failed query names the query and Prometheus' error.
"""

from __future__ import annotations

import json
import time
import urllib.parse
import urllib.request

try:
    import urllib3
    HAS_URLLIB3 = True
except ImportError:  # pragma: no cover - the kubernetes client requires urllib3
    HAS_URLLIB3 = False

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._service_comparison.errors import ServiceComparisonError
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._service_comparison import specs
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._service_comparison.quantile import parse_le
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._service_comparison.window import aggregate, le_text, metric_names
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kube_api import transport, urls

# Declared with the service_window action's argument spec (specs.py), which the module file imports without urllib3.
DEFAULT_TIMEOUT = specs.READ_TIMEOUT
DEFAULT_MAX_BYTES = specs.READ_MAX_BYTES
# How much of an error answer's body a message quotes.
QUOTED = 200


def _selector(name, match):
    if not match:
        return name
    return "%s{%s}" % (name, ",".join('%s="%s"' % (key, str(value).replace("\\", "\\\\").replace('"', '\\"'))
                                      for key, value in sorted(match.items())))


def _seconds(value):
    return ("%.3f" % float(value)).rstrip("0").rstrip(".")


def new_pool(url):
    """A urllib3 PoolManager (a ProxyManager where the environment names a proxy for ``url``), bound by `transport.bound`."""
    if not HAS_URLLIB3:
        raise ServiceComparisonError("reading %s needs the Python library urllib3" % urls.mask_url(url))
    parsed = urllib.parse.urlsplit(url)
    proxy = urllib.request.getproxies().get(parsed.scheme)
    if proxy and not urllib.request.proxy_bypass(parsed.hostname or ""):
        return transport.bound(urllib3.ProxyManager(proxy))
    return transport.bound(urllib3.PoolManager())


def _split_auth(url, headers):
    """(url without userinfo, headers with basic authentication from it where none is given)."""
    parsed = urllib.parse.urlsplit(url)
    if parsed.username is None and parsed.password is None:
        return url, dict(headers)
    netloc = parsed.netloc.rpartition("@")[2]
    bare = urllib.parse.urlunsplit((parsed.scheme, netloc, parsed.path, parsed.query, parsed.fragment))
    if any(key.lower() == "authorization" for key in headers):
        return bare, dict(headers)
    auth = "%s:%s" % (urllib.parse.unquote(parsed.username or ""), urllib.parse.unquote(parsed.password or ""))
    return bare, dict(headers, Authorization=urllib3.util.make_headers(basic_auth=auth)["authorization"])


def _get(url, headers, timeout, max_bytes, pool, what):
    """(status, body) of one bounded GET of ``url``; ``what``: the messages, "late" (before the deadline and how far
    the answer got), "down" and "encoded" (before the reason), "large" (whole)."""
    target, headers = _split_auth(url, headers)
    pool = pool if pool is not None else new_pool(target)
    secrets = urls.userinfo(url)
    try:
        return transport.exchange(pool, "GET", target, headers, None, time.monotonic() + float(timeout), max_bytes)
    except transport.TooLarge as exc:
        raise ServiceComparisonError(what["large"]) from exc
    except transport.Expired as exc:
        raise ServiceComparisonError("%s within the %ss deadline (%s)" % (what["late"], _seconds(timeout), exc.stage)) from exc
    except transport.Refused as exc:
        raise ServiceComparisonError("%s: %s (%s)" % (what["encoded"], exc, exc.stage)) from exc
    except transport.TransportError as exc:
        raise ServiceComparisonError("%s: %s" % (what["down"], urls.mask_text(str(exc), secrets))) from exc


def _quote(body):
    text = " ".join(body.decode("utf-8", "replace").split())
    return text[:QUOTED] + ("..." if len(text) > QUOTED else "")


def fetch_metrics_text(url, timeout=DEFAULT_TIMEOUT, max_bytes=DEFAULT_MAX_BYTES, headers=None, pool=None):
    """The body of one GET of a service's ``/metrics`` (text format), bounded in time and size.

    ``pool``: a `new_pool` to reuse (one is made for this read when None).
    """
    masked = urls.mask_url(url)
    what = {"late": "the service's metrics at %s: no whole answer" % masked,
            "down": "the service's metrics at %s did not answer" % masked, "encoded": "the service's metrics at %s" % masked,
            "large": "the service's metrics at %s is larger than %d bytes" % (masked, max_bytes)}
    status, body = _get(url, dict(headers or {}, Accept="text/plain; version=0.0.4"), timeout, max_bytes, pool, what)
    if not 200 <= status <= 299:
        raise ServiceComparisonError("the service's metrics at %s answered HTTP %d: %s" % (masked, status, _quote(body)))
    return body.decode("utf-8", "replace")


def instant_query(url, query, at, timeout=DEFAULT_TIMEOUT, max_bytes=DEFAULT_MAX_BYTES, headers=None, pool=None):
    """The ``result`` list of ``GET <url>/api/v1/query?query=...&time=at`` (a vector).

    ``pool``: a `new_pool` to reuse (`query_window` passes one for all its queries; one is made for this read when None).
    """
    masked = urls.mask_url(url)
    target = "%s/api/v1/query?%s" % (url.rstrip("/"), urllib.parse.urlencode({"query": query, "time": "%.3f" % at}))
    what = {"late": "Prometheus at %s: no whole answer to the query %s" % (masked, query),
            "down": "Prometheus at %s did not answer the query %s" % (masked, query), "encoded": "Prometheus at %s, the query %s" % (masked, query),
            "large": "Prometheus' answer to %s is larger than %d bytes: narrow the query (match labels)" % (query, max_bytes)}
    status, body = _get(target, dict(headers or {}, Accept="application/json"), timeout, max_bytes, pool, what)
    try:
        answer = json.loads(body.decode("utf-8"))
    except ValueError as exc:
        if not 200 <= status <= 299:
            raise ServiceComparisonError("Prometheus at %s answered the query %s with HTTP %d: %s" % (masked, query, status, _quote(body))) from exc
        raise ServiceComparisonError("Prometheus at %s answered %s with something that is not JSON: %s" % (masked, query, exc)) from exc
    if not isinstance(answer, dict):
        raise ServiceComparisonError("Prometheus at %s answered %s with a JSON %s, not an object" % (masked, query, type(answer).__name__))
    if answer.get("status") != "success":
        raise ServiceComparisonError("Prometheus refused the query %s: %s: %s" % (query, answer.get("errorType"), answer.get("error")))
    data = answer.get("data") or {}
    if not isinstance(data, dict) or data.get("resultType") != "vector":
        raise ServiceComparisonError("Prometheus answered %s with a %s, not a vector"
                                     % (query, data.get("resultType") if isinstance(data, dict) else type(data).__name__))
    return data.get("result") or []


def _key(metric, drop=("le", "__name__")):
    return tuple(sorted((key, value) for key, value in metric.items() if key not in drop))


def query_window(url, start, end, mapping=None, match=None, **request):
    """{"source": "prometheus", "start", "end", "duration", "range", "metrics": {key: entry}} for ``[start, end]``.

    ``request``: ``timeout`` (the deadline of each query), ``max_bytes`` (of each answer), ``headers`` (for example
    Authorization), ``pool`` (a `new_pool`; one is made, and used for every query of the window, when absent).
    """
    start, end = float(start), float(end)
    window_ms = int(round((end - start) * 1000))
    if window_ms <= 0:
        raise ServiceComparisonError("the window's end (%s) is not later than its start (%s)" % (end, start))
    span = "[%dms]" % window_ms
    if request.get("pool") is None:
        request["pool"] = new_pool(url)

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
