"""The filters' one adapter: plain arguments in, the collection's errors out as AnsibleFilterError."""

from collections import OrderedDict, UserDict, UserList

import pytest

from ansible.errors import AnsibleFilterError

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base.errors import NumaGateError
from ansible_collections.gpusmith.numa_gate.plugins.plugin_utils import filters


def test_arguments_arrive_as_plain_dicts_and_lists():
    seen = []

    def func(value, option=None):
        seen.append((value, option))
        return "ok"

    wrapped = UserDict({"a": UserList([1, (2, 3)]), 4: OrderedDict(b="c")})
    assert filters.adapt("f", func, wrapped, option=UserList(["x"])) == "ok"
    value, option = seen[0]
    assert value == {"a": [1, [2, 3]], 4: {"b": "c"}} and option == ["x"]
    # Plain built-in types, not the wrappers (UserDict and UserList are not dict and list subclasses).
    assert isinstance(value, dict) and isinstance(value["a"], list) and isinstance(value[4], dict) and isinstance(option, list)


def test_collection_errors_name_the_filter():
    def func():
        raise NumaGateError("cpulist '0-1' has a NUL byte at offset 3")

    with pytest.raises(AnsibleFilterError) as raised:
        filters.adapt("cpulist_parse", func)
    assert str(raised.value) == "cpulist_parse: cpulist '0-1' has a NUL byte at offset 3"
