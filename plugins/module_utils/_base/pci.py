# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""PCI address normalisation: every address leaves as dddd:bb:dd.f, lower case.

Public: `normalize`, `is_address`, `PciAddressError`. Surrounding whitespace and trailing NUL
padding are stripped; a NUL byte inside an address is refused, never deleted.
"""

from __future__ import annotations

import re

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base.errors import NumaGateError

# NVML prints an 8-digit domain ("00000000:00:06.0"); sysfs a 4-digit one;
# some tools omit the domain ("18:00.0").
_ADDRESS = re.compile(
    r"^(?:(?P<domain>[0-9a-fA-F]{1,8}):)?(?P<bus>[0-9a-fA-F]{1,2}):(?P<device>[0-9a-fA-F]{1,2})\.(?P<function>[0-7])$"
)


class PciAddressError(NumaGateError, ValueError):
    """A string that is not a PCI address."""


def normalize(address):
    """Return the address as dddd:bb:dd.f (lower case), or raise PciAddressError."""
    if not isinstance(address, str):
        raise PciAddressError("PCI address %r is not a string" % (address,))
    text = address.rstrip("\x00 \t\n\r").lstrip()
    if "\x00" in text:
        raise PciAddressError("PCI address %r has a NUL byte at offset %d; only trailing NUL padding is ignored" % (address, address.index("\x00")))
    match = _ADDRESS.match(text)
    if not match:
        raise PciAddressError("PCI address %r is not of the form [domain:]bus:device.function" % (address,))
    domain = int(match.group("domain") or "0", 16)
    if domain > 0xFFFF:
        raise PciAddressError("PCI address %r: domain %#x does not fit 16 bits" % (address, domain))
    return "%04x:%02x:%02x.%s" % (domain, int(match.group("bus"), 16), int(match.group("device"), 16), match.group("function"))


def is_address(text):
    """True when text is a PCI address in any accepted spelling."""
    try:
        normalize(text)
    except PciAddressError:
        return False
    return True
