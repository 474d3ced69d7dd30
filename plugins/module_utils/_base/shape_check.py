# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The shape of a value a filter is given, checked before it is read: a wrong type or a missing key is named, never a KeyError.

Public: `check`, `Fields`, `ListOf`, `MapOf`, `Nullable`, `OneOf`, `Leaf`, `STR`, `DECIMAL`, `INT`, `COUNT`, `NUMBER`, `BOOL`,
`SCALAR`, `MAPPING`, `LIST`, `ANY`, `SECONDS`, `EPOCH`, `MAX_DEPTH`, `seconds`, `no_nul`, `http_url_problem`, `ipv6_hint`, `kind`.

A spec is a tree of small checkers: `Fields` (a mapping with required and optional keys; other keys are
left alone), `ListOf`, `MapOf`, `Nullable`, `OneOf`, and the leaves. `check(value, spec, where, error)`
walks the value along the spec and raises ``error`` (the caller's `NumaGateError` class) with the path of
the first part that does not fit, as ``pods[0].containers[1].name``, what it should be and what it is.
Leaves that take any value (`ANY`, `MAPPING`, `LIST`) are bounded in depth (`MAX_DEPTH` levels of
mappings and lists), so a deeply nested input is refused by name, never a RecursionError. The walk is
iterative for those and follows the spec otherwise, so it is bounded by the spec's own depth.

Option values get the same treatment before they are used (`seconds`, `no_nul`, `http_url_problem`): a NaN or infinite
time, a NUL in what goes to the operating system, a URL that a parser cannot read (an IPv6 address without its
brackets) is named with the rule it breaks, never left to the library that would fail on it.
"""

from __future__ import annotations

import math
import re
import urllib.parse

MAX_DEPTH = 64
_DECIMAL = re.compile(r"(?:0|[1-9][0-9]{0,8})\Z")
_SHOWN = 60


def _shown(value):
    text = repr(value)
    return text if len(text) <= _SHOWN else text[:_SHOWN] + "..."


def _kind(value):
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean %r" % value
    if isinstance(value, (int, float)):
        return "the number %r" % value
    if isinstance(value, str):
        return "the string %s" % _shown(value)
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, (list, tuple)):
        return "a list"
    return "a %s" % type(value).__name__


def kind(value):
    """What ``value`` is, in a message's words ("the number 5", "a mapping"); never an internal type's name."""
    return _kind(value)


class Leaf(object):
    """A checker for one value: ``test(value)`` says whether it fits, ``what`` says what fits."""

    def __init__(self, what, test):
        self.what = what
        self.test = test

    def check(self, value, where, error):
        if not self.test(value):
            raise error("%s must be %s, got %s" % (where, self.what, _kind(value)), field=where)
        return value


def _is_int(value):
    return isinstance(value, int) and not isinstance(value, bool)


def _depth_ok(value):
    """True when ``value`` has at most MAX_DEPTH levels of mappings and lists (iterative: no recursion)."""
    pending = [(value, 0)]
    while pending:
        item, level = pending.pop()
        if isinstance(item, dict):
            children = list(item.values())
        elif isinstance(item, (list, tuple)):
            children = list(item)
        else:
            continue
        if level >= MAX_DEPTH:
            return False
        pending.extend((child, level + 1) for child in children)
    return True


class _Bounded(Leaf):
    """A leaf that takes nested data: its type is checked, and its depth."""

    def check(self, value, where, error):
        Leaf.check(self, value, where, error)
        if not _depth_ok(value):
            raise error("%s is nested deeper than %d levels of mappings and lists; not read" % (where, MAX_DEPTH), field=where)
        return value


STR = Leaf("a string", lambda v: isinstance(v, str))
DECIMAL = Leaf("a decimal number as a string ('0', '12')", lambda v: isinstance(v, str) and bool(_DECIMAL.match(v)))
INT = Leaf("an integer", _is_int)
COUNT = Leaf("an integer of 0 or more", lambda v: _is_int(v) and v >= 0)
NUMBER = Leaf("a finite number", lambda v: _is_int(v) or (isinstance(v, float) and math.isfinite(v)))
BOOL = Leaf("true or false", lambda v: isinstance(v, bool))
SCALAR = Leaf("a string, number, boolean or null", lambda v: v is None or isinstance(v, (str, int, float)))
ANY = _Bounded("any value", lambda v: True)
MAPPING = _Bounded("a mapping", lambda v: isinstance(v, dict))
LIST = _Bounded("a list", lambda v: isinstance(v, (list, tuple)))
# NaN compares false with everything and an infinite bound never ends: neither is a time.
SECONDS = Leaf("a finite number of seconds above 0", lambda v: NUMBER.test(v) and v > 0)
EPOCH = Leaf("a finite number of seconds since the epoch (0 or more)", lambda v: NUMBER.test(v) and v >= 0)


class Nullable(object):
    """``spec``, or null."""

    def __init__(self, spec):
        self.spec = spec
        self.what = "%s, or null" % spec.what

    def check(self, value, where, error):
        return None if value is None else self.spec.check(value, where, error)


class OneOf(object):
    """One of the given values."""

    def __init__(self, *values):
        self.values = values
        self.what = "one of %s" % ", ".join(_shown(v) for v in values)

    def check(self, value, where, error):
        if isinstance(value, (bool, dict, list)) or value not in self.values:
            raise error("%s must be %s, got %s" % (where, self.what, _kind(value)), field=where)
        return value


class ListOf(object):
    """A list whose every item is ``spec``."""

    def __init__(self, spec):
        self.spec = spec
        self.what = "a list"

    def check(self, value, where, error):
        if not isinstance(value, (list, tuple)):
            raise error("%s must be a list, got %s" % (where, _kind(value)), field=where)
        return [self.spec.check(item, "%s[%d]" % (where, index), error) for index, item in enumerate(value)]


class MapOf(object):
    """A mapping of string keys (``keys``: a leaf they must fit, any string by default) to ``spec`` values."""

    def __init__(self, spec, keys=None):
        self.spec = spec
        self.keys = keys or STR
        self.what = "a mapping"

    def check(self, value, where, error):
        if not isinstance(value, dict):
            raise error("%s must be a mapping, got %s" % (where, _kind(value)), field=where)
        out = {}
        for key, item in value.items():
            if not isinstance(key, str) or not self.keys.test(key):
                raise error("%s has the key %s: its keys must be %s" % (where, _shown(key), self.keys.what), field=where)
            out[key] = self.spec.check(item, "%s.%s" % (where, key), error)
        return out


class Fields(object):
    """A mapping with ``required`` keys and ``optional`` ones (each key to its spec); other keys are kept unchecked but bounded.

    ``what`` names the thing in the message for a missing key ("a PodResources pod").
    """

    def __init__(self, what, required=None, optional=None):
        self.what = what
        self.required = dict(required or {})
        self.optional = dict(optional or {})

    def check(self, value, where, error):
        if not isinstance(value, dict):
            raise error("%s must be %s (a mapping), got %s" % (where, self.what, _kind(value)), field=where)
        for key, spec in self.required.items():
            if key not in value:
                raise error("%s has no %s: %s has %s" % (where, key, self.what, ", ".join(sorted(self.required))), field=where)
        out = dict(value)
        for key, spec in list(self.required.items()) + list(self.optional.items()):
            if key in value:
                out[key] = spec.check(value[key], "%s.%s" % (where, key), error)
        for key in set(value) - set(self.required) - set(self.optional):
            ANY.check(value[key], "%s.%s" % (where, key), error)
        return out


def check(value, spec, where, error):
    """``value`` if it has the shape ``spec``; else ``error`` naming ``where`` (a path, "pods") and what does not fit."""
    return spec.check(value, where, error)


def seconds(value, where, error, spec=SECONDS):
    """``value`` when it fits ``spec`` (`SECONDS` by default); else ``error`` naming ``where``, the value and the rule."""
    if not spec.test(value):
        raise error("%s must be %s, got %s" % (where, spec.what, _kind(value)), field=where)
    return value


def no_nul(value, where, error, then="nothing was run"):
    """``value`` (a string, or a list of them) when no string in it holds a NUL byte; else ``error`` naming where.

    The operating system reads argv and paths as C strings: a NUL would end one early (Python refuses it with a bare ValueError).
    """
    items = value if isinstance(value, (list, tuple)) else [value]
    for index, item in enumerate(items):
        if isinstance(item, str) and "\x00" in item:
            named = "%s[%d]" % (where, index) if isinstance(value, (list, tuple)) else where
            raise error("%s has a NUL byte at offset %d: argv and paths are C strings, which a NUL would end early; %s"
                        % (named, item.index("\x00"), then), field=where)
    return value


_CONTROL = re.compile(r"[\x00-\x20\x7f]")


def ipv6_hint(url, example="http://[::1]:9090"):
    """" (an IPv6 address is written in brackets, ...)" when ``url``'s host looks like an IPv6 address without them, else ""."""
    authority = str(url).partition("://")[2].partition("/")[0].rpartition("@")[2]
    if authority.count(":") > 1 or authority.startswith("["):
        return " (an IPv6 address is written in brackets, as %s)" % example
    return ""


def http_url_problem(url):
    """None when ``url`` is an http(s) URL with a host (and a port, if any, that is a number); else what is wrong with it.

    The problem never quotes the URL (it may hold a password): the caller names it, masked.
    """
    if not isinstance(url, str) or not url:
        return "is not a URL (%s)" % _kind(url)
    found = _CONTROL.search(url)
    if found:
        return "has %s at offset %d: a URL has no space or control character" % (
            "a space" if found.group() == " " else "the control character U+%04X" % ord(found.group()), found.start())
    try:
        parsed = urllib.parse.urlsplit(url)
        host, port = parsed.hostname, parsed.port
    except ValueError as exc:
        return "cannot be read as a URL: %s%s" % (exc, ipv6_hint(url))
    if parsed.scheme not in ("http", "https"):
        return "is not an http or https URL (scheme %r)" % parsed.scheme
    if not host:
        return "has no host"
    del port
    return None
