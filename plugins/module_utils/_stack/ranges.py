# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Versions as the stack step compares them, and the ranges of the support table (pure).

Public: `parse`, `parse_range`, `contains`, `minor`, `RANGE_FORMS`.

A version is what a component reports (``v1.37.1``, ``1.37.1-gke.100``, ``26.7.0``, ``580.82.07``):
its leading numbers, a ``v`` before them allowed, anything after them (``-gke.100``, ``+k3s1``) ignored.
A text with no leading number is no version (None): unknown, never a match.

A range is one of `RANGE_FORMS`: ``LOW - HIGH`` (both ends included), ``>= LOW``, ``<= HIGH``, or one
version ``V``. A bound with fewer parts covers every version under it: ``1.32 - 1.36`` holds 1.36.9 and not
1.37.0; ``26.7`` holds 26.7.0 and 26.7.3. Anything else is malformed and refused.
"""

from __future__ import annotations

import re

RANGE_FORMS = ("LOW - HIGH", ">= LOW", "<= HIGH", "V")
_VERSION = re.compile(r"^v?(\d+(?:\.\d+)*)")
_BOUND = re.compile(r"^v?\d+(?:\.\d+)*$")


def parse(text):
    """The version's numbers as a tuple (``(1, 37, 1)``), or None when ``text`` does not start with one."""
    if text is None or isinstance(text, bool):
        return None
    match = _VERSION.match(str(text).strip())
    return tuple(int(part) for part in match.group(1).split(".")) if match else None


def minor(text):
    """``major.minor`` of a version (``1.37`` of ``v1.37.1``), or None."""
    found = parse(text)
    return "%d.%d" % found[:2] if found and len(found) >= 2 else None


def _bound(text, where, error):
    text = text.strip()
    if not _BOUND.match(text):
        raise error("%s: %r is not a version (numbers separated by dots, such as 1.36 or 26.7.0)" % (where, text))
    return parse(text)


def parse_range(text, where, error):
    """``(low, high)`` (either None for an open end) of a range in one of `RANGE_FORMS`; ``error(message)`` names ``where``."""
    if not isinstance(text, str) or not text.strip():
        raise error("%s must be a version range (%s), got %r" % (where, ", ".join(RANGE_FORMS), text))
    value = text.strip()
    if value.startswith(">="):
        return _bound(value[2:], where, error), None
    if value.startswith("<="):
        return None, _bound(value[2:], where, error)
    parts = value.split(" - ")
    if len(parts) == 2:
        low, high = _bound(parts[0], where, error), _bound(parts[1], where, error)
        if _cut(high, len(low)) < low:
            raise error("%s: the range %r is empty (%s is above %s)" % (where, text, parts[0].strip(), parts[1].strip()))
        return low, high
    if len(parts) == 1 and " " not in value:
        single = _bound(value, where, error)
        return single, single
    raise error("%s must be a version range (%s), got %r" % (where, ", ".join(RANGE_FORMS), text))


def _cut(version, length):
    return tuple(version[:length]) + (0,) * max(0, length - len(version))


def contains(bounds, version):
    """Whether ``version`` (a tuple from `parse`) lies in ``bounds`` (from `parse_range`); None when the version is unknown."""
    if version is None:
        return None
    low, high = bounds
    if low is not None and _cut(version, len(low)) < low:
        return False
    if high is not None and _cut(version, len(high)) > high:
        return False
    return True
