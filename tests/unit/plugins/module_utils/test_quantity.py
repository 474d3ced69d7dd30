"""Unit tests for Kubernetes quantity parsing."""

from decimal import Decimal

import pytest

from ansible_collections.gpusmith.numa_gate.plugins.module_utils import _quantity as q


@pytest.mark.parametrize(
    "text, expected",
    [
        ("100Mi", 100 * 2**20),
        ("1.5Gi", 3 * 2**29),
        ("1e3", 1000),
        ("1E3", 1000),
        ("2k", 2000),
        ("1M", 10**6),
        ("0", 0),
        ("0.5", 1),  # rounded up, as Quantity.Value()
        (1024, 1024),
        ("  7Ki ", 7168),
    ],
)
def test_to_bytes(text, expected):
    assert q.to_bytes(text) == expected


@pytest.mark.parametrize("text, expected", [("500m", 500), ("2", 2000), ("0.1", 100), ("1u", 1)])
def test_to_millicpu(text, expected):
    assert q.to_millicpu(text) == expected


@pytest.mark.parametrize(
    "value, fragment",
    [
        ("1e100000000", "exponent 100000000 is outside +-100"),
        ("ten", "does not match the Kubernetes quantity format"),
        ("1Gb", "does not match the Kubernetes quantity format"),
        ("-1Gi", "is negative"),
        (True, "is a boolean"),
        (None, "is a NoneType"),
        ([], "is a list"),
    ],
)
def test_bad_quantities_name_value_and_rule(value, fragment):
    with pytest.raises(q.QuantityError) as err:
        q.to_bytes(value)
    assert fragment in str(err.value)


def test_parse_decimal_is_exact():
    assert q.parse_decimal("1.1Gi") == Decimal("1.1") * 2**30


@pytest.mark.parametrize("count, expected", [(0, "0"), (2**30, "1Gi"), (1536 * 2**20, "1536Mi"), (1000, "1000"), (3 * 2**60, "3Ei")])
def test_from_bytes(count, expected):
    assert q.from_bytes(count) == expected
    assert q.to_bytes(expected) == count


@pytest.mark.parametrize("count", [-1, 1.5, "1"])
def test_from_bytes_rejects(count):
    with pytest.raises(q.QuantityError):
        q.from_bytes(count)
