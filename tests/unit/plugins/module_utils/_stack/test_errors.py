# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The stack step's error is one of the collection's error family, so the filters turn it into one failed result."""

from __future__ import annotations

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base.errors import NumaGateError
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._stack.errors import StackError


def test_stack_error_is_in_the_family_and_a_value_error():
    assert issubclass(StackError, NumaGateError)
    assert issubclass(StackError, ValueError)
    assert str(StackError("support table entry x: source is missing")) == "support table entry x: source is missing"
