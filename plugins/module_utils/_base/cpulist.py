# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Linux cpulist and cpumask handling.

A cpulist is the kernel's list format ("0-3,8,10-11"); a cpumask is the
comma-separated 32-bit hex words format ("00000000,0000ff0f"). Every set that
leaves this module is canonical: sorted, ranges merged, "" for empty.

Public: `parse`, `parse_mask`, `check_ids`, `format`, `canonical`, `union`, `difference`, `intersection`,
`CpuListError`, `MAX_CPU_ID`.

Only trailing NUL padding (as some sysfs files carry) and surrounding whitespace are stripped;
a NUL byte anywhere else is refused, never deleted ("0-1\\x005" is not CPUs 0-1005).
"""

from __future__ import annotations

import re

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base.errors import NumaGateError

_RANGE = re.compile(r"^(\d+)(?:-(\d+))?$")
_HEXWORD = re.compile(r"^[0-9a-fA-F]{1,8}$")

# Far above any real machine (Linux NR_CPUS max is 8192); stops "0-999999999"
# from allocating a huge set.
MAX_CPU_ID = 1 << 16


# Trailing padding a kernel file may carry after its value.
_PADDING = "\x00 \t\n\r\x0b\x0c"


class CpuListError(NumaGateError, ValueError):
    """A cpulist or cpumask that does not follow the kernel's format."""


def parse(text):
    """Parse a cpulist string into a sorted list of CPU ids.

    Raises CpuListError naming the value and the rule it broke.
    """
    if text is None:
        raise CpuListError("cpulist is None, expected a string such as '0-3,8'")
    if not isinstance(text, str):
        raise CpuListError("cpulist %r is a %s, expected a string such as '0-3,8'" % (text, type(text).__name__))
    cleaned = _unpadded("cpulist", text)
    if not cleaned:
        return []
    cpus = set()
    for part in cleaned.split(","):
        part = part.strip()
        match = _RANGE.match(part)
        if not match:
            raise CpuListError("cpulist %r: %r is not a CPU id or a range 'a-b'" % (text, part))
        first = int(match.group(1))
        last = int(match.group(2)) if match.group(2) is not None else first
        if last < first:
            raise CpuListError("cpulist %r: range %r ends before it starts" % (text, part))
        if last >= MAX_CPU_ID:
            raise CpuListError("cpulist %r: CPU id %d is above the limit %d" % (text, last, MAX_CPU_ID - 1))
        cpus.update(range(first, last + 1))
    return sorted(cpus)


def _unpadded(what, text):
    """text without surrounding whitespace and trailing NUL padding; a NUL inside is refused."""
    cleaned = text.rstrip(_PADDING).lstrip()
    if "\x00" in cleaned:
        raise CpuListError("%s %r has a NUL byte at offset %d; only trailing NUL padding is ignored" % (what, text, text.index("\x00")))
    return cleaned


def parse_mask(text):
    """Parse a kernel cpumask ("ff,00000001") into a sorted list of CPU ids."""
    if not isinstance(text, str):
        raise CpuListError("cpumask %r is not a string" % (text,))
    cleaned = _unpadded("cpumask", text)
    if not cleaned:
        return []
    words = cleaned.split(",")
    cpus = []
    bit_base = 0
    for word in reversed(words):
        if not _HEXWORD.match(word):
            raise CpuListError("cpumask %r: %r is not a hex word of at most 8 digits" % (text, word))
        value = int(word, 16)
        bit = 0
        while value:
            if value & 1:
                cpus.append(bit_base + bit)
            value >>= 1
            bit += 1
        bit_base += 32
    return sorted(cpus)


def check_ids(cpus):
    """A list of CPU ids (ints, or strings of digits) as ints; anything else is a CpuListError naming it."""
    if isinstance(cpus, (str, bytes, dict)) or not hasattr(cpus, "__iter__"):
        raise CpuListError("%r is a %s, expected a list of CPU ids" % (cpus, type(cpus).__name__))
    result = []
    for cpu in cpus:
        if isinstance(cpu, bool) or not isinstance(cpu, (int, str)) or (isinstance(cpu, str) and not cpu.strip().isdigit()):
            raise CpuListError("%r in %r is not a CPU id (a whole number >= 0)" % (cpu, cpus))
        value = int(cpu)
        if value < 0 or value >= MAX_CPU_ID:
            raise CpuListError("CPU id %d in %r is outside 0-%d" % (value, cpus, MAX_CPU_ID - 1))
        result.append(value)
    return result


def format(cpus):  # pylint: disable=redefined-builtin
    """Format CPU ids as a canonical cpulist ("0-3,8"); "" for none."""
    ordered = sorted(set(int(c) for c in cpus))
    if not ordered:
        return ""
    parts = []
    start = prev = ordered[0]
    for cpu in ordered[1:]:
        if cpu == prev + 1:
            prev = cpu
            continue
        parts.append(_span(start, prev))
        start = prev = cpu
    parts.append(_span(start, prev))
    return ",".join(parts)


def _span(first, last):
    if first == last:
        return str(first)
    return "%d-%d" % (first, last)


def canonical(text):
    """Re-format a cpulist string canonically."""
    return format(parse(text))


def union(*cpulists):
    """Union of cpulist strings, as a canonical cpulist."""
    result = set()
    for item in cpulists:
        result.update(parse(item))
    return format(result)


def difference(first, *others):
    """CPUs in the first cpulist and in none of the others."""
    result = set(parse(first))
    for item in others:
        result.difference_update(parse(item))
    return format(result)


def intersection(first, *others):
    """CPUs present in every cpulist."""
    result = set(parse(first))
    for item in others:
        result.intersection_update(parse(item))
    return format(result)
