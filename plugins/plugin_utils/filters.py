# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The one place a filter turns the collection's errors into AnsibleFilterError (controller side).

Public: `adapt(name, func, *args, **kwargs)`.
"""

from __future__ import annotations

from decimal import DecimalException

from ansible.errors import AnsibleFilterError

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._errors import NumaGateError


def adapt(name, func, *args, **kwargs):
    """Call ``func``; a NumaGateError (or a stray ValueError / decimal error) becomes AnsibleFilterError "<name>: <message>"."""
    try:
        return func(*args, **kwargs)
    except (NumaGateError, ValueError, DecimalException) as exc:
        # NumaGateError names the value and the rule; decimal's errors are ArithmeticErrors, not ValueErrors.
        raise AnsibleFilterError("%s: %s" % (name, exc)) from exc
