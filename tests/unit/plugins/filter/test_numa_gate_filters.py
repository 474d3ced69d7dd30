"""Unit tests for the gpusmith.numa_gate filters (plugins/filter/numa_gate.py)."""

from decimal import InvalidOperation

import pytest

from ansible.errors import AnsibleFilterError

from ansible_collections.gpusmith.numa_gate.plugins.filter import numa_gate
from ansible_collections.gpusmith.numa_gate.plugins.filter.numa_gate import FilterModule
from ansible_collections.gpusmith.numa_gate.plugins.module_utils import _kubelet_merge

FILTERS = FilterModule().filters()


def machine():
    """Two NUMA nodes of 2 cores x SMT2 (CPU = core + thread x 4), 4Gi each, a GPU on node 0."""
    return {
        "schema_version": 1,
        "cpus": {"online": "0-7", "offline": "", "isolated": ""},
        "cores": [{"package": c // 2, "core": c, "cpus": "%d,%d" % (c, c + 4), "numa_node": c // 2} for c in range(4)],
        "numa_nodes": [{"id": 0, "cpus": "0-1,4-5", "memory_bytes": 4 << 30, "hugepages": {}},
                       {"id": 1, "cpus": "2-3,6-7", "memory_bytes": 4 << 30, "hugepages": {}}],
        "gpus": [{"pci_address": "0000:18:00.0", "numa_node": 0}],
        "nics": [],
    }


def test_filter_names():
    assert sorted(FILTERS) == ["bytes_to_quantity", "cpulist_difference", "cpulist_format", "cpulist_parse", "cpulist_union",
                               "quantity_to_bytes", "reservation_plan"]


def test_reservation_plan_filter():
    plan = FILTERS["reservation_plan"](machine(), {"system_reserved": {"memory": "1Gi"}})
    assert plan["kubelet_settings"]["reservedSystemCPUs"] == "2,6"
    assert plan["kubelet_settings"]["reservedMemory"] == [{"numaNode": 1, "limits": {"memory": "1124Mi"}}]
    assert plan["reserved"]["memory_bytes"] == {"1": 1178599424}
    assert FILTERS["reservation_plan"](machine()) == FILTERS["reservation_plan"](machine(), {})


def test_reservation_plan_filter_with_the_node_config():
    # facts | reservation_plan(policy, base_config): the node's own systemReserved and evictionHard are counted, not rewritten.
    node = _kubelet_merge.effective_config({"apiVersion": "kubelet.config.k8s.io/v1beta1", "kind": "KubeletConfiguration",
                                            "systemReserved": {"memory": "1Gi"}, "evictionHard": {"memory.available": "200Mi"}}, [])
    plan = FILTERS["reservation_plan"](machine(), {"kube_reserved": {"memory": "100Mi"}}, dict(node))
    assert plan["kubelet_settings"]["reservedMemory"] == [{"numaNode": 1, "limits": {"memory": "1324Mi"}}]
    assert "systemReserved" not in plan["kubelet_settings"] and "evictionHard" not in plan["kubelet_settings"]
    assert FILTERS["reservation_plan"](machine(), {}, None) == FILTERS["reservation_plan"](machine())
    with pytest.raises(AnsibleFilterError, match=r"^reservation_plan: base_config 'x' is a str"):
        FILTERS["reservation_plan"](machine(), {}, "x")


def test_reservation_plan_filter_errors():
    with pytest.raises(AnsibleFilterError) as err:
        FILTERS["reservation_plan"](machine(), {"reserved_cpus": 6})
    assert str(err.value) == ("reservation_plan: reserved_cpus 6 needs 6 logical CPUs in whole cores, but only 2 whole cores (4 logical CPUs) "
                              "can be reserved while keeping one whole core allocatable on each NUMA node with CPUs (node 0: 2 usable cores; "
                              "node 1: 2 usable cores)")
    with pytest.raises(AnsibleFilterError, match=r"^reservation_plan: topology schema_version None is not supported"):
        FILTERS["reservation_plan"]({}, {})


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
    ("quantity_to_bytes", ("1GB",), "quantity_to_bytes: quantity '1GB' does not match the Kubernetes quantity format '<number><suffix>' "
                                    "(suffixes Ki Mi Gi Ti Pi Ei, m k M G T P E, or eN)"),
    ("quantity_to_bytes", ("-1Mi",), "quantity_to_bytes: quantity '-1Mi' is negative; memory quantities must be >= 0"),
    ("bytes_to_quantity", ("1024",), "bytes_to_quantity: byte count '1024' is not an integer"),
    ("bytes_to_quantity", (-1,), "bytes_to_quantity: byte count -1 is negative"),
])
def test_filter_errors_name_the_value(name, args, message):
    with pytest.raises(AnsibleFilterError) as err:
        FILTERS[name](*args)
    assert str(err.value) == message


def test_decimal_errors_become_filter_errors(monkeypatch):
    # decimal's errors are ArithmeticErrors, not ValueErrors; the filters must still turn them into AnsibleFilterError.
    def broken(value):
        raise InvalidOperation([InvalidOperation])

    monkeypatch.setattr(numa_gate._quantity, "to_bytes", broken)
    with pytest.raises(AnsibleFilterError, match=r"^quantity_to_bytes: "):
        FILTERS["quantity_to_bytes"]("1Gi")


def test_malformed_facts_become_filter_errors():
    facts = machine()
    facts["cores"].append("core 9")
    with pytest.raises(AnsibleFilterError) as err:
        FILTERS["reservation_plan"](facts)
    assert str(err.value) == "reservation_plan: topology cores entry 'core 9' is a str, expected a dict"


def test_cpulist_union_and_difference():
    assert FILTERS["cpulist_union"]("0-1,8", "2-3", "9") == "0-3,8-9"
    assert FILTERS["cpulist_union"]("3,1") == "1,3"
    assert FILTERS["cpulist_difference"]("0-127", "0,64") == "1-63,65-127"
    assert FILTERS["cpulist_difference"]("0-7", "0-3", "6") == "4-5,7"


def test_quantities():
    assert FILTERS["quantity_to_bytes"]("1124Mi") == 1178599424
    assert FILTERS["quantity_to_bytes"]("1G") == 1000000000
    assert FILTERS["quantity_to_bytes"]("0.5") == 1
    assert FILTERS["quantity_to_bytes"](4096) == 4096
    assert FILTERS["bytes_to_quantity"](1178599424) == "1124Mi"
    assert FILTERS["bytes_to_quantity"](1000000000) == "1000000000"
    assert FILTERS["bytes_to_quantity"](0) == "0"
