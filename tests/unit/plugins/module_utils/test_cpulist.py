"""Unit tests for the cpulist helpers."""

import pytest

from ansible_collections.gpusmith.numa_gate.plugins.module_utils import _cpulist as cpulist


@pytest.mark.parametrize(
    "text, expected",
    [
        ("", []),
        ("0", [0]),
        ("0-3,8", [0, 1, 2, 3, 8]),
        ("8,0-3", [0, 1, 2, 3, 8]),
        ("0-3,2-5", [0, 1, 2, 3, 4, 5]),
        ("0-3,8\n\x00\x00", [0, 1, 2, 3, 8]),
        (" 1 , 3 ", [1, 3]),
    ],
)
def test_parse(text, expected):
    assert cpulist.parse(text) == expected


@pytest.mark.parametrize(
    "text, fragment",
    [
        ("a", "'a' is not a CPU id"),
        ("1-", "'1-' is not a CPU id"),
        ("3-1", "range '3-1' ends before it starts"),
        ("0-3,", "'' is not a CPU id"),
        ("0-70000", "above the limit"),
        ("-1", "'-1' is not a CPU id"),
    ],
)
def test_parse_rejects(text, fragment):
    with pytest.raises(cpulist.CpuListError) as err:
        cpulist.parse(text)
    assert fragment in str(err.value)
    assert repr(text) in str(err.value)


def test_parse_rejects_non_string():
    with pytest.raises(cpulist.CpuListError, match="is a int"):
        cpulist.parse(5)


@pytest.mark.parametrize(
    "mask, expected",
    [
        ("", []),
        ("00000001", [0]),
        ("ff,00000001", [0, 32, 33, 34, 35, 36, 37, 38, 39]),
        ("00000000,00000000,0000ffff\n", list(range(16))),
        ("80000000", [31]),
    ],
)
def test_parse_mask(mask, expected):
    assert cpulist.parse_mask(mask) == expected


def test_parse_mask_rejects_long_word():
    with pytest.raises(cpulist.CpuListError, match="not a hex word"):
        cpulist.parse_mask("1ffffffff")


@pytest.mark.parametrize(
    "cpus, expected",
    [([], ""), ([5], "5"), ([0, 1, 2, 3, 8, 10, 11], "0-3,8,10-11"), ([3, 1, 2, 1], "1-3"), ({4, 6}, "4,6")],
)
def test_format(cpus, expected):
    assert cpulist.format(cpus) == expected


def test_set_operations():
    assert cpulist.union("0-3", "2-5", "") == "0-5"
    assert cpulist.difference("0-7", "2-3", "6") == "0-1,4-5,7"
    assert cpulist.intersection("0-7", "4-12") == "4-7"
    assert cpulist.canonical("3,2,1,7") == "1-3,7"
