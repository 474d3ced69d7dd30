"""Unit tests for the cpulist helpers."""

import pytest

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import cpulist


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


@pytest.mark.parametrize("text, offset", [("0-1\x005", 3), ("\x000-3", 0), ("0-3\x00,8\n", 3)])
def test_a_nul_inside_a_cpulist_is_refused_not_deleted(text, offset):
    # Issue 7 rule 9: deleting it merged tokens ("0-1\0005" became CPUs 0-1005); only trailing NUL padding may go.
    with pytest.raises(cpulist.CpuListError) as err:
        cpulist.parse(text)
    assert str(err.value) == "cpulist %r has a NUL byte at offset %d; only trailing NUL padding is ignored" % (text, offset)


def test_a_nul_inside_a_cpumask_is_refused():
    with pytest.raises(cpulist.CpuListError) as err:
        cpulist.parse_mask("f\x00f")
    assert str(err.value) == "cpumask 'f\\x00f' has a NUL byte at offset 1; only trailing NUL padding is ignored"
    assert cpulist.parse_mask("ff\n\x00") == list(range(8))


def test_check_ids_names_the_value():
    assert cpulist.check_ids(["10", 11]) == [10, 11]
    with pytest.raises(cpulist.CpuListError) as err:
        cpulist.check_ids([1, 65536])
    assert str(err.value) == "CPU id 65536 in [1, 65536] is outside 0-65535"


def test_errors_are_numa_gate_errors_and_value_errors():
    from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base.errors import NumaGateError
    assert issubclass(cpulist.CpuListError, NumaGateError) and issubclass(cpulist.CpuListError, ValueError)
