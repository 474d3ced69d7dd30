# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The record step's one error.

Public: `RecordError`.
"""

from __future__ import annotations

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base.errors import NumaGateError


class RecordError(NumaGateError, ValueError):
    """Evidence, a policy or a record the record step refuses; the message names the value and the rule."""
