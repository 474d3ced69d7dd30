# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Support as data: the support table's entries checked, merged with the operator's, and held against the versions (pure).

Public: `check_table`, `merge`, `reasons`, `ENTRY_KEYS`, `KUBERNETES`.

An entry is one dated support statement: ``{name, component, versions, kubernetes, source, read}``: the
component (a key of the record's ``versions``: ``network_operator``, ``gpu_operator``, ``driver``, ...), the
range of its versions the statement is about, the range of Kubernetes minor versions it supports
(`_stack.ranges`), the address it was read from and the date it was read (``YYYY-MM-DD``). The collection
ships its table (roles/acceptance_record/vars/main.yml, docs/stack.md); the operator's entries
(``acceptance_record_support``) are added to it, and one with a shipped entry's name replaces it.

`reasons(versions, policy)` is the ``support`` criterion (each reason ``{criterion, effect, message}``):

- a component whose version lies in an entry's ``versions`` while the Kubernetes versions read (the
  control plane's, ``control_plane``, and the kubelet's) lie outside its ``kubernetes``: **defer**, naming
  the entry, its source and the date it was read; inside: **info**, naming them too;
- a component the table speaks of that is installed (its key is in ``versions``) with an unknown version
  (null): **defer**, unknown is never agreement; no Kubernetes version read at all: **defer**;
- a component the table speaks of that is not installed (no key): **info**, the entry does not apply;
- a version no entry covers: **info** naming it: support is not stated, never adopted by silence;
- the operator's typed rules, through the same function: ``unsupported`` (``{component, version: glob,
  reason}``) and ``supported`` (``{component: [globs]}``) defer as they always did.

A malformed entry (a missing key, a range not in `_stack.ranges.RANGE_FORMS`, no source, a date that is
not one) is refused naming the entry, and nothing is decided.
"""

from __future__ import annotations

import datetime
import fnmatch

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._stack import ranges
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._stack.errors import StackError

ENTRY_KEYS = ("name", "component", "versions", "kubernetes", "source", "read")
# The Kubernetes versions an entry's ``kubernetes`` range is held against: the control plane's (/version) and the kubelet's.
KUBERNETES = ("control_plane", "kubelet")
_CRITERION = "support"


def _reason(effect, message):
    return {"criterion": _CRITERION, "effect": effect, "message": message}


def _entry(entry, index, where):
    if not isinstance(entry, dict):
        raise StackError("%s[%d] must be a support table entry (a mapping of %s), got %r" % (where, index, ", ".join(ENTRY_KEYS), entry))
    name = entry.get("name")
    label = "%s[%d]%s" % (where, index, " (%s)" % name if isinstance(name, str) and name else "")
    unknown = sorted(str(key) for key in entry if key not in ENTRY_KEYS)
    if unknown:
        raise StackError("support table entry %s has unknown keys %s (known: %s)" % (label, ", ".join(unknown), ", ".join(ENTRY_KEYS)))
    for key in ("name", "component", "source", "read"):
        value = entry.get(key)
        if not isinstance(value, str) or not value.strip():
            rule = {"source": "every support statement names the address it was read from",
                    "read": "every support statement is dated (YYYY-MM-DD)"}.get(key, "a non-empty string")
            raise StackError("support table entry %s: %s is missing or empty (%r): %s" % (label, key, value, rule))
    try:
        datetime.date.fromisoformat(entry["read"].strip())
    except ValueError:
        raise StackError("support table entry %s: read must be the date the source was read (YYYY-MM-DD), got %r" % (label, entry["read"])) from None
    checked = dict(entry)
    for key in ("versions", "kubernetes"):
        checked["_" + key] = ranges.parse_range(entry.get(key), "support table entry %s: %s" % (label, key), StackError)
    return checked


def check_table(table, where="support table"):
    """The entries of ``table`` (a list), each checked (see the module docstring); a repeated name is refused."""
    if table is None:
        return []
    if not isinstance(table, list):
        raise StackError("%s must be a list of entries (%s), got %s" % (where, ", ".join(ENTRY_KEYS), type(table).__name__))
    found, seen = [], set()
    for index, entry in enumerate(table):
        checked = _entry(entry, index, where)
        if checked["name"] in seen:
            raise StackError("support table entry %s[%d] (%s): the name is used twice in %s" % (where, index, checked["name"], where))
        seen.add(checked["name"])
        found.append(checked)
    return found


def merge(shipped, operator):
    """The shipped table with the operator's entries: one with a shipped name replaces it in place, the others follow."""
    shipped, operator = check_table(shipped, "the shipped support table"), check_table(operator, "acceptance_record_support")
    by_name = dict((entry["name"], entry) for entry in operator)
    merged = [by_name.pop(entry["name"], entry) for entry in shipped]
    return merged + [entry for entry in operator if entry["name"] in by_name]


def _cited(entry):
    return "support table entry %s, source %s, read %s" % (entry["name"], entry["source"].strip(), entry["read"].strip())


def _kubernetes(versions):
    return [(key, versions[key]) for key in KUBERNETES if ranges.parse(versions.get(key)) is not None]


def _held(entry, component, have, seen):
    if not seen:
        return [_reason("defer", "%s %s is covered by %s for Kubernetes %s, but no Kubernetes version was read (control plane nor kubelet): "
                        "unknown is not agreement" % (component, have, _cited(entry), entry["kubernetes"]))]
    outside = ["the %s is %s" % (key.replace("_", " "), value) for key, value in seen
               if not ranges.contains(entry["_kubernetes"], ranges.parse(value))]
    if outside:
        return [_reason("defer", "%s %s is supported on Kubernetes %s only (%s), and %s: no support statement covers this stack"
                        % (component, have, entry["kubernetes"], _cited(entry), " and ".join(outside)))]
    return [_reason("info", "%s %s is supported on Kubernetes %s (%s)" % (component, have, entry["kubernetes"], _cited(entry)))]


def _table_reasons(versions, table):
    found, seen, unstated = [], _kubernetes(versions), []
    components = []
    for entry in table:
        if entry["component"] not in components:
            components.append(entry["component"])
    for component in components:
        entries = [entry for entry in table if entry["component"] == component]
        if component not in versions:
            found.append(_reason("info", "%s is not installed on this node (not found): %s does not apply" % (
                component, ", ".join("support table entry %s" % entry["name"] for entry in entries))))
            continue
        have = versions[component]
        if ranges.parse(have) is None:
            found.append(_reason("defer", "%s is installed but its version is unknown (%s): its support (%s) cannot be checked; unknown is not "
                                 "agreement" % (component, "not read" if have is None else repr(have),
                                                ", ".join("support table entry %s" % entry["name"] for entry in entries))))
            continue
        covering = [entry for entry in entries if ranges.contains(entry["_versions"], ranges.parse(have))]
        if not covering:
            unstated.append("%s %s" % (component, have))
        for entry in covering:
            found += _held(entry, component, have, seen)
    unstated += ["%s %s" % (key, value) for key, value in sorted(versions.items())
                 if value is not None and key not in components and key not in KUBERNETES]
    if unstated:
        unstated.sort()
        found.append(_reason("info", "no support table entry covers %s: their support is not stated (not adopted by silence: "
                             "add an entry to acceptance_record_support)" % ", ".join(unstated)))
    return found


def _typed_reasons(versions, policy):
    """The operator's typed rules (``unsupported`` and ``supported`` globs), as they always read."""
    found = []
    for index, rule in enumerate(policy.get("unsupported") or []):
        if not isinstance(rule, dict) or not rule.get("component") or not rule.get("version"):
            raise StackError("policy unsupported[%d] must be a mapping with component and version (a glob), got %r" % (index, rule))
        have = versions.get(rule["component"])
        if have and fnmatch.fnmatchcase(str(have), str(rule["version"])):
            found.append(_reason("defer", "%s %s is marked unsupported by the operator (rule %r)%s" % (
                rule["component"], have, rule["version"], ": %s" % rule["reason"] if rule.get("reason") else "")))
    supported = policy.get("supported") or {}
    if not isinstance(supported, dict):
        raise StackError("policy supported must map a component to a list of version globs, got %r" % (supported,))
    for component, globs in sorted(supported.items()):
        globs = [globs] if isinstance(globs, str) else list(globs or [])
        have = versions.get(component)
        if have and not any(fnmatch.fnmatchcase(str(have), str(glob)) for glob in globs):
            found.append(_reason("defer", "%s %s is not among the operator's supported versions (%s)" % (
                component, have, ", ".join(globs) or "none")))
    return found


def reasons(versions, policy):
    """The support criterion's reasons (see the module docstring): the typed rules first, then the table's."""
    versions, policy = dict(versions or {}), policy or {}
    found = _typed_reasons(versions, policy)
    if policy.get("support_table") is not None or policy.get("support") is not None:
        found += _table_reasons(versions, merge(policy.get("support_table"), policy.get("support")))
    return found
