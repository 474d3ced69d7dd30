"""Unit tests for PCI address normalisation (_pci.py)."""

import pytest

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import pci as _pci
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base.errors import NumaGateError


@pytest.mark.parametrize("text, expected", [
    ("0000:18:00.0", "0000:18:00.0"), ("00000000:00:06.0", "0000:00:06.0"), ("18:00.0", "0000:18:00.0"),
    ("0000:1A:00.1\n\x00\x00", "0000:1a:00.1"),
])
def test_normalize(text, expected):
    assert _pci.normalize(text) == expected
    assert _pci.is_address(text)


@pytest.mark.parametrize("text, message", [
    ("0000:1\x008:00.0", "PCI address '0000:1\\x008:00.0' has a NUL byte at offset 6; only trailing NUL padding is ignored"),
    ("0000:18:00", "PCI address '0000:18:00' is not of the form [domain:]bus:device.function"),
    ("10000:18:00.0", "PCI address '10000:18:00.0': domain 0x10000 does not fit 16 bits"),
    (18, "PCI address 18 is not a string"),
])
def test_refusals_name_the_address(text, message):
    with pytest.raises(_pci.PciAddressError) as err:
        _pci.normalize(text)
    assert str(err.value) == message
    assert not _pci.is_address(text)


def test_errors_are_numa_gate_errors_and_value_errors():
    assert issubclass(_pci.PciAddressError, NumaGateError) and issubclass(_pci.PciAddressError, ValueError)
