# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What every part of the device path shares: the error it raises and the shape of a finding.

Public: `DevicePathError`, `finding`, `flag_text`, `RESULTS`.

A finding has the keys of the placement findings (`_evidence.inputs.FINDING`: ``check``, ``result``,
``message``, ``expected``, ``observed``, ``sources``) plus ``subject``, the device or resource it is about,
so the record's placement table and the verdict read both the same way. ``agree`` is only ever written
when a value was compared with the host's and matched; a value that is absent is ``unknown``.
"""

from __future__ import annotations

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base.errors import NumaGateError

RESULTS = ("agree", "disagree", "unknown")


class DevicePathError(NumaGateError, ValueError):
    """An API answer or an input the device path cannot read; the message names the object and the field."""


def finding(check, result, subject, message, expected=None, observed=None, sources=None):
    """One finding (see the module docstring)."""
    if result not in RESULTS:
        raise DevicePathError("finding %s: result must be one of %s, not %r" % (check, ", ".join(RESULTS), result))
    return {"check": check, "result": result, "subject": subject, "message": message, "expected": expected, "observed": observed,
            "sources": dict(sources or {})}


def flag_text(args, flag, boolean=False):
    """The text of a Go flag (``-flag``, ``--flag``, ``=value`` or the next argument) in a container's command and args, or None.

    Both plugins parse their command line with Go's flag package (urfave/cli for NVIDIA's), which takes one or two dashes;
    a bare boolean flag is "true"; the last one given wins.
    """
    found = None
    for index, arg in enumerate(args):
        for prefix in ("--" + flag, "-" + flag):
            if arg == prefix:
                if boolean:
                    found = "true"
                elif index + 1 < len(args):
                    found = args[index + 1]
            elif arg.startswith(prefix + "="):
                found = arg[len(prefix) + 1:]
    return found
