# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A measurement is a plausible number or it is refused: the one check for every count the evidence reads.

Public: `count`, `number`, `INT64_MAX`.

The kernel writes page counts, page sizes, usage counters and PIDs as plain decimal digits, never
signed, never above 2**63-1 (its counters are 64-bit). `count` accepts exactly that text (ASCII
digits only: ``int()`` would also take ``-5``, ``+5``, ``5_0``, `` 5`` and other scripts' digits) and
names the file, the field and the value otherwise. `number` is the same rule for a value that
arrives already parsed (a sample handed to a filter): an int, not a bool, within the bounds.
"""

from __future__ import annotations

import re

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence import nodefs

INT64_MAX = 2 ** 63 - 1
_DECIMAL = re.compile(r"[0-9]{1,19}\Z")


def _refuse(where, field, value, what, minimum):
    shown = value[:40] if isinstance(value, str) else value
    return nodefs.EvidenceError("%s: %s %r is not %s (a decimal integer from %d to 2**63-1); refused as a measurement"
                                % (where, field, shown, what, minimum), path=where, field=field)


def count(text, where, field, what, minimum=0):
    """``text`` (the kernel's digits) as an int of at least ``minimum``; EvidenceError naming ``where``, ``field`` and the value."""
    if not isinstance(text, str) or not _DECIMAL.match(text) or not minimum <= int(text) <= INT64_MAX:
        raise _refuse(where, field, text, what, minimum)
    return int(text)


def number(value, where, field, what, minimum=0):
    """``value`` if it is an int (not a bool) from ``minimum`` to 2**63-1; EvidenceError naming it otherwise."""
    if isinstance(value, bool) or not isinstance(value, int) or not minimum <= value <= INT64_MAX:
        raise _refuse(where, field, value, what, minimum)
    return value
