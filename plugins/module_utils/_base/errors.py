# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The collection's one exception family, and the one place a module turns it into a failure.

Every error the collection raises on purpose derives from `NumaGateError`; its message names the
value at fault and the rule it broke. `run_module` is how every module's ``main`` runs its body:
a `NumaGateError` becomes ``fail_json`` with the error's message and details, an ``OSError``
names the file, and anything else is reported once, without a traceback in ``msg``, so no user
ever sees a stack trace.
"""

from __future__ import annotations

import traceback


class NumaGateError(Exception):
    """An input or a state the collection refuses, with what to tell the user.

    ``details`` are extra keys for the module result (never secrets: callers mask first).
    """

    def __init__(self, message, **details):
        super().__init__(message)
        self.details = details


def failure_message(exc):
    """The one-line message a module fails with for ``exc``."""
    if isinstance(exc, NumaGateError):
        return str(exc)
    if isinstance(exc, OSError):
        where = exc.filename or "a node file"
        return "%s: %s" % (where, exc.strerror or exc)
    return "unexpected %s: %s" % (type(exc).__name__, exc)


def run_module(module, body, **context):
    """Call ``body(module)``; turn any exception into ``module.fail_json``.

    ``context`` is merged into the failure result (for example ``root``), so a user sees what the
    module was looking at. ``body`` ends the module itself with ``exit_json``.
    """
    try:
        body(module)
    except Exception as exc:  # pylint: disable=broad-exception-caught
        details = dict(context)
        if isinstance(exc, NumaGateError):
            details.update(exc.details)
        else:
            # Kept for -vvv, never in msg.
            details["exception"] = traceback.format_exc()
        module.fail_json(msg=failure_message(exc), **details)
