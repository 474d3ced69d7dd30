# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The one place the controller-side steps turn an error into a failed task result.

Public: `outcome`.
"""

from __future__ import annotations

import traceback

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base.errors import NumaGateError, failure_message


def outcome(body, **context):
    """``body()``'s result dict, or a failed result: ``msg`` from the error, its ``details`` and ``context`` merged in.

    ``changed`` stays what the error's details say (a drain that cordoned before it failed changed
    the node); otherwise False. Errors that are not NumaGateError keep their traceback in ``exception``.
    """
    try:
        return dict(context, **body())
    except Exception as exc:  # pylint: disable=broad-exception-caught
        result = dict(context, failed=True, msg=failure_message(exc))
        if isinstance(exc, NumaGateError):
            result.update(exc.details)
        else:
            result["exception"] = traceback.format_exc()
        result["changed"] = bool(result.get("changed", False))
        return result
