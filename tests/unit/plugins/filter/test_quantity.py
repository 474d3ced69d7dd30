"""Unit tests for the quantity filters (plugins/filter/quantity.py)."""

from decimal import InvalidOperation

import pytest

from ansible.errors import AnsibleFilterError

from ansible_collections.gpusmith.numa_gate.plugins.filter import quantity
from ansible_collections.gpusmith.numa_gate.plugins.filter.quantity import FilterModule

FILTERS = FilterModule().filters()


def test_filter_names():
    assert sorted(FILTERS) == ["bytes_to_quantity", "quantity_to_bytes"]


@pytest.mark.parametrize("name, args, message", [
    ("quantity_to_bytes", ("1GB",), "quantity_to_bytes: quantity '1GB' does not match the Kubernetes quantity format '<number><suffix>' "
                                    "(suffixes Ki Mi Gi Ti Pi Ei, m k M G T P E, or eN)"),
    ("quantity_to_bytes", ("-1Mi",), "quantity_to_bytes: quantity '-1Mi' is negative; memory quantities must be >= 0"),
    ("bytes_to_quantity", ("1024",), "bytes_to_quantity: byte count '1024' is not an integer"),
    ("bytes_to_quantity", (-1,), "bytes_to_quantity: byte count -1 is negative"),
    # Issue 7 rule 9: quantities have an upper bound.
    ("quantity_to_bytes", ("8Ei",), "quantity_to_bytes: quantity '8Ei' is above the limit of 9223372036854775807 bytes "
                                    "(2**63-1: the kubelet holds quantities in an int64)"),
    ("bytes_to_quantity", (2**63,), "bytes_to_quantity: byte count 9223372036854775808 is above the limit of 9223372036854775807 bytes "
                                    "(2**63-1: the kubelet holds quantities in an int64)"),
])
def test_filter_errors_name_the_value(name, args, message):
    with pytest.raises(AnsibleFilterError) as err:
        FILTERS[name](*args)
    assert str(err.value) == message


def test_decimal_errors_become_filter_errors(monkeypatch):
    # decimal's errors are ArithmeticErrors, not ValueErrors; the filters must still turn them into AnsibleFilterError.
    def broken(value):
        raise InvalidOperation([InvalidOperation])

    monkeypatch.setattr(quantity._quantity, "to_bytes", broken)
    with pytest.raises(AnsibleFilterError, match=r"^quantity_to_bytes: "):
        FILTERS["quantity_to_bytes"]("1Gi")


def test_quantities():
    assert FILTERS["quantity_to_bytes"]("1124Mi") == 1178599424
    assert FILTERS["quantity_to_bytes"]("1G") == 1000000000
    assert FILTERS["quantity_to_bytes"]("0.5") == 1
    assert FILTERS["quantity_to_bytes"](4096) == 4096
    assert FILTERS["bytes_to_quantity"](1178599424) == "1124Mi"
    assert FILTERS["bytes_to_quantity"](1000000000) == "1000000000"
    assert FILTERS["bytes_to_quantity"](0) == "0"
