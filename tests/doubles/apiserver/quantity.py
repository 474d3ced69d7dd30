# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Resource quantities (``"64"``, ``"500m"``, ``"263853344Ki"``) as k8s.io/apimachinery/pkg/api/resource reads and writes them.

- Parsing (quantity.go ``ParseQuantity``): a signed decimal number, then a suffix: binary ``Ki``
  ... ``Ei`` (powers of 1024), decimal ``n u m "" k M G T P E`` or an exponent ``e3`` / ``E3``.
  The format (BinarySI, DecimalSI, DecimalExponent) is the suffix's; values are kept exact here.
- Writing (quantity.go ``CanonicalizeBytes``): BinarySI becomes DecimalSI when |value| < 1024 or
  the value is not a whole number; BinarySI writes the largest power of 1024 that divides the
  value exactly (``AsCanonicalBase1024Bytes``: ``263853344Ki``, a plain byte count when none
  does); DecimalSI writes the largest power of 1000 that leaves a whole mantissa
  (``AsCanonicalBytes``: ``1k``, ``1500``, ``500m``). The exponent form (DecimalExponent, ``2e3``) is
  written back as DecimalSI here (``2k``); the real one keeps the exponent.
- ``Sub`` keeps the left operand's format (quantity.go ``Sub``: only a zero left takes the right's).
"""

import fractions
import re

BINARY = {"Ki": 1, "Mi": 2, "Gi": 3, "Ti": 4, "Pi": 5, "Ei": 6}
DECIMAL = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
_SUFFIX_OF_EXPONENT = {v: k for k, v in DECIMAL.items()}
_PATTERN = re.compile(r"^([+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+))(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]|[eE][+-]?[0-9]+)?$")


class Quantity:
    """An exact value with the format it was written in (``binary`` True for BinarySI)."""

    def __init__(self, value, binary):
        self.value = fractions.Fraction(value)
        self.binary = binary

    @classmethod
    def parse(cls, text):
        """ParseQuantity; ValueError naming the text for anything else (the API's ErrFormatWrong wording)."""
        match = _PATTERN.match(str(text).strip())
        if not match:
            raise ValueError("quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$': %r" % (text,))
        number, suffix = fractions.Fraction(match.group(1)), match.group(2) or ""
        if suffix in BINARY:
            return cls(number * 1024 ** BINARY[suffix], True)
        if suffix in DECIMAL:
            return cls(number * fractions.Fraction(10) ** DECIMAL[suffix], False)
        return cls(number * fractions.Fraction(10) ** int(suffix[1:]), False)

    def sub(self, other):
        """q.Sub(other): the difference, in this quantity's format."""
        return Quantity(self.value - other.value, self.binary if self.value != 0 else other.binary)

    def at_least_zero(self):
        """``if value.Sign() < 0 { value.Set(0) }`` as the kubelet clamps allocatable."""
        return self if self.value >= 0 else Quantity(0, self.binary)

    def __str__(self):
        value, binary = self.value, self.binary
        if binary and (abs(value) < 1024 or value.denominator != 1):
            binary = False
        if binary:
            number, power = int(value), 0
            while power < 6 and number != 0 and number % 1024 == 0:
                number, power = number // 1024, power + 1
            return "%d%s" % (number, ([""] + list(BINARY))[power])
        exponent = 0
        while value.denominator != 1 and exponent > -9:
            value, exponent = value * 1000, exponent - 3
        number = int(value)  # below a nano the API rounds up; not needed by the double
        while number != 0 and number % 1000 == 0 and exponent < 18:
            number, exponent = number // 1000, exponent + 3
        return "%d%s" % (number, _SUFFIX_OF_EXPONENT[exponent])


def canonical(text):
    """The quantity ``text`` as the API writes it back."""
    return str(Quantity.parse(text))
