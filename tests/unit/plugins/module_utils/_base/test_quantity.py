"""Unit tests for Kubernetes quantity parsing."""

from decimal import Decimal

import pytest

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import quantity as q


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


@pytest.mark.parametrize("value, message", [
    # Issue 7 rule 9: quantities have an upper bound, the kubelet's int64.
    ("8Ei", "quantity '8Ei' is above the limit of 9223372036854775807 bytes (2**63-1: the kubelet holds quantities in an int64)"),
    ("1e100", "quantity '1e100' is above the limit of 9223372036854775807 bytes (2**63-1: the kubelet holds quantities in an int64)"),
    (2**63, "quantity 9223372036854775808 is above the limit of 9223372036854775807 bytes (2**63-1: the kubelet holds quantities in an int64)"),
    ("1" * 65, "quantity %r... is 65 characters long, above the limit of 64" % ("1" * 64,)),
])
def test_quantities_have_an_upper_bound(value, message):
    with pytest.raises(q.QuantityError) as err:
        q.to_bytes(value)
    assert str(err.value) == message


def test_the_bound_itself_is_accepted():
    assert q.to_bytes("9223372036854775807") == q.MAX_VALUE == 2**63 - 1
    assert q.from_bytes(q.MAX_VALUE) == "9223372036854775807"
    with pytest.raises(q.QuantityError) as err:
        q.from_bytes(2**63)
    assert str(err.value) == ("byte count 9223372036854775808 is above the limit of 9223372036854775807 bytes "
                              "(2**63-1: the kubelet holds quantities in an int64)")
    with pytest.raises(q.QuantityError) as err:
        q.to_millicpu("9223372036854776")
    assert str(err.value) == ("quantity '9223372036854776' is above the limit of 9223372036854775807 millicores "
                              "(2**63-1: the kubelet holds quantities in an int64)")


def test_long_numbers_are_not_rounded_to_28_digits():
    # 1024.0000000000000000000000001024 bytes rounds up to 1025, not down to a 28-digit 1024.
    assert q.to_bytes("1.0000000000000000000000000001Ki") == 1025


def test_errors_are_numa_gate_errors_and_value_errors():
    from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base.errors import NumaGateError
    assert issubclass(q.QuantityError, NumaGateError) and issubclass(q.QuantityError, ValueError)
