# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A measured window read from the operator's Prometheus server over its HTTP API (controller side).

Public: `query_window`, `instant_query`, `fetch_metrics_text`, `new_pool`, `promql_string`, `DEFAULT_TIMEOUT`, `DEFAULT_MAX_BYTES`.

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

import math
import re
import time
import urllib.parse
import urllib.request

try:
    import urllib3
    HAS_URLLIB3 = True
except ImportError:  # pragma: no cover - the kubernetes client requires urllib3
    HAS_URLLIB3 = False

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import fileio, shape_check as S
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._service_comparison.errors import ServiceComparisonError
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._service_comparison import inputs as service_inputs, prometheus_rules, specs
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._service_comparison.quantile import parse_le
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._service_comparison.window import aggregate, metric_names, rate_of
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kube_api import transport, urls

# Declared with the service_window action's argument spec (specs.py), which the module file imports without urllib3.
DEFAULT_TIMEOUT = specs.READ_TIMEOUT
DEFAULT_MAX_BYTES = specs.READ_MAX_BYTES
# How much of an error answer's body a message quotes.
QUOTED = 200


# PromQL's lexer (promql/parser/lex.go lexString, lexEscape) ends a double-quoted string at a raw newline and reads
# Go's escapes: backslash, quote and every control character are written as escapes, the rest as it is (UTF-8).
_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r", "\t": "\\t"}


def promql_string(value):
    """``value`` as a PromQL double-quoted string literal that reads back as exactly ``value``."""
    return '"%s"' % "".join(_ESCAPES.get(char) or ("\\x%02x" % ord(char) if ord(char) < 0x20 or ord(char) == 0x7f else char)
                            for char in str(value))


def _matcher(key, value):
    """``key="value"``; a list of values is a regex matcher of each value escaped (RE2 reads Python's escapes of punctuation), fully
    anchored by Prometheus, so ``a.b`` matches only ``a.b``."""
    if isinstance(value, list):
        return "%s=~%s" % (key, promql_string("|".join(re.escape(str(one)) for one in value)))
    return "%s=%s" % (key, promql_string(value))


def _selector(name, match):
    if not match:
        return name
    return "%s{%s}" % (name, ",".join(_matcher(key, value) for key, value in sorted(match.items())))


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
        answer = fileio.parse_json(body)  # a ValueError, never a RecursionError, for JSON nested too deep
    except ValueError as exc:
        if not 200 <= status <= 299:
            raise ServiceComparisonError("Prometheus at %s answered the query %s with HTTP %d: %s" % (masked, query, status, _quote(body))) from exc
        raise ServiceComparisonError("Prometheus at %s answered %s with something that is not JSON: %s" % (masked, query, exc)) from exc
    if not isinstance(answer, dict):
        raise ServiceComparisonError("Prometheus at %s answered %s with a JSON %s, not an object" % (masked, query, type(answer).__name__))
    if answer.get("status") == "error":
        raise ServiceComparisonError("Prometheus refused the query %s: %s: %s" % (query, answer.get("errorType"), answer.get("error")))
    if answer.get("status") != "success":
        raise ServiceComparisonError("Prometheus at %s answered %s with status %s, neither success nor error (the HTTP API's answer "
                                     "has one of them); not read" % (masked, query, fileio.short_repr(answer.get("status"))))
    data = answer.get("data")
    if not isinstance(data, dict) or data.get("resultType") != "vector":
        raise ServiceComparisonError("Prometheus answered %s with %s, not a vector" % (
            query, "a %s" % fileio.short_repr(data.get("resultType")).strip("'") if isinstance(data, dict) else "data %s" % fileio.short_repr(data)))
    where = "Prometheus' answer to %s: data.result" % query
    # Each sample as the HTTP API gives a vector's: {"metric": {label: value}, "value": [time, "number"]}.
    return S.check(data.get("result"), S.Nullable(S.ListOf(_SAMPLE)), where, ServiceComparisonError) or []


def _is_number_text(value):
    try:
        float(value)
    except (TypeError, ValueError):
        return False
    return isinstance(value, str)


_SAMPLE = S.Fields("a vector sample", {"metric": S.MapOf(S.STR), "value": S.Leaf(
    "a [time, value] pair (a number, then the sample as a string such as \"4\" or \"NaN\")",
    lambda v: isinstance(v, list) and len(v) == 2 and S.NUMBER.test(v[0]) and _is_number_text(v[1]))})


def _key(metric, drop=("le", "__name__")):
    return tuple(sorted((key, value) for key, value in metric.items() if key not in drop))


def server_version(url, **request):
    """The server's version text from ``/api/v1/status/buildinfo``, or None (no answer, or not Prometheus' shape)."""
    target = "%s/api/v1/status/buildinfo" % url.rstrip("/")
    masked = urls.mask_url(url)
    what = {"late": "Prometheus at %s: no whole build information" % masked, "down": "Prometheus at %s did not answer" % masked,
            "encoded": "Prometheus at %s, its build information" % masked, "large": "Prometheus' build information is too large"}
    status, body = _get(target, dict(request.get("headers") or {}, Accept="application/json"), request.get("timeout", DEFAULT_TIMEOUT),
                        request.get("max_bytes", DEFAULT_MAX_BYTES), request.get("pool"), what)
    try:
        version = fileio.parse_json(body)["data"]["version"] if 200 <= status <= 299 else None
    except (ValueError, KeyError, TypeError):
        version = None
    return version if isinstance(version, str) else None


def _bucket_series(items, field, series):
    for item in items:
        le = item["metric"].get("le")
        upper = parse_le(le)
        if upper is None or (isinstance(upper, float) and math.isnan(upper)):
            continue  # Prometheus skips a bucket whose le strconv.ParseFloat refuses; a NaN bound is not compared
        entry = series.setdefault(_key(item["metric"]), {"buckets": {}, "rates": {}, "count": 0.0, "sum": 0.0, "reset": False})
        entry[field][le] = float(item["value"][1])


def _histogram(ask, name, match, span, window_ms, rules):
    series = {}
    _bucket_series(ask("increase(%s%s)" % (_selector(name + "_bucket", match), span)), "buckets", series)
    if not series:
        return None
    _bucket_series(ask("rate(%s%s)" % (_selector(name + "_bucket", match), span)), "rates", series)
    for suffix in ("count", "sum"):
        for item in ask("increase(%s%s)" % (_selector("%s_%s" % (name, suffix), match), span)):
            if _key(item["metric"]) in series:
                series[_key(item["metric"])][suffix] = float(item["value"][1])
    for item in ask("resets(%s%s)" % (_selector(name + "_bucket", match), span)):
        if _key(item["metric"]) in series and float(item["value"][1]) > 0:
            series[_key(item["metric"])]["reset"] = True
    restarted = {_key(item["metric"]) for item in ask("changes(%s%s)" % (_selector(name + "_created", match), span))
                 if float(item["value"][1]) > 0}
    if restarted & set(series):
        # A restart no count shows: Prometheus' increase misses it; each such series counts from zero, as on the scrape path.
        now = {}
        _bucket_series(ask(_selector(name + "_bucket", match)), "buckets", now)
        for key in restarted & set(series):
            fresh = now.get(key, {"buckets": {}})["buckets"]
            series[key].update(buckets=fresh, rates={le: rate_of(value, window_ms) for le, value in fresh.items()}, reset=True,
                               created_restart=True)
            for suffix in ("count", "sum"):
                for item in ask(_selector("%s_%s" % (name, suffix), match)):
                    if _key(item["metric"]) == key:
                        series[key][suffix] = float(item["value"][1])
    for entry in series.values():
        if set(entry["rates"]) != set(entry["buckets"]):
            entry.pop("rates")
    entry = aggregate(name, "histogram", series, kahan=rules["sum"] == "kahan")
    entry.update(prometheus_rules=rules["major"], quantile_rule=rules["quantile"])
    return entry


def query_window(url, start, end, mapping=None, match=None, **request):
    """{"source": "prometheus", "start", "end", "duration", "range", "prometheus_version", "prometheus_rules", "rules", "metrics"} for ``[start, end]``.

    ``request``: ``timeout`` (the deadline of each query), ``max_bytes`` (of each answer), ``headers`` (for example
    Authorization), ``pool`` (a `new_pool`; one is made, and used for every query of the window, when absent).
    The server's version (``/api/v1/status/buildinfo``) decides its rules (`prometheus_rules.rules_for`, ``rules``; its major
    version is ``prometheus_rules``): the sum of series (a running sum to 2.53, Kahan-Neumaier from 2.54), the quantile's repair
    (``quantile_rule`` of each histogram: raise to the running maximum to 2.48, small deltas first from 2.49) and the range
    (3.x leaves the sample at the range's start out: ``[w]`` sees ``(start, end]``; 2.x ``[start, end]``).
    """
    service_inputs.check_match(match)
    start, end = float(start), float(end)
    window_ms = int(round((end - start) * 1000))
    if window_ms <= 0:
        raise ServiceComparisonError("the window's end (%s) is not later than its start (%s)" % (end, start))
    span = "[%dms]" % window_ms
    if request.get("pool") is None:
        request["pool"] = new_pool(url)
    version = server_version(url, **request)
    rules = prometheus_rules.rules_for(version)

    def ask(expression):
        return instant_query(url, expression, end, **request)

    metrics = {}
    for key, name in sorted(metric_names(mapping).items()):
        histogram = _histogram(ask, name, match, span, window_ms, rules)
        if histogram is not None:
            metrics[key] = histogram
            continue
        plain = ask(_selector(name, match))
        if any("quantile" in item["metric"] for item in plain):
            metrics[key] = aggregate(name, "summary", {})
            continue
        increases = ask("increase(%s%s)" % (_selector(name, match), span))
        if not increases and not plain:
            if ask(_selector(name + "_bucket", match)):
                raise ServiceComparisonError(
                    "Prometheus %s has fewer than two samples of %s in the window's range %s ending at %s%s: widen the window or "
                    "scrape more often" % (version or "(version unknown)", name, span, end,
                                           " (3.x leaves the sample at the range's start out)" if rules["range"] == "left-open" else ""))
            metrics[key] = aggregate(name, None, {})
            continue
        resets = {_key(item["metric"]) for item in ask("resets(%s%s)" % (_selector(name, match), span)) if float(item["value"][1]) > 0}
        metrics[key] = aggregate(name, "counter", {_key(item["metric"]): {"value": float(item["value"][1]), "reset": _key(item["metric"]) in resets}
                                                   for item in increases})
    return {"source": "prometheus", "start": start, "end": end, "duration": end - start, "range": span.strip("[]"),
            "prometheus_version": version, "prometheus_rules": rules["major"], "rules": rules, "metrics": metrics}
