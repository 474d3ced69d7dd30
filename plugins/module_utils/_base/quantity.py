# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Kubernetes resource quantities for memory (bytes) and CPU.

Follows apimachinery's resource.Quantity grammar: a signed decimal number
with an optional binary suffix (Ki Mi Gi Ti Pi Ei), decimal suffix
(n u m "" k M G T P E) or decimal exponent (e3, E6).

Public: `parse_decimal`, `to_bytes`, `to_millicpu`, `from_bytes`, `QuantityError`, `MAX_EXPONENT`,
`MAX_VALUE`, `MAX_LENGTH`.

Bounds: a quantity's text is at most `MAX_LENGTH` characters, its exponent within
+-`MAX_EXPONENT`, and a byte count or millicore count at most `MAX_VALUE` (2**63-1, the largest
int64: the kubelet holds both in an int64, Quantity.Value() / MilliValue()). Arithmetic is exact
(no rounding to a 28-digit context) before the documented round-up to a whole byte or millicore.
"""

from __future__ import annotations

import re
from decimal import Decimal, DecimalException, localcontext

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base.errors import NumaGateError

_QUANTITY = re.compile(
    r"^(?P<number>[+-]?(?:\d+\.?\d*|\.\d+))"
    r"(?P<suffix>Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E|[eE][+-]?\d+)?$"
)
_BINARY = {"Ki": 1, "Mi": 2, "Gi": 3, "Ti": 4, "Pi": 5, "Ei": 6}
_DECIMAL = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
MAX_EXPONENT = 100
MAX_VALUE = 2**63 - 1
MAX_LENGTH = 64
_FORMAT_SUFFIXES = (("Ei", 1 << 60), ("Pi", 1 << 50), ("Ti", 1 << 40), ("Gi", 1 << 30), ("Mi", 1 << 20), ("Ki", 1 << 10))


class QuantityError(NumaGateError, ValueError):
    """A value that is not a Kubernetes quantity, or not a usable one here."""


def parse_decimal(value):
    """Parse a quantity into an exact Decimal."""
    if isinstance(value, bool):
        raise QuantityError("quantity %r is a boolean, expected a quantity such as '100Mi'" % (value,))
    if isinstance(value, int):
        return Decimal(value)
    if not isinstance(value, str):
        raise QuantityError("quantity %r is a %s, expected a string such as '100Mi'" % (value, type(value).__name__))
    text = value.strip()
    if len(text) > MAX_LENGTH:
        raise QuantityError("quantity %r... is %d characters long, above the limit of %d" % (text[:MAX_LENGTH], len(text), MAX_LENGTH))
    match = _QUANTITY.match(text)
    if not match:
        raise QuantityError("quantity %r does not match the Kubernetes quantity format "
                            "'<number><suffix>' (suffixes Ki Mi Gi Ti Pi Ei, m k M G T P E, or eN)" % (value,))
    suffix = match.group("suffix") or ""
    try:
        with localcontext() as context:
            # Enough digits that no product or scaling below is rounded (1024**6 has 19 digits).
            context.prec = len(text) + MAX_EXPONENT + 30
            return _scaled(Decimal(match.group("number")), suffix, value)
    except DecimalException as exc:
        raise QuantityError("quantity %r is not a usable number (%s)" % (value, type(exc).__name__))


def _scaled(number, suffix, value):
    if suffix in _BINARY:
        return number * (Decimal(1024) ** _BINARY[suffix])
    if suffix in _DECIMAL:
        return number.scaleb(_DECIMAL[suffix])
    exponent = int(suffix[1:])
    # apimachinery caps quantities far below this; it keeps huge exponents from costing time and memory.
    if abs(exponent) > MAX_EXPONENT:
        raise QuantityError("quantity %r: exponent %d is outside +-%d" % (value, exponent, MAX_EXPONENT))
    return number.scaleb(exponent)


def _bounded(value, whole, unit):
    if whole > MAX_VALUE:
        raise QuantityError("quantity %r is above the limit of %d %s (2**63-1: the kubelet holds quantities in an int64)"
                            % (value, MAX_VALUE, unit))
    return whole


def to_bytes(value):
    """Parse a memory quantity into a whole number of bytes.

    Kubernetes rounds fractional byte counts up (Quantity.Value()); so do we.
    Negative values are refused: no memory setting here may be negative.
    """
    amount = parse_decimal(value)
    if amount < 0:
        raise QuantityError("quantity %r is negative; memory quantities must be >= 0" % (value,))
    return _bounded(value, int(amount.to_integral_value(rounding="ROUND_CEILING")), "bytes")


def to_millicpu(value):
    """Parse a CPU quantity into millicores (rounded up, as Quantity.MilliValue())."""
    amount = parse_decimal(value)
    if amount < 0:
        raise QuantityError("quantity %r is negative; CPU quantities must be >= 0" % (value,))
    with localcontext() as context:
        context.prec = len(str(amount)) + 10
        return _bounded(value, int((amount * 1000).to_integral_value(rounding="ROUND_CEILING")), "millicores")


def from_bytes(count):
    """Format bytes as the shortest exact binary quantity ("1Gi", "1536Mi", "100")."""
    if isinstance(count, bool) or not isinstance(count, int):
        raise QuantityError("byte count %r is not an integer" % (count,))
    if count < 0:
        raise QuantityError("byte count %d is negative" % count)
    if count > MAX_VALUE:
        raise QuantityError("byte count %d is above the limit of %d bytes (2**63-1: the kubelet holds quantities in an int64)" % (count, MAX_VALUE))
    if count == 0:
        return "0"
    for suffix, size in _FORMAT_SUFFIXES:
        if count % size == 0:
            return "%d%s" % (count // size, suffix)
    return str(count)
