# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The shapes of what the service comparison is given, checked before anything is read from them.

Public: `check_runs`, `check_objectives`, `check_settings`, `check_scrape`, `check_mapping`, `check_match`,
`LABEL_NAME`, `RUN`, `WINDOW`, `METRIC`, `BUCKET`, `SETTINGS`, `SCRAPE`.

The runs are windows of `service_window.scrape_window` or `service_query.query_window` with the operator's
identity, load and client result, but the filter is given whatever the play hands it: a window without its
duration, a bucket that is a number, a counter without its ``by``, settings whose ``error_reasons`` is a
string. Each is refused with the path of the part that does not fit
(``runs[1].window.metrics.ttft.buckets[3] is not a [bound, count] pair: ...``) and what it should be, so the
comparison never meets a KeyError, a TypeError or a division by a zero duration.
"""

from __future__ import annotations

import math
import re

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import shape_check as S
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._service_comparison.errors import ServiceComparisonError
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._service_comparison.quantile import parse_le
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._service_comparison.checks import LATENCY_KEYS

_E = ServiceComparisonError


def _finite(value):
    return S.NUMBER.test(value)


POSITIVE = S.Leaf("a finite number above 0", lambda v: _finite(v) and v > 0)
NON_NEGATIVE = S.Leaf("a finite number of 0 or more", lambda v: _finite(v) and v >= 0)
FRACTION = S.Leaf("a number from 0 to 1", lambda v: _finite(v) and 0 <= v <= 1)


def _bound(value):
    return isinstance(value, str) and parse_le(value) is not None and not math.isnan(parse_le(value))


class _Bucket(object):
    """One cumulative bucket: [le label ('0.5', '+Inf'), count]."""

    what = "a [bound, count] pair"

    def check(self, value, where, error):
        if not isinstance(value, (list, tuple)) or len(value) != 2:
            got = "a list of %d" % len(value) if isinstance(value, (list, tuple)) else S._kind(value)  # pylint: disable=protected-access
            raise error("%s is not a [bound, count] pair: got %s" % (where, got), field=where)
        if not _bound(value[0]):
            raise error("%s is not a [bound, count] pair: its bound must be an le label such as '0.5' or '+Inf', got %s"
                        % (where, S._kind(value[0])), field=where)  # pylint: disable=protected-access
        if not _finite(value[1]):
            raise error("%s is not a [bound, count] pair: its count must be a finite number, got %s"
                        % (where, S._kind(value[1])), field=where)  # pylint: disable=protected-access
        if value[1] < 0:
            raise error("%s is not a [bound, count] pair: its count %r is below zero (a bucket's increase counts observations: "
                        "never negative)" % (where, value[1]), field=where)
        return value


BUCKET = _Bucket()
_NAME = S.Nullable(S.STR)
_COMMON = {"name": _NAME, "reset": S.Nullable(S.BOOL), "series": S.Nullable(S.COUNT)}
# Counts and increases of counters are never below zero: a window that says otherwise cannot be true (the sum may be).
_HISTOGRAM = S.Fields("a histogram of a window (type, buckets, count, sum)", {"buckets": S.ListOf(BUCKET), "count": NON_NEGATIVE},
                      dict(_COMMON, sum=S.NUMBER))
_INCREASE = S.Fields("a series increase of a counter (labels, increase)", {"labels": S.MapOf(S.Nullable(S.SCALAR)), "increase": NON_NEGATIVE})
_COUNTER = S.Fields("a counter of a window (type, total, by)", {"total": NON_NEGATIVE, "by": S.ListOf(_INCREASE)}, _COMMON)
_OTHER = S.Fields("a metric of a window", {}, _COMMON)
_TYPE = S.Leaf("histogram, counter, summary or null", lambda v: v is None or (isinstance(v, str) and v in ("histogram", "counter", "summary")))
_LATENCY_TYPE = S.Leaf("histogram, summary or null (a latency metric is no counter)",
                       lambda v: v is None or (isinstance(v, str) and v in ("histogram", "summary")))


class _Metric(object):
    """A window's metric entry (`service_window.aggregate`): its fields follow its type; a latency metric is no counter."""

    what = "a metric of a window"

    def __init__(self, latency=False):
        self.type = _LATENCY_TYPE if latency else _TYPE

    def check(self, value, where, error):
        S.Fields("a metric of a window (name, type, ...)", {"type": self.type}).check(value, where, error)
        if value["type"] == "histogram":
            return _HISTOGRAM.check(value, where, error)
        if value["type"] == "counter":
            return _COUNTER.check(value, where, error)
        return _OTHER.check(value, where, error)


METRIC = _Metric()
_LATENCY = _Metric(latency=True)


class _Metrics(object):
    """A window's metrics: key to entry (latency keys: histogram, summary or null)."""

    what = "a mapping of metric keys to entries"

    def check(self, value, where, error):
        S.MapOf(S.ANY).check(value, where, error)
        return {key: (_LATENCY if key in LATENCY_KEYS else METRIC).check(entry, "%s.%s" % (where, key), error) for key, entry in value.items()}


class _Both(object):
    """A value that fits every one of ``specs`` (keys of one, fields of another)."""

    def __init__(self, *specs):
        self.specs = specs
        self.what = specs[-1].what

    def check(self, value, where, error):
        for spec in self.specs:
            value = spec.check(value, where, error)
        return value


def _keyed(spec):
    """``spec`` (a Fields), on a mapping whose keys are all strings."""
    return _Both(S.MapOf(S.ANY), spec)


class _Window(object):
    """A measured window whose ``duration`` is its ``end`` - ``start``: a window that states another length is not believed."""

    what = "a measured window (service_scrape_window or service_window)"
    fields = S.Fields(what, {"start": S.NUMBER, "end": S.NUMBER, "duration": POSITIVE, "metrics": _Metrics()}, {"source": _NAME})

    def check(self, value, where, error):
        self.fields.check(value, where, error)
        span = value["end"] - value["start"]
        # 1 microsecond: the float noise of start + duration; a window is measured in milliseconds.
        if not math.isclose(value["duration"], span, rel_tol=1e-9, abs_tol=1e-6):
            raise error("%s.duration %r is not its end - start (%r - %r = %r): a window whose length is not the time between its ends "
                        "is not a measurement" % (where, value["duration"], value["end"], value["start"], span), field=where + ".duration")
        return value


WINDOW = _Window()
IDENTITY = _keyed(S.Fields("an application identity (images by digest, model, runtime)", {}, {"images": S.Nullable(S.MapOf(S.Nullable(S.STR)))}))
RUN = S.Fields("a run (side, window, identity, load, warmup, command, client)",
               {"side": S.OneOf("baseline", "canary"), "window": WINDOW},
               {"identity": S.Nullable(IDENTITY), "load": S.Nullable(S.MapOf(S.ANY)), "warmup": S.Nullable(S.BOOL), "command": S.ANY,
                "client": S.Nullable(S.MapOf(S.ANY))})
SETTINGS = _keyed(S.Fields("comparison settings", {}, {
    "min_repetitions": S.COUNT, "min_observations": NON_NEGATIVE, "max_rate_difference": NON_NEGATIVE, "max_hit_ratio_difference": NON_NEGATIVE,
    "vary": S.ListOf(S.STR), "error_reasons": S.ListOf(S.STR), "quantiles": S.ListOf(FRACTION)}))
OBJECTIVE = _keyed(S.Fields("a service objective", {}, {"name": _NAME}))
SCRAPE = S.Fields("a scrape of /metrics (text, timestamp)", {"text": S.STR, "timestamp": S.NUMBER})


class _Runs(object):
    """The runs: a list; an entry that is no run with a side is named as `service_compare` always named it."""

    what = "a list of runs"

    def check(self, value, where, error):
        S.check(value, S.LIST, where, error)
        for index, run in enumerate(value):
            if not isinstance(run, dict) or run.get("side") not in ("baseline", "canary") or not isinstance(run.get("window"), dict):
                raise error("%s[%d] must be a mapping with side (baseline or canary) and window, got %r"
                            % (where, index, {k: run[k] for k in ("side",) if isinstance(run, dict) and k in run} or run), field=where)
            RUN.check(run, "%s[%d]" % (where, index), error)
        return value


def check_runs(runs):
    """``runs`` (null: none) if every run has its shape; ServiceComparisonError naming the first part that does not."""
    return S.check(runs, S.Nullable(_Runs()), "runs", _E) or []


def check_objectives(objectives):
    """``objectives`` (null: none): a list of mappings with string keys; `service_objectives.validate` checks each one's rules."""
    S.check(objectives, S.Nullable(S.LIST), "objectives", _E)
    for index, objective in enumerate(objectives or []):
        if isinstance(objective, dict):
            OBJECTIVE.check(objective, "objectives[%d]" % index, _E)
    return objectives or []


def check_settings(settings):
    return S.check(settings, S.Nullable(SETTINGS), "settings", _E) or {}


def check_scrape(scrape, where):
    return S.check(scrape, SCRAPE, where, _E)


def check_mapping(mapping):
    return S.check(mapping, S.Nullable(S.MapOf(S.ANY)), "mapping", _E)


# Prometheus' label name rule (model.LabelNameRE, the legacy validation PromQL's unquoted selector parses).
LABEL_NAME = re.compile(r"[a-zA-Z_][a-zA-Z0-9_]*\Z")


def check_match(match):
    """``match`` (null: none) when every key is a Prometheus label name and every value text UTF-8 can carry; else refused naming it.

    A key goes into a PromQL selector as it is (``{<key>="<value>"}``): one that is no label name would change the query. A value
    may be a non-empty list: the series carries any one of them (the pods of a side, ``{<key>=~"a|b"}``).
    """
    S.check(match, S.Nullable(S.MapOf(S.ANY)), "match", _E)
    for key, value in sorted((match or {}).items()):
        if isinstance(value, dict) or (isinstance(value, list) and any(isinstance(one, (dict, list)) for one in value)):
            raise _E("match.%s must be a string, number, boolean or null, or a list of those (any of them), got %s"
                     % (key, S.kind(value)), field="match")
        if not LABEL_NAME.match(key):
            raise _E("match key %r is not a Prometheus label name ([a-zA-Z_][a-zA-Z0-9_]*); not queried, not matched" % key, field="match")
        if isinstance(value, list) and not value:
            raise _E("match.%s is an empty list: no series carries none of no values; not queried, not matched" % key, field="match")
        for one in value if isinstance(value, list) else [value]:
            try:
                str(one).encode("utf-8")
            except UnicodeEncodeError as exc:
                raise _E("match.%s has a lone UTF-16 surrogate %r at offset %d: no label value holds one; not queried, not matched"
                         % (key, str(one)[exc.start], exc.start), field="match") from exc
    return match
