# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Versions and the support table's ranges: what a component reports, compared by its leading numbers."""

from __future__ import annotations

import pytest

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._stack import ranges
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._stack.errors import StackError


@pytest.mark.parametrize("text, parsed", [
    ("v1.37.1", (1, 37, 1)), ("1.37.1-gke.100", (1, 37, 1)), ("26.7.0", (26, 7, 0)), ("580.82.07", (580, 82, 7)),
    ("v1.36.2+k3s1", (1, 36, 2)), ("latest", None), ("", None), (None, None), (True, None),
])
def test_parse_takes_the_leading_numbers(text, parsed):
    assert ranges.parse(text) == parsed


def test_minor():
    assert ranges.minor("v1.37.1") == "1.37"
    assert ranges.minor("26") is None
    assert ranges.minor("unknown") is None


@pytest.mark.parametrize("text, version, inside", [
    ("1.32 - 1.36", "v1.36.9", True), ("1.32 - 1.36", "v1.37.0", False), ("1.32 - 1.36", "1.31.12", False),
    ("1.32 - 1.36", "1.32.0", True), ("26.7", "26.7.3", True), ("26.7", "26.8.0", False), (">= 1.37", "v1.37.0", True),
    (">=1.37", "v1.36.5", False), ("<= 1.36", "v1.36.5", True), ("<=1.36", "1.37", False), ("26.7.0", "26.7.1", False),
])
def test_contains(text, version, inside):
    assert ranges.contains(ranges.parse_range(text, "entry", StackError), ranges.parse(version)) is inside


def test_an_unknown_version_is_in_no_range():
    assert ranges.contains(ranges.parse_range("1.32 - 1.36", "entry", StackError), None) is None


@pytest.mark.parametrize("text, message", [
    ("1.32 -", "e: kubernetes must be a version range (LOW - HIGH, >= LOW, <= HIGH, V), got '1.32 -'"),
    ("1.32 to 1.36", "e: kubernetes must be a version range (LOW - HIGH, >= LOW, <= HIGH, V), got '1.32 to 1.36'"),
    ("1.36 - 1.32", "e: kubernetes: the range '1.36 - 1.32' is empty (1.36 is above 1.32)"),
    (">= one", "e: kubernetes: 'one' is not a version (numbers separated by dots, such as 1.36 or 26.7.0)"),
    ("", "e: kubernetes must be a version range (LOW - HIGH, >= LOW, <= HIGH, V), got ''"),
    (136, "e: kubernetes must be a version range (LOW - HIGH, >= LOW, <= HIGH, V), got 136"),
])
def test_a_malformed_range_is_refused_naming_where(text, message):
    with pytest.raises(StackError) as caught:
        ranges.parse_range(text, "e: kubernetes", StackError)
    assert str(caught.value) == message
