"""Unit tests for the reservation_plan filter (plugins/filter/plan.py), and the collection's filter names."""

import pytest

from ansible.errors import AnsibleFilterError

from ansible_collections.gpusmith.numa_gate.plugins.filter import cpulist, locality, plan, quantity
from ansible_collections.gpusmith.numa_gate.plugins.filter.plan import FilterModule
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kubelet.config import merge as _kubelet_merge

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
    # The same names as when one file held them all; locality_oracle had its own file already.
    names = {}
    for module in (cpulist, plan, quantity):
        names.update(module.FilterModule().filters())
    assert sorted(names) == ["bytes_to_quantity", "cpulist_difference", "cpulist_format", "cpulist_parse", "cpulist_union",
                             "quantity_to_bytes", "reservation_plan"]
    assert sorted(FILTERS) == ["reservation_plan"]
    assert sorted(locality.FilterModule().filters()) == ["locality_oracle"]


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


def test_malformed_facts_become_filter_errors():
    facts = machine()
    facts["cores"].append("core 9")
    with pytest.raises(AnsibleFilterError) as err:
        FILTERS["reservation_plan"](facts)
    assert str(err.value) == "reservation_plan: topology cores entry 'core 9' is a str, expected a dict"


NAMES = {"reserved_cpus": "kubelet_plan_reserved_cpus", "reserved_cpu_list": "kubelet_plan_reserved_cpu_list",
         "kubelet_settings": "kubelet_plan_settings"}


def test_reservation_plan_filter_names_the_callers_variables():
    # The kubelet_plan role passes its variable names: a refusal names what the operator sets, once, with no chained cause.
    with pytest.raises(AnsibleFilterError) as err:
        FILTERS["reservation_plan"](machine(), {"reserved_cpus": 6}, None, names=NAMES)
    assert str(err.value) == ("reservation_plan: kubelet_plan_reserved_cpus 6 needs 6 logical CPUs in whole cores, but only 2 whole "
                              "cores (4 logical CPUs) can be reserved while keeping one whole core allocatable on each NUMA node with "
                              "CPUs (node 0: 2 usable cores; node 1: 2 usable cores)")
    assert err.value.__cause__ is None
    returned = FILTERS["reservation_plan"](machine(), {"reserved_cpu_list": "0-1", "reserved_cpus": 2}, None, names=NAMES, errors="return")
    assert returned == {"error": "policy sets both kubelet_plan_reserved_cpus (2) and kubelet_plan_reserved_cpu_list ('0-1'); give one of them"}
    # A plan that fits is the same with or without names; its warnings name the variables too.
    plan = FILTERS["reservation_plan"](machine(), {"reserved_cpus": 1}, None, names=NAMES, errors="return")
    assert plan["kubelet_settings"] == FILTERS["reservation_plan"](machine(), {"reserved_cpus": 1})["kubelet_settings"]
    assert [w for w in plan["warnings"] if "rounded up" in w] == [
        "kubelet_plan_reserved_cpus 1 rounded up to 2 logical CPUs (1 whole cores): SMT siblings are reserved together"]
    with pytest.raises(AnsibleFilterError, match=r"^reservation_plan: errors 'ignore' is not one of raise, return$"):
        FILTERS["reservation_plan"](machine(), {}, None, errors="ignore")
    with pytest.raises(AnsibleFilterError, match=r"^reservation_plan: names \['x'\] is not a dict"):
        FILTERS["reservation_plan"](machine(), {}, None, names=["x"])
