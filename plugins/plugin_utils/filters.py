# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The one place a filter turns the collection's errors into AnsibleFilterError (controller side).

Public: `adapt(name, func, *args, **kwargs)`, `plain(value)`.

ansible-core 2.19 hands filter arguments over in lazy wrappers whose deep copy also copies the
play's variables: the planner copies its inputs, and a 4 ms plan cost 0.5-0.7 CPU-seconds per
host that way (docs/benchmarks.md). Arguments are turned into plain dicts and lists first.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from decimal import DecimalException

from ansible.errors import AnsibleFilterError

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base.errors import NumaGateError


MAX_DEPTH = 100  # levels of mappings and lists in one argument: far above any input of this collection, far below Python's recursion limit


class NestingError(NumaGateError, ValueError):
    """A filter argument nested deeper than MAX_DEPTH: refused by name, never a RecursionError."""


def plain(value, _depth=0):
    """``value`` as plain dicts, lists and scalars (mappings and sequences copied, strings kept); NestingError past MAX_DEPTH levels."""
    if _depth > MAX_DEPTH:
        raise NestingError("an argument is nested deeper than %d levels of mappings and lists; not read" % MAX_DEPTH)
    if isinstance(value, Mapping):
        return {plain(key, _depth + 1): plain(item, _depth + 1) for key, item in value.items()}
    if isinstance(value, (list, tuple)) or (isinstance(value, Sequence) and not isinstance(value, (str, bytes))):
        return [plain(item, _depth + 1) for item in value]
    return value


def adapt(name, func, *args, **kwargs):
    """Call ``func``; a NumaGateError (or a stray ValueError / decimal error) becomes AnsibleFilterError "<name>: <message>"."""
    try:
        args = [plain(arg) for arg in args]
        kwargs = {key: plain(value) for key, value in kwargs.items()}
        return func(*args, **kwargs)
    except (NumaGateError, ValueError, DecimalException) as exc:
        # NumaGateError names the value and the rule; decimal's errors are ArithmeticErrors, not ValueErrors.
        raise AnsibleFilterError("%s: %s" % (name, exc)) from exc
