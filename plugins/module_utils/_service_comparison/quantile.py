# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""PromQL's ``histogram_quantile`` on classic histogram buckets, computed locally (pure).

Public: `bucket_quantile`, `entry_quantile`, `parse_le`, `almost_equal`, `SMALL_DELTA_TOLERANCE`.

The same rules, in the same order and with the same float operations, as Prometheus'
``bucketQuantile`` (promql/quantile.go), so a number here equals what an operator's dashboard shows
for ``histogram_quantile(q, rate(x_bucket[w]))`` over the same buckets:

- ``q`` NaN gives NaN, ``q < 0`` gives -Inf, ``q > 1`` gives +Inf;
- the buckets are sorted by upper bound; the highest must be ``+Inf``, else NaN;
- buckets with the same upper bound are merged (their counts added);
- float noise first: a count whose difference from the last accepted one is below
  ``SMALL_DELTA_TOLERANCE`` of their sum is set to it, in either direction (``fixed_precision``);
  then any remaining decrease is raised to the last accepted count (``forced_monotonic``,
  Prometheus' annotation "input to histogram_quantile needed to be fixed for monotonicity");
- fewer than two buckets, or no observations (the ``+Inf`` count is 0), give NaN;
- rank = q × observations; the bucket is found by Go's ``sort.Search`` (a binary search) for a
  cumulative count >= rank among all but the ``+Inf`` bucket, so a NaN count steers it as it
  steers Prometheus;
- in the ``+Inf`` bucket, the upper bound of the second highest bucket is returned;
- in the lowest bucket, the lower limit is 0 when its upper bound is > 0, else its upper bound is
  returned;
- otherwise linear interpolation: ``start + (end - start) × (rank - below) / (count - below)``,
  divided as Go divides floats (0/0 is NaN: q = 0 with an empty lowest bucket is NaN, no error).

Prometheus interpolates over rates (each series' increase times ``1/w``), not over increases: the
rounding of those products decides ties (``q × N`` on a cumulative count). `entry_quantile` uses a
window's ``rates`` (`service_window.aggregate`) when it has them.

``legacy=True`` is the monotonicity rule of Prometheus 2.42.0 to 2.48.x (``ensureMonotonic``: only
decreases are raised, to the highest count so far; a NaN count is kept and skipped); the default is
that of 2.49.0 on, 3.x included (``ensureMonotonicAndIgnoreSmallDeltas``: tolerance first, NaN passes
and becomes the reference); `prometheus_rules.rules_for` says which a server's version computes by.
Both agree on monotonic counts without NaN, as counts from one scrape or from rate() of unreset
series are.

`parse_le` reads a bound as Go's ``strconv.ParseFloat`` does: no surrounding space, decimal or hex
(``0x1p-3``) floats, ``Inf``/``Infinity``/``NaN`` in any case, underscores only between digits; a
value out of range (``1e400``) is an error. Prometheus skips a bucket whose ``le`` fails to parse.
"""

from __future__ import annotations

import math
import re

SMALL_DELTA_TOLERANCE = 1e-12
_MIN_NORMAL = 2.2250738585072014e-308


_DIGITS = r"[0-9](?:_?[0-9])*"
_HEX = r"[0-9a-fA-F](?:_?[0-9a-fA-F])*"
_DECIMAL = re.compile(r"[+-]?(?:%s(?:\.(?:%s)?)?|\.%s)(?:[eE][+-]?%s)?\Z" % (_DIGITS, _DIGITS, _DIGITS, _DIGITS))
_HEXFLOAT = re.compile(r"[+-]?0[xX]_?(?:%s(?:\.(?:%s)?)?|\.%s)[pP][+-]?%s\Z" % (_HEX, _HEX, _HEX, _DIGITS))
_SPECIAL = {"inf": math.inf, "+inf": math.inf, "-inf": -math.inf, "infinity": math.inf, "+infinity": math.inf,
            "-infinity": -math.inf, "nan": math.nan}


def parse_le(text):
    """The upper bound of an ``le`` label as Go's ``strconv.ParseFloat(text, 64)`` reads it, or None where it errs."""
    if not isinstance(text, str):
        return None
    if text.lower() in _SPECIAL:
        return _SPECIAL[text.lower()]
    try:
        if _DECIMAL.match(text):
            value = float(text.replace("_", ""))
        elif _HEXFLOAT.match(text):
            value = float.fromhex(text.replace("_", ""))
        else:
            return None
    except (ValueError, OverflowError):
        return None
    return None if math.isinf(value) else value


def go_divide(numerator, denominator):
    """``numerator / denominator`` with IEEE 754 results where Python raises (Go's float division)."""
    if denominator != 0 or math.isnan(denominator):
        return numerator / denominator
    if numerator == 0 or math.isnan(numerator):
        return math.nan
    return math.copysign(math.inf, numerator) * math.copysign(1.0, denominator)


def go_search(size, predicate):
    """Go's ``sort.Search``: the smallest index in [0, size) where ``predicate`` holds, by bisection (size when none)."""
    low, high = 0, size
    while low < high:
        middle = (low + high) // 2
        if not predicate(middle):
            low = middle + 1
        else:
            high = middle
    return low


def almost_equal(first, second, epsilon):
    """Prometheus' util/almost.Equal: equal, or the difference below ``epsilon`` of the sum of magnitudes."""
    if math.isnan(first) and math.isnan(second):
        return True
    if first == second:
        return True
    abs_sum = abs(first) + abs(second)
    diff = abs(first - second)
    if first == 0 or second == 0 or abs_sum < _MIN_NORMAL:
        return diff < epsilon * _MIN_NORMAL
    return diff / min(abs_sum, 1.7976931348623157e308) < epsilon


def _coalesce(buckets):
    merged = []
    for upper, count in buckets:
        if merged and merged[-1][0] == upper:
            merged[-1][1] += count
        else:
            merged.append([upper, count])
    return merged


def _legacy_repair(buckets):
    forced, highest = False, -math.inf
    for entry in buckets:
        if entry[1] > highest:
            highest = entry[1]
        elif entry[1] < highest:
            entry[1] = highest
            forced = True
    return forced, False


def _repair(buckets, tolerance):
    forced = fixed = False
    prev = buckets[0][1]
    for entry in buckets[1:]:
        curr = entry[1]
        if curr == prev:
            continue
        if almost_equal(prev, curr, tolerance):
            entry[1] = prev
            fixed = True
            continue
        if curr < prev:
            entry[1] = prev
            forced = True
            continue
        prev = curr
    return forced, fixed


def _result(value, forced=False, fixed=False, lower=None, upper=None):
    return {"value": value, "bucket": [lower, upper] if upper is not None else None,
            "forced_monotonic": forced, "fixed_precision": fixed}


def bucket_quantile(q, buckets, legacy=False):
    """{"value", "bucket", "forced_monotonic", "fixed_precision"} of the ``q``-quantile of cumulative ``buckets``.

    ``buckets``: ``[(upper_bound, cumulative_count), ...]`` in any order (bounds as floats, ``+Inf``
    as ``float("inf")``; use `parse_le` for label text). ``bucket`` is ``[lower, upper]`` of the
    bucket the quantile fell into, the bound on its error; None when the value is not from a bucket.
    """
    q = float(q)
    if math.isnan(q):
        return _result(math.nan)
    if q < 0:
        return _result(-math.inf)
    if q > 1:
        return _result(math.inf)
    if not buckets:
        return _result(math.nan)
    ordered = sorted(([float(upper), float(count)] for upper, count in buckets), key=lambda entry: entry[0])
    if not math.isinf(ordered[-1][0]) or ordered[-1][0] < 0:
        return _result(math.nan)
    ordered = _coalesce(ordered)
    forced, fixed = _legacy_repair(ordered) if legacy else _repair(ordered, SMALL_DELTA_TOLERANCE)
    if len(ordered) < 2:
        return _result(math.nan)
    observations = ordered[-1][1]
    if observations == 0:
        return _result(math.nan)
    rank = q * observations
    index = go_search(len(ordered) - 1, lambda position: ordered[position][1] >= rank)
    if index == len(ordered) - 1:
        return _result(ordered[-2][0], forced, fixed, ordered[-2][0], math.inf)
    if index == 0 and ordered[0][0] <= 0:
        return _result(ordered[0][0], forced, fixed, None, ordered[0][0])
    start = 0.0
    end = ordered[index][0]
    count = ordered[index][1]
    if index > 0:
        start = ordered[index - 1][0]
        count -= ordered[index - 1][1]
        rank -= ordered[index - 1][1]
    return _result(start + (end - start) * go_divide(rank, count), forced, fixed, start, end)


def entry_quantile(q, entry, legacy=False):
    """`bucket_quantile` of a window's histogram entry: over its ``rates`` (as Prometheus) when present, else its ``buckets``."""
    pairs = entry.get("rates") or entry.get("buckets") or []
    return bucket_quantile(q, [(parse_le(le), count) for le, count in pairs], legacy=legacy)
