"""Memory placement (_plan/memory.py): how much reservedMemory, on which NUMA nodes, to the byte."""

import os

import pytest

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kubelet.rules import allocatable as _allocatable
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kubelet.rules import validate as _validate
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts import schema as _schema
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts.gather import gather
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._plan import memory
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._plan.plan import PlanError, reservation_plan
from ansible_collections.gpusmith.numa_gate.tests.unit import shared_paths
from ansible_collections.gpusmith.numa_gate.tests.unit.plugins.module_utils._plan.plan_machines import GI, MI, base, machine, module_view


def test_memory_is_split_by_reserved_cpus_and_sums_exactly():
    plan = reservation_plan(machine(), {"reserved_cpus": 4, "strategy": "spread", "system_reserved": {"memory": "1Gi"}})
    assert plan["kubelet_settings"]["reservedMemory"] == [{"numaNode": 0, "limits": {"memory": "562Mi"}},
                                                          {"numaNode": 1, "limits": {"memory": "562Mi"}}]
    assert plan["reserved"]["memory_bytes"] == {"0": 562 * MI, "1": 562 * MI}
    assert plan["kubelet_settings"]["systemReserved"] == {"memory": "1Gi"}


def test_odd_totals_are_split_to_the_byte():
    plan = reservation_plan(machine(), {"reserved_cpus": 6, "strategy": "spread", "kube_reserved": {"memory": "1000001"},
                                        "eviction_hard": {"memory.available": "1"}})
    # 1000002 bytes over 4 CPUs on node 0 and 2 on node 1: 666668 + 333334
    assert plan["reserved"]["memory_bytes"] == {"0": 666668, "1": 333334}
    assert plan["kubelet_settings"]["reservedMemory"] == [{"numaNode": 0, "limits": {"memory": "666668"}},
                                                          {"numaNode": 1, "limits": {"memory": "333334"}}]


ZERO = ("kubeReserved + systemReserved memory is 0 (%s, systemReserved memory 0 (kubelet default)): the OS and the kubelet get no "
        "reserved memory, only the eviction threshold; the tiered default would reserve 2662Mi (kubelet_plan_reserved_memory_default: "
        "tiered, or set kubelet_plan_kube_reserved memory)")


def test_percentage_eviction_is_taken_of_node_memory():
    plan = reservation_plan(machine(), {"reserved_cpus": 4, "strategy": "spread", "system_reserved": {"memory": "1Gi"},
                                        "eviction_hard": {"memory.available": "25%"}})
    # 1Gi + 25% of 16Gi = 5Gi, half on each node
    assert plan["reserved"]["memory_bytes"] == {"0": 2560 * MI, "1": 2560 * MI}
    assert plan["kubelet_settings"]["evictionHard"] == {"memory.available": "25%"}
    assert "evictionHard memory.available 25% is resolved against 17179869184 bytes (the sum of NUMA node memory); the kubelet uses " \
           "its own memory capacity" in plan["warnings"]


def test_percentage_eviction_uses_the_kubelet_float32_arithmetic():
    facts = machine()
    policy = {"reserved_cpus": 2, "strategy": "compact", "eviction_hard": {"memory.available": "10%"}, "reserved_memory_default": "none"}
    plan = reservation_plan(facts, policy)
    # float32(10)/100 = 0.100000001490116...; int64(17179869184 x that) = 1717986944 (exact decimal would be 1717986918)
    assert plan["reserved"]["memory_bytes"] == {"0": 1717986944}
    assert plan["reserved"]["memory_bytes"]["0"] == _allocatable.reserved_memory_total({"evictionHard": {"memory.available": "10%"}}, 16 * GI)


def test_no_memory_reservation_is_refused():
    # A drop-in cannot zero memory.available any more (it merges over the defaults); a main file without it can.
    with pytest.raises(PlanError) as err:
        reservation_plan(machine(), {"eviction_hard": {"nodefs.available": "10%"}, "reserved_memory_default": "none"},
                         base(evictionHard={"nodefs.available": "10%"}))
    assert str(err.value) == ("kubeReserved + systemReserved + evictionHard memory.available reserve no memory (kubeReserved memory 0 "
                              "(kubelet default), systemReserved memory 0 (kubelet default), evictionHard memory.available 0 (not set: evictionHard omits "
                              "it, so no threshold)); the Memory Manager Static policy needs a non-zero reservation (\"you should specify "
                              "the system reserved memory\")")


def test_percentages_are_taken_of_memtotal_not_the_numa_sum():
    # MemTotal (facts memory_bytes) is a little more than the NUMA nodes' sum; the kubelet's capacity is MemTotal.
    facts = machine()
    facts["memory_bytes"] = 16 * GI + 5 * MI
    plan = reservation_plan(facts, {"eviction_hard": {"memory.available": "10%"}, "reserved_memory_default": "none"})
    expected = _allocatable.reserved_memory_total({"evictionHard": {"memory.available": "10%"}}, 16 * GI + 5 * MI)
    assert plan["reserved"]["memory_bytes"] == {"0": expected}
    assert expected != _allocatable.reserved_memory_total({"evictionHard": {"memory.available": "10%"}}, 16 * GI)
    assert "evictionHard memory.available 10% is resolved against 17185112064 bytes (topology memory_bytes); the kubelet uses " \
           "its own memory capacity" in plan["warnings"]
    assert _validate.validate(module_view({}, plan), _schema.kubelet_node(facts)) == []


def test_memory_overflows_to_other_nodes_within_their_memory():
    # node 0 has 2Gi of which a 1Gi hugepage pool: only 1Gi of regular memory for 1124Mi
    facts = machine(memory=[2 * GI, 8 * GI], hugepages={0: {"1048576kB": {"total": 1, "free": 1}}})
    plan = reservation_plan(facts, {"reserved_cpus": 2, "strategy": "compact", "system_reserved": {"memory": "1Gi"}})
    assert plan["kubelet_settings"]["reservedMemory"] == [{"numaNode": 0, "limits": {"memory": "1Gi"}},
                                                          {"numaNode": 1, "limits": {"memory": "100Mi"}}]
    assert plan["reasons"][-1] == ("reservedMemory overflowed to NUMA nodes 1 without reserved CPUs: the nodes with reserved CPUs have "
                                   "too little memory")
    assert plan["allocatable"]["0"]["memory_bytes"] == 0


def test_memory_falls_back_to_finer_units_when_whole_mi_do_not_fit():
    # three nodes of 40.5Mi; 121Mi does not fit in whole Mi (40 + 40 + 40) but does in Ki
    facts = machine(nodes=3, cores=2, memory=81 * MI // 2)
    plan = reservation_plan(facts, {"reserved_cpus": 2, "strategy": "compact", "system_reserved": {"memory": "21Mi"}})
    assert plan["kubelet_settings"]["reservedMemory"] == [{"numaNode": 0, "limits": {"memory": "41472Ki"}},
                                                          {"numaNode": 1, "limits": {"memory": "41472Ki"}},
                                                          {"numaNode": 2, "limits": {"memory": "40Mi"}}]


def test_memory_that_fits_nowhere_is_refused():
    with pytest.raises(PlanError) as err:
        reservation_plan(machine(), {"system_reserved": {"memory": "16Gi"}})
    assert str(err.value) == ("reserved memory 16484Mi (17284726784 bytes) does not fit in the NUMA nodes' memory less their hugepage "
                              "pools (17179869184 bytes in all)")


def test_unknown_hugepage_counts_are_taken_as_zero_with_a_warning():
    facts = machine(hugepages={0: {"2048kB": {"total": None, "free": None}}})
    plan = reservation_plan(facts, {"reserved_cpus": 2, "kube_reserved": {"memory": "0"}})
    assert plan["warnings"] == ["NUMA node 0 hugepages 2048kB total is unknown; taken as 0 pages", ZERO % "kubeReserved memory 0 (policy)"]
    assert plan["allocatable"]["0"]["memory_bytes"] == 8 * GI - 100 * MI


def test_largest_remainder_splits_exactly_ties_to_the_lower_id():
    assert memory.largest_remainder(10, {0: 1, 1: 1, 2: 1}) == {0: 4, 1: 3, 2: 3}
    assert memory.largest_remainder(7, {3: 2, 1: 1}) == {1: 2, 3: 5}
    assert sum(memory.largest_remainder(1001, {0: 3, 1: 5, 2: 7}).values()) == 1001


def test_place_overflows_by_id_within_each_node_room():
    facts = _schema.read(machine(nodes=3, memory=[2 * GI, 4 * GI, 4 * GI]))
    assert memory.place(facts, 3 * GI, {0: 2}) == {0: 2 * GI, 1: GI}
    assert memory.place(facts, 3 * MI + 1, {0: 1, 2: 1}) == {0: 1572865, 2: 1572864}


def test_an_impossible_hugepage_pool_is_refused_not_planned_as_zero():
    # Issue 7 rule 9: 9 x 1Gi pages on a node of 8Gi cannot exist; the planner used to set the node's allocatable to 0.
    facts = machine(hugepages={1: {"1048576kB": {"total": 9, "free": 9}}})
    with pytest.raises(PlanError) as err:
        reservation_plan(facts)
    assert str(err.value) == ("topology NUMA node 1 hugepage pools 1048576kB (9 pages) hold 9Gi (9663676416 bytes), more than the node's "
                              "memory_bytes 8Gi (8589934592 bytes): hugepages are taken from the node's memory, so the pools cannot exceed it")
    # A pool that fills the node exactly is possible: nothing of node 1 stays allocatable.
    facts = machine(hugepages={1: {"1048576kB": {"total": 8, "free": 8}}})
    assert reservation_plan(facts)["allocatable"]["1"]["memory_bytes"] == 0


def test_tiered_default_by_the_published_tiers():
    # 25% of the first 4 GiB, 20% of the next 4, 10% of the next 8, 6% of the next 112, 2% above 128 GiB; whole MiB, rounded down.
    assert [memory.tiered(size * GI) // MI for size in (1, 4, 8, 16, 128, 256, 2048)] == [256, 1024, 1843, 2662, 9543, 12165, 48865]
    assert memory.TIERS == ((4 * GI, 25), (4 * GI, 20), (8 * GI, 10), (112 * GI, 6), (None, 2))


def _default_plan(name):
    root = shared_paths.H200_VM if name == "h200-vm" else os.path.join(shared_paths.HWLOC, name)
    return reservation_plan(gather(root, gpu_source="none"))


def test_default_on_the_real_h200_vm_scales_with_its_numa_memory():
    # MemTotal 131981020Ki, but NUMA node 0 holds 4550128Ki: the Memory Manager places the reservation there, so the default
    # scales with that: 1 GiB + 20% of 0.3393 GiB = 1093.5Mi -> 1093Mi, plus the kubelet's 100Mi eviction threshold.
    plan = _default_plan("h200-vm")
    assert plan["kubelet_settings"]["kubeReserved"] == {"memory": "1093Mi"}
    assert plan["kubelet_settings"]["reservedMemory"] == [{"numaNode": 0, "limits": {"memory": "1193Mi"}}]
    assert plan["reserved"]["memory_bytes"] == {"0": 1193 * MI}
    assert plan["reasons"][1] == (
        "kubeReserved memory 1093Mi: the tiered default for 4550128Ki of memory (the NUMA nodes' memory less their hugepage pools, less "
        "than the node's topology memory_bytes 131981020Ki; 25% of the first 4 GiB, 20% of the next 4, 10% of the next 8, 6% of the next "
        "112, 2% above 128 GiB), since neither the policy nor the node's files set kubeReserved or systemReserved memory "
        "(kubelet_plan_reserved_memory_default: none keeps the kubelet's 0)")
    assert plan["reasons"][2].startswith("reservedMemory memory 1193Mi (1250951168 bytes) = kubeReserved memory 1093Mi (tiered default) + "
                                         "systemReserved memory 0 (kubelet default) + evictionHard memory.available 100Mi (kubelet default)")
    assert plan["warnings"] == []


def test_default_on_two_hwloc_snapshots():
    # 40intel64-2g2n4c+pci: MemTotal 529428392Ki (504.9 GiB): 9.32 GiB for the first 128 + 2% of 376.9 GiB = 16.858 GiB -> 17262Mi.
    big = _default_plan("40intel64-2g2n4c+pci")
    assert big["kubelet_settings"]["kubeReserved"] == {"memory": "17262Mi"}
    assert big["kubelet_settings"]["reservedMemory"] == [{"numaNode": 0, "limits": {"memory": "8681Mi"}},
                                                         {"numaNode": 1, "limits": {"memory": "8681Mi"}}]
    assert sum(big["reserved"]["memory_bytes"].values()) == (17262 + 100) * MI
    # 16amd64-8n2c-cpusets: no MemTotal, eight NUMA nodes summing to 67106960Ki (63.998 GiB): 2.6 GiB + 6% of 47.998 GiB -> 5611Mi.
    small = _default_plan("16amd64-8n2c-cpusets")
    assert small["kubelet_settings"]["kubeReserved"] == {"memory": "5611Mi"}
    assert small["kubelet_settings"]["reservedMemory"] == [{"numaNode": 0, "limits": {"memory": "2856Mi"}},
                                                           {"numaNode": 1, "limits": {"memory": "2855Mi"}}]
    assert small["reserved"]["memory_bytes"] == {"0": 2856 * MI, "1": 2855 * MI}


def test_a_node_or_policy_value_wins_and_zero_is_a_warning():
    node = base(systemReserved={"memory": "512Mi"})
    plan = reservation_plan(machine(), {}, node)
    assert "kubeReserved" not in plan["kubelet_settings"] and plan["reserved"]["memory_bytes"] == {"0": 612 * MI}
    plan = reservation_plan(machine(), {"kube_reserved": {"memory": "1Gi"}})
    assert plan["kubelet_settings"]["kubeReserved"] == {"memory": "1Gi"} and plan["warnings"] == []
    plan = reservation_plan(machine(), {"reserved_memory_default": "none"})
    assert plan["warnings"] == [ZERO % "kubeReserved memory 0 (kubelet default)"] and plan["reserved"]["memory_bytes"] == {"0": 100 * MI}
    plan = reservation_plan(machine(), {"system_reserved": {"memory": "0"}})
    assert plan["warnings"] == [("kubeReserved + systemReserved memory is 0 (kubeReserved memory 0 (kubelet default), systemReserved memory "
                                 "0 (policy)): the OS and the kubelet get no reserved memory, only the eviction threshold; the tiered default "
                                 "would reserve 2662Mi (kubelet_plan_reserved_memory_default: tiered, or set kubelet_plan_kube_reserved memory)")]
