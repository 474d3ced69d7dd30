"""histogram_quantile as Prometheus' bucketQuantile computes it (promql/quantile.go), exact values."""

import math

import pytest

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._service_comparison import quantile as hq

INF = math.inf
# 10 observations <= 0.1, 30 in (0.1, 0.5], 50 in (0.5, 1], 10 above 1.
BUCKETS = [(0.1, 10.0), (0.5, 40.0), (1.0, 90.0), (INF, 100.0)]


@pytest.mark.parametrize("q, value, bucket", [
    (0.5, 0.6, [0.5, 1.0]),          # rank 50: 0.5 + 0.5 * (50 - 40) / 50
    (0.05, 0.05, [0.0, 0.1]),        # lowest bucket, interpolated from 0
    (0.1, 0.1, [0.0, 0.1]),          # rank 10 == count of the first bucket
    (0.25, 0.1 + (0.5 - 0.1) * (15.0 / 30.0), [0.1, 0.5]),  # 0.30000000000000004, as Go computes it
    (0.9, 1.0, [0.5, 1.0]),          # rank 90 == count of le=1
    (0.95, 1.0, [1.0, INF]),         # +Inf bucket: the second highest upper bound
    (0.99, 1.0, [1.0, INF]),
    (1.0, 1.0, [1.0, INF]),
    (0.0, 0.0, [0.0, 0.1]),
])
def test_quantiles_interpolate_linearly(q, value, bucket):
    result = hq.bucket_quantile(q, BUCKETS)
    assert result == {"value": value, "bucket": bucket, "forced_monotonic": False, "fixed_precision": False}


def test_order_of_the_input_does_not_matter():
    assert hq.bucket_quantile(0.5, list(reversed(BUCKETS)))["value"] == 0.6


@pytest.mark.parametrize("q, expected", [(-0.1, -INF), (1.5, INF)])
def test_q_outside_0_1(q, expected):
    assert hq.bucket_quantile(q, BUCKETS)["value"] == expected


@pytest.mark.parametrize("q, buckets", [
    (math.nan, BUCKETS),
    (0.5, [(0.1, 0.0), (INF, 0.0)]),                 # no observations
    (0.5, [(0.1, 10.0), (1.0, 20.0)]),              # no +Inf bucket
    (0.5, [(INF, 10.0)]),                            # fewer than two buckets
    (0.5, [(INF, 4.0), (INF, 6.0)]),                 # two +Inf coalesce into one
    (0.5, []),
])
def test_nan_cases(q, buckets):
    assert math.isnan(hq.bucket_quantile(q, buckets)["value"])


def test_lowest_bucket_at_or_below_zero_returns_its_bound():
    result = hq.bucket_quantile(0.05, [(-1.0, 5.0), (0.0, 10.0), (INF, 50.0)])
    assert result["value"] == -1.0
    assert result["bucket"] == [None, -1.0]
    # rank 10 falls in (-1, 0]: interpolated from the bound below, -1 + 1 * (10 - 5) / 5
    assert hq.bucket_quantile(0.2, [(-1.0, 5.0), (0.0, 10.0), (INF, 50.0)])["value"] == 0.0


def test_same_bounds_are_coalesced():
    # le="0.5" given twice (two series summed naively) adds up.
    assert hq.bucket_quantile(0.5, [(0.1, 10.0), (0.5, 20.0), (0.5, 20.0), (1.0, 90.0), (INF, 100.0)])["value"] == 0.6


def test_non_monotonic_counts_are_repaired_and_flagged():
    result = hq.bucket_quantile(0.5, [(0.1, 10.0), (0.5, 40.0), (1.0, 30.0), (2.0, 90.0), (INF, 100.0)])
    # le=1 raised to 40; rank 50 falls in (1, 2]: 1 + 1 * (50 - 40) / 50
    assert result == {"value": 1.2, "bucket": [1.0, 2.0], "forced_monotonic": True, "fixed_precision": False}


def test_float_noise_is_ignored_in_either_direction_and_flagged():
    noisy = 40.0 * (1 + 1e-13)
    result = hq.bucket_quantile(0.5, [(0.1, 10.0), (0.5, 40.0), (0.75, noisy), (1.0, 90.0), (INF, 100.0)])
    assert result == {"value": 0.8, "bucket": [0.75, 1.0], "forced_monotonic": False, "fixed_precision": True}


def test_rates_give_the_same_quantile_as_counts():
    rates = [(upper, count / 60.0) for upper, count in BUCKETS]
    assert hq.bucket_quantile(0.25, rates)["value"] == 0.1 + (0.5 - 0.1) * ((0.25 * (100.0 / 60.0) - 10.0 / 60.0) / (40.0 / 60.0 - 10.0 / 60.0))


@pytest.mark.parametrize("text, value", [("+Inf", INF), ("Inf", INF), ("0.001", 0.001), ("1e-3", 0.001), (" 5 ", None), ("x", None),
                                         ("0x1p-3", 0.125), ("1_0", 10.0), ("1e400", None), ("-1e400", None), ("1e-400", 0.0),
                                         ("infinity", INF), ("+inf", INF), ("-Inf", -INF), ("0x1", None), ("_1", None), ("1__0", None),
                                         ("infin", None), ("", None), ("1.", 1.0), (".5", 0.5), (".", None), ("+nan", None)])
def test_parse_le(text, value):
    assert hq.parse_le(text) == value


def test_almost_equal():
    assert hq.almost_equal(1.0, 1.0 + 1e-13, 1e-12)
    assert not hq.almost_equal(1.0, 1.0 + 1e-11, 1e-12)
    assert not hq.almost_equal(0.0, 1e-300, 1e-12)
    assert hq.almost_equal(math.nan, math.nan, 1e-12)
