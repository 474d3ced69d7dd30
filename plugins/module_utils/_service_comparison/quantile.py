# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""PromQL's ``histogram_quantile`` on classic histogram buckets, computed locally (pure).

Public: `bucket_quantile`, `parse_le`, `almost_equal`, `SMALL_DELTA_TOLERANCE`.

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
- rank = q × observations; the bucket is the first whose cumulative count is >= rank, searched
  among all but the ``+Inf`` bucket;
- in the ``+Inf`` bucket, the upper bound of the second highest bucket is returned;
- in the lowest bucket, the lower limit is 0 when its upper bound is > 0, else its upper bound is
  returned;
- otherwise linear interpolation: ``start + (end - start) × (rank - below) / (count - below)``.

Older servers (before the tolerance step, e.g. 2.42) only raise decreases; both agree whenever
the counts are monotonic, as counts from one scrape or one ``rate()`` are.
"""

from __future__ import annotations

import math

SMALL_DELTA_TOLERANCE = 1e-12
_MIN_NORMAL = 2.2250738585072014e-308


def parse_le(text):
    """The upper bound of an ``le`` label as Prometheus reads it (``+Inf``, ``Inf``, ``1e-3``), or None when it is not a number."""
    try:
        return float(str(text).strip())
    except ValueError:
        return None


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


def bucket_quantile(q, buckets):
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
    forced, fixed = _repair(ordered, SMALL_DELTA_TOLERANCE)
    if len(ordered) < 2:
        return _result(math.nan)
    observations = ordered[-1][1]
    if observations == 0:
        return _result(math.nan)
    rank = q * observations
    index = len(ordered) - 1
    for position in range(len(ordered) - 1):
        if ordered[position][1] >= rank:
            index = position
            break
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
    return _result(start + (end - start) * (rank / count), forced, fixed, start, end)
