"""Unit tests for the cpulist filters (plugins/filter/cpulist.py)."""

import pytest

from ansible.errors import AnsibleFilterError

from ansible_collections.gpusmith.numa_gate.plugins.filter.cpulist import FilterModule

FILTERS = FilterModule().filters()


def test_filter_names():
    assert sorted(FILTERS) == ["cpulist_difference", "cpulist_format", "cpulist_parse", "cpulist_union"]


def test_cpulist_parse_and_format():
    assert FILTERS["cpulist_parse"]("0-3,8") == [0, 1, 2, 3, 8]
    assert FILTERS["cpulist_parse"]("") == []
    assert FILTERS["cpulist_format"]([8, 3, 2, 1, 0, 3]) == "0-3,8"
    assert FILTERS["cpulist_format"](["10", 11]) == "10-11"
    assert FILTERS["cpulist_format"]([]) == ""


@pytest.mark.parametrize("name, args, message", [
    ("cpulist_parse", ("0-",), "cpulist_parse: cpulist '0-': '0-' is not a CPU id or a range 'a-b'"),
    ("cpulist_parse", (5,), "cpulist_parse: cpulist 5 is a int, expected a string such as '0-3,8'"),
    ("cpulist_format", ("0-3",), "cpulist_format: '0-3' is a str, expected a list of CPU ids"),
    ("cpulist_format", ([1, True],), "cpulist_format: True in [1, True] is not a CPU id (a whole number >= 0)"),
    ("cpulist_format", ([1, -2],), "cpulist_format: CPU id -2 in [1, -2] is outside 0-65535"),
    ("cpulist_format", ([1, "x"],), "cpulist_format: 'x' in [1, 'x'] is not a CPU id (a whole number >= 0)"),
    ("cpulist_union", ("0-3", "a"), "cpulist_union: cpulist 'a': 'a' is not a CPU id or a range 'a-b'"),
    ("cpulist_difference", ("0-3", None), "cpulist_difference: cpulist is None, expected a string such as '0-3,8'"),
    # Issue 7 rule 9: a NUL inside a cpulist is refused, not deleted (it would merge 0-1 and 5 into 0-15).
    ("cpulist_parse", ("0-1\x005",), "cpulist_parse: cpulist '0-1\\x005' has a NUL byte at offset 3; only trailing NUL padding is ignored"),
])
def test_filter_errors_name_the_value(name, args, message):
    with pytest.raises(AnsibleFilterError) as err:
        FILTERS[name](*args)
    assert str(err.value) == message


def test_cpulist_union_and_difference():
    assert FILTERS["cpulist_union"]("0-1,8", "2-3", "9") == "0-3,8-9"
    assert FILTERS["cpulist_union"]("3,1") == "1,3"
    assert FILTERS["cpulist_difference"]("0-127", "0,64") == "1-63,65-127"
    assert FILTERS["cpulist_difference"]("0-7", "0-3", "6") == "4-5,7"
