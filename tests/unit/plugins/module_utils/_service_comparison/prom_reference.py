"""A Prometheus reference for the service comparison's tests, written from Prometheus' Go source (2.42 and 3.x), not from the collection.

- `go_parse_float`: strconv.ParseFloat(s, 64) by a character scanner (None where Go errs, out of range included);
- `bucket_quantile`: promql/quantile.go bucketQuantile (sort, +Inf check, coalesce, monotonic fix of 2.42 or 3.x, sort.Search);
- `select_range`: the samples a range selector sees: 2.x [t - r, t], 3.x (t - r, t];
- `extrapolated_rate`: promql/functions.go extrapolatedRate for floats (2.42's order, 3.x's: the zero clamp after the cap);
- `prom_sum`: aggregation sum (2.x running sum, 3.x Kahan-Neumaier);
- `histogram_quantile_of_rate`: histogram_quantile(q, sum by (le) (rate(x_bucket[r]))) at t.

``version`` is "2" (2.42.0's rules), "3" (3.0.0's) or a tag of `TAGS`: the rules read in that tag's source, one by one.
"""

import math

HEXDIGITS = "0123456789abcdef"
# Per tag, which rule ("2": as in 2.42.0, "3": as in 3.0.0) its source has: promql/quantile.go (ensureMonotonic or
# ensureMonotonicAndIgnoreSmallDeltas), promql/engine.go (sum with or without kahanSumInc; matrixIterSlice T >= mint or
# T > mint), promql/functions.go (extrapolatedRate: the zero clamp before or after the cap at half an interval).
TAGS = {
    "2.42.0": {"quantile": "2", "sum": "2", "range": "2", "extrapolation": "2"},
    "2.48.1": {"quantile": "2", "sum": "2", "range": "2", "extrapolation": "2"},
    "2.49.0": {"quantile": "3", "sum": "2", "range": "2", "extrapolation": "2"},
    "2.50.1": {"quantile": "3", "sum": "2", "range": "2", "extrapolation": "2"},
    "2.51.0": {"quantile": "3", "sum": "2", "range": "2", "extrapolation": "3"},
    "2.53.0": {"quantile": "3", "sum": "2", "range": "2", "extrapolation": "3"},
    "2.54.0": {"quantile": "3", "sum": "3", "range": "2", "extrapolation": "3"},
    "2.55.1": {"quantile": "3", "sum": "3", "range": "2", "extrapolation": "3"},
    "3.0.0": {"quantile": "3", "sum": "3", "range": "3", "extrapolation": "3"},
    "3.14.0": {"quantile": "3", "sum": "3", "range": "3", "extrapolation": "3"},
}


def rule(version, name):
    """"2" or "3": which rule ``name`` a server of ``version`` ("2", "3" or a tag of `TAGS`) follows."""
    return TAGS[version][name] if version in TAGS else version


def _digits(text, index, hexa):
    """(end, digit count, underscores ok) of a run of digits with single underscores between them."""
    count, last = 0, None
    allowed = HEXDIGITS if hexa else HEXDIGITS[:10]
    while index < len(text) and (text[index].lower() in allowed or text[index] == "_"):
        if text[index] == "_" and last != "d":
            return index, count, False
        last = "_" if text[index] == "_" else "d"
        count += text[index] != "_"
        index += 1
    return index, count, last != "_"


def go_parse_float(text):
    lowered = text.lower()
    for word, value in (("nan", math.nan), ("inf", math.inf), ("infinity", math.inf)):
        for sign, factor in (("", 1.0), ("+", 1.0), ("-", -1.0)):
            if lowered == sign + word and not (word == "nan" and sign):
                return value * factor if word != "nan" else value
    index = 1 if text[:1] in "+-" and text else 0
    hexa = lowered[index:index + 2] == "0x"
    if hexa:
        index += 2
        if text[index:index + 1] == "_":
            index += 1
    end, whole, ok = _digits(text, index, hexa)
    frac = 0
    if ok and end < len(text) and text[end] == ".":
        end, frac, ok = _digits(text, end + 1, hexa) if end + 1 < len(text) and text[end + 1] != "_" else (end + 1, 0, True)
    if not ok or whole + frac == 0:
        return None
    if end < len(text) and text[end].lower() == ("p" if hexa else "e"):
        start = end + 1 + (text[end + 1:end + 2] in ("+", "-") and end + 1 < len(text))
        end, exponent, ok = _digits(text, start, False)
        if not ok or exponent == 0:
            return None
    elif hexa:
        return None
    if end != len(text):
        return None
    body = text.replace("_", "")
    try:
        value = float.fromhex(body) if hexa else float(body)
    except OverflowError:
        return None
    return None if math.isinf(value) else value


def _fdiv(a, b):
    if b == 0:
        return math.nan if a == 0 or math.isnan(a) else math.copysign(math.inf, a) * math.copysign(1.0, b)
    return a / b


def _almost_equal(a, b, epsilon):
    min_normal = 2.2250738585072014e-308
    if math.isnan(a) and math.isnan(b):
        return True
    if a == b:
        return True
    abs_sum, diff = abs(a) + abs(b), abs(a - b)
    if a == 0 or b == 0 or abs_sum < min_normal:
        return diff < epsilon * min_normal
    return diff / min(abs_sum, 1.7976931348623157e308) < epsilon


def bucket_quantile(q, buckets, version="3"):
    """buckets: [(upper, count)]; version "2" (2.42: raise to the running max) or "3" (small deltas first)."""
    if math.isnan(q):
        return math.nan
    if q < 0:
        return -math.inf
    if q > 1:
        return math.inf
    bs = sorted([list(b) for b in buckets], key=lambda b: b[0])
    if not bs or bs[-1][0] != math.inf:
        return math.nan
    merged = [bs[0]]
    for b in bs[1:]:
        if b[0] != merged[-1][0]:
            merged.append(b)
        else:
            merged[-1][1] += b[1]
    bs = merged
    if rule(version, "quantile") == "2":
        top = -math.inf
        for b in bs:
            if b[1] > top:
                top = b[1]
            elif b[1] < top:
                b[1] = top
    else:
        prev = bs[0][1]
        for b in bs[1:]:
            curr = b[1]
            if curr == prev:
                continue
            if _almost_equal(prev, curr, 1e-12):
                b[1] = prev
                continue
            if curr < prev:
                b[1] = prev
                continue
            prev = curr
    if len(bs) < 2:
        return math.nan
    observations = bs[-1][1]
    if observations == 0:
        return math.nan
    rank = q * observations
    i, j = 0, len(bs) - 1
    while i < j:
        h = (i + j) >> 1
        if not bs[h][1] >= rank:
            i = h + 1
        else:
            j = h
    b = i
    if b == len(bs) - 1:
        return bs[-2][0]
    if b == 0 and bs[0][0] <= 0:
        return bs[0][0]
    start, end, count = 0.0, bs[b][0], bs[b][1]
    if b > 0:
        start = bs[b - 1][0]
        count -= bs[b - 1][1]
        rank -= bs[b - 1][1]
    return start + (end - start) * _fdiv(rank, count)


def select_range(samples, t_ms, range_ms, version):
    low = t_ms - range_ms
    return [(ts, v) for ts, v in samples if (ts >= low if rule(version, "range") == "2" else ts > low) and ts <= t_ms]


def _seconds(range_ms):
    ns = range_ms * 1000000
    return float(ns // 1000000000) + float(ns % 1000000000) / 1e9


def extrapolated_rate(points, t_ms, range_ms, is_rate, version):
    """rate()/increase() of one counter series' selected points, or None (fewer than two)."""
    if len(points) < 2:
        return None
    result = points[-1][1] - points[0][1]
    prev = points[0][1]
    for unused_ts, v in points[1:]:
        if v < prev:
            result += prev
        prev = v
    range_start, range_end = t_ms - range_ms, t_ms
    to_start = float(points[0][0] - range_start) / 1000
    to_end = float(range_end - points[-1][0]) / 1000
    sampled = float(points[-1][0] - points[0][0]) / 1000
    average = sampled / float(len(points) - 1)
    threshold = average * 1.1
    if rule(version, "extrapolation") == "2":
        if result > 0 and points[0][1] >= 0:
            to_zero = sampled * (points[0][1] / result)
            if to_zero < to_start:
                to_start = to_zero
        interval = sampled
        interval += to_start if to_start < threshold else average / 2
        interval += to_end if to_end < threshold else average / 2
        factor = interval / sampled
    else:
        if to_start >= threshold:
            to_start = average / 2
        if result > 0 and points[0][1] >= 0:
            to_zero = sampled * (points[0][1] / result)
            if to_zero < to_start:
                to_start = to_zero
        if to_end >= threshold:
            to_end = average / 2
        factor = (sampled + to_start + to_end) / sampled
    if is_rate:
        factor /= _seconds(range_ms)
    return result * factor


def prom_sum(values, version):
    total, c = None, 0.0
    for v in values:
        if total is None:
            total = v
        elif rule(version, "sum") == "2":
            total += v
        else:
            t = total + v
            if math.isinf(t):
                c = 0.0
            elif abs(total) >= abs(v):
                c += (total - t) + v
            else:
                c += (v - t) + total
            total = t
    return total if rule(version, "sum") == "2" else total + c


def histogram_quantile_of_rate(q, series, t_ms, range_ms, version):
    """series: {labels tuple including ("le", text): [(t_ms, value)]}; None when Prometheus answers no sample."""
    groups = {}
    for labels in sorted(series):
        rate = extrapolated_rate(select_range(series[labels], t_ms, range_ms, version), t_ms, range_ms, True, version)
        if rate is not None:
            groups.setdefault(dict(labels)["le"], []).append(rate)
    buckets = []
    for le, rates in groups.items():
        upper = go_parse_float(le)
        if upper is not None:
            buckets.append((upper, prom_sum(rates, version)))
    if not buckets:
        return None
    return bucket_quantile(q, buckets, version)
