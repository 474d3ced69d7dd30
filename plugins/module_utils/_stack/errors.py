# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The stack step's one error.

Public: `StackError`.
"""

from __future__ import annotations

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base.errors import NumaGateError


class StackError(NumaGateError, ValueError):
    """A support table entry, a version range or an eligibility setting the stack step refuses; the message names the entry and the rule."""
