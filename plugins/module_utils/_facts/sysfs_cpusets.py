# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""CPU sets as sysfs writes them: cpulists (``0-3,8``) and hex cpumasks, read through `sysfs`'s bounded readers.

Public: `read_cpulist`, `read_cpumask`, `read_cpus`, `read_cpulist_ids`, `read_cpumask_ids`, `read_cpu_ids`, `mask_ids`.

Every reader returns ``(value, warning)`` like `sysfs.read_text`: a canonical cpulist string (or the
sorted ids), or None with a warning naming the path and why the text is not a CPU set.
"""

from __future__ import annotations

import re

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import cpulist as _cpulist
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts.sysfs import _EXCERPT, _read_text, excerpt, is_missing

_FULL_MASK = re.compile(r"^[0-9a-fA-F]{1,8}(?:,[0-9a-fA-F]{8})*$")
# A cpumask never needs more 32-bit words than CPU ids up to _cpulist.MAX_CPU_ID.
_MAX_MASK_WORDS = _cpulist.MAX_CPU_ID // 32


def read_cpulist(path, root=None):
    """Read a cpulist file ("0-3,8"); returns the canonical cpulist."""
    return _as_cpulist(read_cpulist_ids(path, root))


def read_cpumask(path, root=None):
    """Read a cpumask file ("ff,00000001"); returns the canonical cpulist."""
    return _as_cpulist(read_cpumask_ids(path, root))


def read_cpus(list_path, mask_path=None, root=None):
    """Read a CPU set from a cpulist file, falling back to its cpumask twin.

    Old kernels only have the mask (``cpumap``, ``thread_siblings``); newer
    ones have both. A list file that is present but garbage also falls back
    to the mask, and its warning is kept alongside. ``list_path`` may be
    None to read the mask only. Returns the canonical cpulist.
    """
    return _as_cpulist(read_cpu_ids(list_path, mask_path, root))


def _parse_warning(path, text, exc):
    """The parse error naming the file, quoting the content only when it is short."""
    if len(text) > 2 * _EXCERPT:
        return "%s: not a cpu set (%d characters starting %r)" % (path, len(text), excerpt(text))
    return "%s: %s" % (path, exc)


def read_cpulist_ids(path, root=None):
    """Like read_cpulist, but the CPU ids as a sorted list."""
    text, warning = _read_text(root, path)
    if text is None:
        return None, warning
    ids = _plain_cpulist(text)
    if ids is not None:
        return ids, None
    try:
        return _cpulist.parse(text), None
    except _cpulist.CpuListError as exc:
        return None, _parse_warning(path, text, exc)


def _plain_cpulist(text):
    """The ids of a cpulist written the plain way (ASCII digits, ranges ascending and apart: "0-3,8"), as
    `_cpulist.parse` gives them; None for anything else, left to `_cpulist.parse` (and its errors)."""
    ids = []
    end = -1
    for part in text.split(","):
        first, dash, last = part.partition("-")
        if not (first.isdigit() and first.isascii()):
            return None
        start = int(first)
        if dash:
            if not (last.isdigit() and last.isascii()):
                return None
            stop = int(last)
        else:
            stop = start
        if start <= end or stop < start or stop >= _cpulist.MAX_CPU_ID:
            return None
        ids.extend(range(start, stop + 1))
        end = stop
    return ids


def read_cpumask_ids(path, root=None):
    """Like read_cpumask, but the CPU ids as a sorted list."""
    text, warning = _read_text(root, path)
    if text is None:
        return None, warning
    try:
        return _clean_mask_ids(text), None
    except _cpulist.CpuListError as exc:
        return None, _parse_warning(path, text, exc)


def read_cpu_ids(list_path, mask_path=None, root=None):
    """Like read_cpus, but the CPU ids as a sorted list."""
    value, warning = read_cpulist_ids(list_path, root) if list_path else (None, None)
    if value is not None or not mask_path:
        return value, warning
    mask_value, mask_warning = read_cpumask_ids(mask_path, root)
    if mask_value is not None:
        if is_missing(warning):
            return mask_value, None
        return mask_value, "%s; used %s instead" % (warning, mask_path)
    if is_missing(warning) and is_missing(mask_warning):
        return None, "%s: missing (and %s)" % (list_path, mask_path) if list_path else mask_warning
    return None, "; ".join(w for w in (warning, mask_warning) if not is_missing(w))


def mask_ids(text):
    """CPU ids of a kernel cpumask, sorted; CpuListError for garbage or a mask beyond the CPU id limit.

    The usual shape (32-bit words, all but the first 8 digits) is read as one
    integer; anything else goes through _cpulist.parse_mask, which checks it.
    """
    return _clean_mask_ids(text.replace("\x00", "").strip(), text)


def _clean_mask_ids(cleaned, text=None):
    """`mask_ids` of text without NUL bytes or surrounding blanks (as `read_text` gives it); ``text`` as read, if it had them."""
    if cleaned.count(",") >= _MAX_MASK_WORDS:
        raise _cpulist.CpuListError("cpumask of %d words: more than the %d words that CPU ids up to %d need"
                                    % (cleaned.count(",") + 1, _MAX_MASK_WORDS, _cpulist.MAX_CPU_ID - 1))
    if not _FULL_MASK.match(cleaned):
        return _cpulist.parse_mask(cleaned if text is None else text)
    # Leading zero words (most of a big machine's mask) stripped first: the integer is then short.
    digits = cleaned.replace(",", "").lstrip("0")
    value = int(digits, 16) if digits else 0
    ids = []
    while value:
        low = value & -value
        ids.append(low.bit_length() - 1)
        value ^= low
    return ids


def _as_cpulist(result):
    ids, warning = result
    return (None if ids is None else _cpulist.format(ids)), warning
