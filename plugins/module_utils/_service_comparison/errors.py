# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The service comparison's one error.

Public: `ServiceComparisonError`.
"""

from __future__ import annotations

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base.errors import NumaGateError


class ServiceComparisonError(NumaGateError):
    """A load run, a window, a setting or an objective the service comparison refuses; the message names the value."""
