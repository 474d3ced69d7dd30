# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Compare what a kubelet's ``/configz`` shows with the settings it should run with, by value.

Public: `parse`, `compare`, `describe`, `ConfigzError`.

``/configz`` answers ``{"kubeletconfig": {...v1beta1 fields...}}`` (from 1.36 with ``kind`` and
``apiVersion`` inside). Values are compared by meaning, not by spelling:
- quantities (``kubeReserved``, ``systemReserved``, ``evictionHard``, ``evictionSoft``,
  ``evictionMinimumReclaim`` values, ``reservedMemory`` limits) as exact numbers: ``1Gi`` equals
  ``1024Mi``, ``500m`` equals ``0.5``; percentages (``10%``) as text;
- ``reservedMemory`` as a set of NUMA nodes, each with its limits (order does not matter);
- CPU lists (``reservedSystemCPUs``) as sets of CPU ids: ``0-1`` equals ``0,1``;
- Go durations (``10s`` equals ``10000ms``; ``1m0s`` equals ``60s``) for string values that parse as one;
- numbers numerically (``1`` equals ``1.0``), booleans only with booleans;
- ``featureGates``: only the gates given are checked, each one its own field (``featureGates.X``);
  every other map must have the same keys with equal values.
"""

from __future__ import annotations

import json
import re
from decimal import Decimal

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base.errors import NumaGateError
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base.fileio import parse_json
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kube_api.answers import MAX_DEPTH, too_deep
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base.quantity import QuantityError, parse_decimal

QUANTITY_MAPS = ("kubeReserved", "systemReserved", "evictionHard", "evictionSoft", "evictionMinimumReclaim")
CPU_LISTS = ("reservedSystemCPUs",)
_DURATION_PART = re.compile(r"(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h)")
_DURATION_UNITS = {"ns": Decimal("1e-9"), "us": Decimal("1e-6"), "µs": Decimal("1e-6"), "ms": Decimal("0.001"),
                   "s": Decimal(1), "m": Decimal(60), "h": Decimal(3600)}


class ConfigzError(NumaGateError):
    """A /configz answer or an ``expect`` value this step cannot read."""


def parse(text, node):
    """The ``kubeletconfig`` dict of a /configz answer (text)."""
    try:
        answer = parse_json(text)
    except ValueError as exc:
        raise ConfigzError("verify %s: /configz did not answer JSON: %r" % (node, text[:200])) from exc
    if too_deep(answer):
        raise ConfigzError("verify %s: /configz answered lists and objects nested more than %d levels deep; not read" % (node, MAX_DEPTH))
    if not isinstance(answer, dict) or not isinstance(answer.get("kubeletconfig"), dict):
        raise ConfigzError("verify %s: /configz answered no 'kubeletconfig' object: %r" % (node, text[:200]))
    return answer["kubeletconfig"]


def _quantity(value):
    if isinstance(value, str) and value.strip().endswith("%"):
        return ("percent", value.strip())
    try:
        return ("number", parse_decimal(value).normalize())
    except QuantityError:
        return ("text", _plain(value))


def _cpus(value):
    if not isinstance(value, str):
        return ("raw", value)
    cpus = set()
    for part in value.replace(" ", "").split(","):
        if not part:
            continue
        low, dummy, high = part.partition("-")
        if not low.isdigit() or (high and not high.isdigit()):
            return ("raw", value)
        cpus.update(range(int(low), int(high or low) + 1))
    return ("cpus", frozenset(cpus))


def _duration(text):
    """Seconds of a Go duration string (time.ParseDuration), or None when it is not one."""
    body = text.strip()
    sign = -1 if body.startswith("-") else 1
    body = body.lstrip("+-")
    if body == "0":
        return Decimal(0)
    if not body or _DURATION_PART.sub("", body):
        return None
    return sign * sum(Decimal(n) * _DURATION_UNITS[u] for n, u in _DURATION_PART.findall(body))


def _plain(value):
    """A form of a generic value that compares by meaning."""
    if isinstance(value, bool) or value is None:
        return ("bool" if isinstance(value, bool) else "null", value)
    if isinstance(value, (int, float)):
        return ("number", Decimal(str(value)).normalize())
    if isinstance(value, str):
        seconds = _duration(value)
        return ("duration", seconds) if seconds is not None else ("text", value)
    if isinstance(value, dict):
        return ("map", tuple(sorted((str(k), _plain(v)) for k, v in value.items())))
    if isinstance(value, list):
        return ("list", tuple(_plain(v) for v in value))
    return ("other", repr(value))


def _reserved_memory(value):
    if not isinstance(value, list):
        return ("raw", _plain(value))
    entries = []
    for entry in value:
        if not isinstance(entry, dict):
            return ("raw", _plain(value))
        limits = entry.get("limits") or {}
        if not isinstance(limits, dict):
            return ("raw", _plain(value))
        entries.append((_plain(entry.get("numaNode")), tuple(sorted((str(k), _quantity(v)) for k, v in limits.items()))))
    # By their text: entries of any shape sort (numbers are normalized, so equal values have equal text).
    return ("numa", tuple(sorted(entries, key=repr)))


def _normal(field, value):
    if field in QUANTITY_MAPS and isinstance(value, dict):
        return ("quantities", tuple(sorted((str(k), _quantity(v)) for k, v in value.items())))
    if field == "reservedMemory":
        return _reserved_memory(value)
    if field in CPU_LISTS:
        return _cpus(value)
    return _plain(value)


def compare(expect, actual):
    """``[{"field", "expected", "actual"}]`` for every expected setting ``actual`` (a kubeletconfig dict) does not show.

    ``actual`` is None in an entry when /configz does not have the field (or the gate).
    """
    if not isinstance(expect, dict):
        raise ConfigzError("expect must be a dict of KubeletConfiguration fields, not %s" % type(expect).__name__)
    if too_deep(expect):
        raise ConfigzError("expect nests lists and objects more than %d levels deep; a KubeletConfiguration is not that deep" % MAX_DEPTH)
    mismatches = []
    for field in sorted(expect, key=str):
        wanted, seen = expect[field], actual.get(field)
        if field == "featureGates" and isinstance(wanted, dict):
            gates = seen if isinstance(seen, dict) else {}
            for gate in sorted(wanted, key=str):
                if _plain(wanted[gate]) != _plain(gates.get(gate)):
                    mismatches.append({"field": "featureGates.%s" % gate, "expected": wanted[gate], "actual": gates.get(gate)})
            continue
        if field not in actual or _normal(field, wanted) != _normal(field, seen):
            mismatches.append({"field": str(field), "expected": wanted, "actual": seen})
    return mismatches


def describe(mismatches):
    """``cpuManagerPolicy: expected 'static', /configz shows 'none'; ...``"""
    return "; ".join("%s: expected %s, /configz shows %s" % (m["field"], _dump(m["expected"]), "nothing" if m["actual"] is None else _dump(m["actual"]))
                     for m in mismatches)


def _dump(value):
    """``value`` as JSON with sorted keys (its repr when it is not JSON: keys of mixed types)."""
    try:
        return json.dumps(value, sort_keys=True)
    except (TypeError, ValueError):
        return repr(value)
