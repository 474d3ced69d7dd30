"""Unit tests for the kubelet configuration rules.

Every expected message is the kubelet's own wording (see the upstream file
each rule in plugins/module_utils/_kubelet/rules_*.py cites); the tests assert it exactly.
The invalid configurations and the canary live in tests/unit/plugins/kubelet_cases.py.
"""

import copy
import struct

import pytest

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kubelet.rules import allocatable
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kubelet.config import merge
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kubelet.rules import validate as kv
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kubelet.rules import wording
from ansible_collections.gpusmith.numa_gate.tests.unit.plugins.kubelet_cases import CANARY, GI, INVALID, MI, NODE, QUANTITY_FORMAT


def canary(**changes):
    config = copy.deepcopy(CANARY)
    return merge.merge_patch(config, changes)


def messages(config, node=None):
    return [p.message for p in kv.validate(config, NODE if node is None else node)]


def test_canary_is_accepted():
    assert kv.validate(canary(), NODE) == []


def test_canary_without_node_is_accepted():
    assert kv.validate(canary(), None) == []


def test_canary_through_merge_is_accepted():
    main = {"apiVersion": merge.API_VERSION, "kind": merge.KIND, "kubeReserved": {"memory": "1Gi"}, "systemReserved": {"memory": "1Gi"}}
    drop = {k: v for k, v in CANARY.items() if k not in ("kubeReserved", "systemReserved", "evictionHard")}
    eff = merge.effective_config(main, [("/d/50-numa-gate.conf", drop)], "/main.yaml")
    assert eff["evictionHard"]["memory.available"] == "100Mi"
    assert kv.validate(eff, NODE) == []


@pytest.mark.parametrize("name, changes, key, message", INVALID, ids=[case[0] for case in INVALID])
def test_invalid_configuration_is_rejected_with_kubelet_wording(name, changes, key, message):
    node = NODE
    if name == "too many NUMA nodes":
        node = {"online_cpus": "0-15", "numa_nodes": {i: 8 * GI for i in range(9)}}
        changes = {"reservedMemory": [{"numaNode": 0, "limits": {"memory": "2148Mi"}}]}
    problems = kv.validate(canary(**changes), node)
    assert (key, message) in [(p.key, p.message) for p in problems], problems


def test_there_are_at_least_twenty_invalid_cases():
    assert len(INVALID) >= 20


def test_max_allowable_numa_nodes_allows_more_nodes():
    node = {"online_cpus": "0-15", "numa_nodes": {i: 8 * GI for i in range(9)}}
    config = canary(topologyManagerPolicyOptions={"max-allowable-numa-nodes": "16"},
                    reservedMemory=[{"numaNode": 8, "limits": {"memory": "2148Mi"}}])
    assert kv.validate(config, node) == []


def test_more_than_eight_nodes_is_fine_with_policy_none():
    node = {"online_cpus": "0-15", "numa_nodes": {i: 8 * GI for i in range(9)}}
    config = canary(topologyManagerPolicy="none", reservedMemory=[{"numaNode": 0, "limits": {"memory": "2148Mi"}}])
    assert kv.validate(config, node) == []


def test_problem_names_the_file_that_set_the_key():
    main = {"apiVersion": merge.API_VERSION, "kind": merge.KIND, "kubeReserved": {"memory": "1Gi"}, "systemReserved": {"memory": "1Gi"}}
    drop = {k: v for k, v in CANARY.items() if k not in ("kubeReserved", "systemReserved", "evictionHard")}
    drop["memoryManagerPolicy"] = "static"
    later = {"apiVersion": merge.API_VERSION, "kind": merge.KIND, "topologyManagerScope": "Pod"}
    eff = merge.effective_config(main, [("/d/50-numa-gate.conf", drop), ("/d/90-site.conf", later)], "/main.yaml")
    problems = {p.key: p for p in kv.validate(eff, NODE)}
    assert problems["memoryManagerPolicy"].source == "/d/50-numa-gate.conf"
    assert problems["topologyManagerScope"].source == "/d/90-site.conf"
    assert str(problems["topologyManagerScope"]).startswith("/d/90-site.conf: topologyManagerScope: invalid configuration:")
    assert problems["memoryManagerPolicy"].rule == "pkg/kubelet/cm/memorymanager/memory_manager.go"
    assert problems["memoryManagerPolicy"].hint == "policy names are case-sensitive: None | Static"


def test_sum_hint_lists_where_the_parts_come_from():
    main = {"apiVersion": merge.API_VERSION, "kind": merge.KIND, "kubeReserved": {"memory": "1Gi"}, "systemReserved": {"memory": "1Gi"}}
    drop = {k: v for k, v in CANARY.items() if k not in ("kubeReserved", "systemReserved", "evictionHard")}
    drop["reservedMemory"] = [{"numaNode": 0, "limits": {"memory": "2Gi"}}]
    eff = merge.effective_config(main, [("/d/50.conf", drop)], "/main.yaml")
    [problem] = kv.validate(eff, NODE)
    assert problem.source == "/d/50.conf"
    assert problem.hint == ("it must equal kubeReserved.memory + systemReserved.memory + evictionHard memory.available "
                            "(kubeReserved.memory from /main.yaml, systemReserved.memory from /main.yaml, "
                            "evictionHard.memory.available from (kubelet default))")


def test_static_cpu_policy_with_kube_reserved_cpu_is_fine():
    assert kv.validate(canary(reservedSystemCPUs=None, kubeReserved={"cpu": "500m"}), NODE) == []


def test_static_cpu_reservation_larger_than_the_node():
    problems = messages(canary(reservedSystemCPUs=None, kubeReserved={"cpu": "17"}))
    assert "[cpumanager] unable to reserve the required amount of CPUs (size of 0-15 did not equal 17)" in problems
    assert ('invalid Node Allocatable configuration. Resource "cpu" has a reservation of 17 but capacity of 16. '
            "Expected capacity >= reservation.") in problems


def test_reserved_memory_larger_than_its_numa_node():
    node = {"online_cpus": "0-15", "numa_nodes": {0: 1 * GI, 1: 63 * GI}, "memory_bytes": 64 * GI}
    assert messages(canary(), node) == ["reserved memory 1124Mi for NUMA node 0 is larger than the node's memory 1Gi"]


def test_memory_manager_needs_some_reserved_memory():
    config = canary(evictionHard={"memory.available": None, "nodefs.available": "10%"}, kubeReserved=None, systemReserved=None,
                    reservedMemory=None)
    assert messages(config) == ["[memorymanager] you should specify the system reserved memory"]


def test_memory_manager_none_ignores_reserved_memory_sums():
    assert kv.validate(canary(memoryManagerPolicy="None", reservedMemory=[{"numaNode": 5, "limits": {"memory": "1Gi"}}]), NODE) == []


def test_percentage_eviction_is_resolved_against_node_memory():
    # eviction/helpers.go parsePercentage: float32(value) / 100; GetThresholdQuantity: int64(float64(capacity) * float64(pct)).
    pct = struct.unpack("f", struct.pack("f", 5.0 / 100))[0]
    assert int(float(64 * GI) * pct) == 3435973888
    assert allocatable.reserved_memory_total(canary(evictionHard={"memory.available": "5%"}), 64 * GI) == 2 * GI + 3435973888


def test_percentage_eviction_without_node_memory_skips_sums():
    assert kv.validate(canary(evictionHard={"memory.available": "5%"}), {"online_cpus": "0-15"}) == []


def test_reserved_memory_total_defaults():
    config = {"kubeReserved": {"memory": "1Gi"}, "systemReserved": {"memory": "512Mi"}}
    assert allocatable.reserved_memory_total(config, 64 * GI) == GI + 512 * MI + 100 * MI


def test_reserved_memory_total_ignore_eviction_threshold():
    config = {"kubeReserved": {"memory": "1Gi"}, "experimentalNodeAllocatableIgnoreEvictionThreshold": True}
    assert allocatable.reserved_memory_total(config, 64 * GI) == GI


def test_reserved_memory_total_refuses_bad_values():
    with pytest.raises(kv.KubeletValidationError) as err:
        allocatable.reserved_memory_total({"kubeReserved": {"memory": "lots"}}, GI)
    assert 'failed to parse quantity "lots" for "memory" resource' in str(err.value)


def test_node_allocatable_reservation_reserved_cpus_replace_cpu_reservations():
    config = {"reservedSystemCPUs": "0-3", "kubeReserved": {"cpu": "1", "memory": "1Gi"}, "systemReserved": {"cpu": "500m"}}
    assert allocatable.node_allocatable_reservation(config, 64 * GI) == {"cpu": 4000, "memory": GI + 100 * MI}


@pytest.mark.parametrize("config, expected", [
    ({}, allocatable.DEFAULT_EVICTION_HARD),
    ({"evictionHard": {"memory.available": "1Gi"}},
     {"memory.available": "1Gi", "nodefs.available": "0", "nodefs.inodesFree": "0", "imagefs.available": "0", "imagefs.inodesFree": "0"}),
    ({"evictionHard": {"memory.available": "1Gi"}, "mergeDefaultEvictionSettings": True},
     {"memory.available": "1Gi", "nodefs.available": "10%", "nodefs.inodesFree": "5%", "imagefs.available": "15%", "imagefs.inodesFree": "5%"}),
    ({"evictionHard": {"pid.available": "10%"}},
     {"memory.available": "0", "nodefs.available": "0", "nodefs.inodesFree": "0", "imagefs.available": "0", "imagefs.inodesFree": "0",
      "pid.available": "10%"}),
])
def test_effective_eviction_hard(config, expected):
    assert allocatable.effective_eviction_hard(config) == expected


def test_effective_eviction_hard_refuses_a_non_mapping():
    with pytest.raises(kv.KubeletValidationError):
        allocatable.effective_eviction_hard({"evictionHard": "memory.available<1Gi"})


def test_eviction_zero_and_hundred_percent_mean_no_threshold():
    assert allocatable.reserved_memory_total({"evictionHard": {"memory.available": "0%"}}, GI) == 0
    assert allocatable.reserved_memory_total({"evictionHard": {"memory.available": "100%"}}, GI) == 0


def test_eviction_hard_not_a_mapping_is_reported():
    assert ("evictionHard", "json: cannot unmarshal string into Go struct field KubeletConfiguration.evictionHard of type map[string]string") in [
        (p.key, p.message) for p in kv.validate(canary(evictionHard="memory.available<100Mi"), NODE)]


def test_problem_as_dict():
    [problem] = kv.validate(canary(cpuManagerPolicy="Static"), NODE)
    assert problem.as_dict() == {
        "key": "cpuManagerPolicy", "message": 'unknown policy: "Static"', "source": None,
        "rule": "pkg/kubelet/cm/cpumanager/cpu_manager.go", "hint": "policy names are case-sensitive: none | static",
        "text": '<config>: cpuManagerPolicy: unknown policy: "Static" (policy names are case-sensitive: none | static)',
    }


def test_config_not_a_mapping():
    [problem] = kv.validate(["x"], NODE)
    assert problem.message == "the configuration is a list, not a mapping"


def test_bad_node_is_refused():
    with pytest.raises(kv.KubeletValidationError):
        kv.validate(canary(), {"online_cpus": "x"})


def test_other_gates_are_left_alone():
    assert kv.validate(canary(featureGates={"MemoryQoS": True, "InPlacePodVerticalScaling": True}), NODE) == []


def test_format_bytes_matches_quantity_string():
    assert wording.format_bytes(0) == "0"
    assert wording.format_bytes(100) == "100"
    assert wording.format_bytes(1024) == "1Ki"
    assert wording.format_bytes(2148 * MI) == "2148Mi"
    assert wording.format_bytes(1500) == "1500"


def test_shared_cases_quote_the_quantity_format_the_rules_use():
    assert QUANTITY_FORMAT == wording.QUANTITY_FORMAT


def test_a_reservation_beyond_int64_is_a_problem_not_an_exception():
    config = canary(reservedMemory=[{"numaNode": 0, "limits": {"memory": "1e30"}}])
    assert ('the total amount "1000000000000000000000000000000" of type "memory" is not equal to the value "2148Mi" '
            "determined by Node Allocatable feature") in messages(config)


def test_a_huge_reserved_cpu_range_is_refused_by_the_cpulist_bound():
    [problem] = kv.validate(canary(reservedSystemCPUs="0-1000000"), NODE)
    assert problem.key == "reservedSystemCPUs"
    assert problem.message.startswith("invalid configuration: unable to parse reservedSystemCPUs (--reserved-cpus) 0-1000000, error: ")
