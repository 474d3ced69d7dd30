"""Which whole cores the plan reserves (_plan/cpu_strategies.py, _plan/packed.py): spread, compact, device-aware, per node, explicit.

Exercised through reservation_plan, with exact expected CPU sets; a few use the real sysfs snapshots in ../shared/fixtures.
"""

import os

import pytest

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts import gather as _topology
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._plan.plan import PlanError, reservation_plan
from ansible_collections.gpusmith.numa_gate.tests.unit import shared_paths
from ansible_collections.gpusmith.numa_gate.tests.unit.plugins.module_utils._plan.plan_machines import GI, machine


def test_spread_takes_the_lowest_core_of_each_node_in_turn():
    plan = reservation_plan(machine(), {"reserved_cpus": 4, "strategy": "spread"})
    assert plan["reserved"]["cpus"] == "0,4,8,12"
    assert plan["reserved"]["by_numa"] == {"0": "0,8", "1": "4,12"}
    assert plan["reserved"]["cores"] == 2
    assert plan["kubelet_settings"]["reservedSystemCPUs"] == "0,4,8,12"
    assert plan["reasons"][0] == "strategy spread: whole cores spread evenly over NUMA nodes 0, 1, lowest cores first"


def test_compact_packs_the_first_node_like_the_kubelet():
    plan = reservation_plan(machine(), {"reserved_cpus": 4, "strategy": "compact"})
    assert plan["reserved"]["cpus"] == "0-1,8-9"
    assert plan["reserved"]["by_numa"] == {"0": "0-1,8-9"}
    assert plan["reasons"][0] == "strategy compact: the kubelet's own packed order (takeByTopologyNUMAPacked), whole cores only"


def test_compact_reproduces_the_kubelet_source_example():
    # policy_static.go: "Given a system with 8 CPUs available and HT enabled, if numReservedCPUs=2, then reserved={0,4}"
    plan = reservation_plan(machine(nodes=1, cores=4, memory=16 * GI), {"reserved_cpus": 2, "strategy": "compact"})
    assert plan["reserved"]["cpus"] == "0,4"


def test_compact_starts_on_the_node_with_fewest_free_cpus():
    # CPU 1 isolated: node 0 has 7 free CPUs, node 1 has 8; the packed order starts with node 0,
    # and core 1 (0 whole: 9 only) is skipped.
    plan = reservation_plan(machine(isolated="1"), {"reserved_cpus": 4, "strategy": "compact"})
    assert plan["reserved"]["cpus"] == "0,2,8,10"


def test_compact_never_takes_a_whole_node_and_moves_on():
    plan = reservation_plan(machine(), {"reserved_cpus": 8, "strategy": "compact"})
    assert plan["reserved"]["cpus"] == "0-2,4,8-10,12"
    assert plan["allocatable"]["0"]["cpus"] == "3,11"
    assert plan["allocatable"]["0"]["whole_cores"] == 1


def test_compact_orders_sockets_first_when_a_socket_holds_several_nodes():
    # 4 nodes x 4 cores x SMT2; node 0 has isolated 1,17 (core 1) and 2 (core 2): 5 free, 2 whole cores;
    # nodes 2 and 3 each lose two cores' first threads: 6 free.
    isolated = "1-2,17,8-9,12-13"
    two_packages = reservation_plan(machine(nodes=4, packages=2, isolated=isolated), {"reserved_cpus": 4, "strategy": "compact"})
    four_packages = reservation_plan(machine(nodes=4, packages=4, isolated=isolated), {"reserved_cpus": 4, "strategy": "compact"})
    # sockets first: package 1 (12 free) before package 0 (13 free); node 2 then node 3 in it, one core each
    # (each has only two whole cores, and one must stay allocatable)
    assert two_packages["reserved"]["cpus"] == "10,14,26,30"
    # NUMA first: node 0 (5 free) first; its second whole core must stay allocatable, so node 2 follows
    assert four_packages["reserved"]["cpus"] == "0,10,16,26"


def test_compact_takes_a_whole_free_socket_when_it_needs_one():
    # real snapshot: 4 packages x 2 cores x 2 threads, one NUMA node; 4 CPUs = one whole socket
    facts = _topology.gather(os.path.join(shared_paths.HWLOC, "16em64t-4s2c2t"), gpu_source="none")
    assert reservation_plan(facts, {"reserved_cpus": 4, "strategy": "compact"})["reserved"]["cpus"] == "0,4,8,12"
    assert reservation_plan(facts, {"reserved_cpus": 4, "strategy": "spread"})["reserved"]["cpus"] == "0-1,8-9"


def test_compact_with_offline_siblings_takes_the_smallest_whole_sockets_first():
    # real snapshot, CPUs 2,5,13,14 offline: packages 1 (CPUs 1,9) and 2 (CPUs 6 and 10, each a core whose sibling is
    # offline) have the fewest free CPUs, so the packed order takes them whole. (The kubelet itself sizes sockets as
    # NumCPUs/NumSockets = 3 here and would call no socket free; the planner uses each socket's real online CPUs.)
    facts = _topology.gather(os.path.join(shared_paths.HWLOC, "16em64t-4s2c2t-offlines"), gpu_source="none")
    plan = reservation_plan(facts, {"reserved_cpus": 4, "strategy": "compact"})
    assert plan["reserved"]["cpus"] == "1,6,9-10"
    assert plan["reserved"]["cores"] == 3
    assert reservation_plan(facts, {"reserved_cpus": 4, "strategy": "spread"})["reserved"]["cpus"] == "0-1,8-9"


def test_device_aware_prefers_nodes_without_devices():
    plan = reservation_plan(machine(gpus=[("0000:18:00.0", 0)]), {"reserved_cpus": 4})
    assert plan["reserved"]["cpus"] == "4-5,12-13"
    assert plan["reasons"][0] == ("strategy device-aware: reserved on NUMA nodes without GPUs or NICs (1) first, so device-local "
                                  "nodes (0) keep their cores for exclusive slices")
    assert plan["allocatable"]["0"]["gpus"] == ["0000:18:00.0"]
    assert plan["allocatable"]["0"]["whole_cores"] == 4


def test_device_aware_falls_back_to_spread_when_every_node_has_a_device():
    plan = reservation_plan(machine(gpus=[("0000:18:00.0", 0)], nics=[("ens1f0np0", 1)]), {"reserved_cpus": 4})
    assert plan["reserved"]["cpus"] == "0,4,8,12"
    assert plan["reasons"][0] == "strategy device-aware: every NUMA node with CPUs (0, 1) has a GPU or NIC; fell back to spread"
    assert plan["allocatable"]["1"]["nics"] == ["ens1f0np0"]


def test_device_aware_overflows_onto_device_nodes_when_needed():
    plan = reservation_plan(machine(gpus=[("0000:18:00.0", 0)]), {"reserved_cpus": 10})
    assert plan["reserved"]["cpus"] == "0-1,4-6,8-9,12-14"
    assert plan["reasons"][1] == ("strategy device-aware: nodes 1 could not hold the whole reservation; the rest spread over "
                                  "device-local nodes 0")


def test_device_aware_warns_about_devices_without_a_node():
    plan = reservation_plan(machine(nics=[("ens5", None)]), {"reserved_cpus": 2})
    assert plan["warnings"] == ["device-aware: nic ens5 have no known NUMA node and were not counted"]
    assert plan["reserved"]["cpus"] == "0,8"


def test_count_is_rounded_up_to_whole_cores():
    plan = reservation_plan(machine(), {"reserved_cpus": 3, "strategy": "spread"})
    assert plan["reserved"]["cpus"] == "0,4,8,12"
    assert plan["warnings"] == ["reserved_cpus 3 rounded up to 4 logical CPUs (2 whole cores): SMT siblings are reserved together"]


def test_isolated_cpus_and_their_cores_are_never_reserved():
    plan = reservation_plan(machine(isolated="0,4"), {"reserved_cpus": 4, "strategy": "spread"})
    assert plan["reserved"]["cpus"] == "1,5,9,13"
    assert plan["allocatable"]["0"]["cpus"] == "2-3,10-11"


def test_per_node_counts():
    plan = reservation_plan(machine(), {"reserved_cpus": {"0": 2, 1: 4}})
    assert plan["reserved"]["by_numa"] == {"0": "0,8", "1": "4-5,12-13"}
    assert plan["policy"]["reserved_cpus"] == {"0": 2, "1": 4}
    assert plan["reasons"][0] == "reserved_cpus per NUMA node 0: 2, 1: 4: lowest cores first order within each node"
    # memory split 2:4 by largest remainder: 1124Mi -> 374.67 / 749.33 -> 375Mi + 749Mi
    plan = reservation_plan(machine(), {"reserved_cpus": {"0": 2, "1": 4}, "system_reserved": {"memory": "1Gi"}})
    assert plan["kubelet_settings"]["reservedMemory"] == [{"numaNode": 0, "limits": {"memory": "375Mi"}},
                                                          {"numaNode": 1, "limits": {"memory": "749Mi"}}]


def test_per_node_count_refusals():
    with pytest.raises(PlanError, match=r"^policy reserved_cpus names NUMA node 5, which does not exist \(nodes: 0, 1\)$"):
        reservation_plan(machine(), {"reserved_cpus": {"5": 2}})
    with pytest.raises(PlanError) as err:
        reservation_plan(machine(), {"reserved_cpus": {"0": 8}})
    assert str(err.value) == ("policy reserved_cpus asks 8 CPUs on NUMA node 0, but only 3 whole cores (6 CPUs) of its 4 can be reserved "
                              "while keeping one whole core allocatable there")


def test_too_many_cpus_is_refused_with_the_numbers():
    with pytest.raises(PlanError) as err:
        reservation_plan(machine(), {"reserved_cpus": 14})
    assert str(err.value) == ("reserved_cpus 14 needs 14 logical CPUs in whole cores, but only 6 whole cores (12 logical CPUs) can be "
                              "reserved while keeping one whole core allocatable on each NUMA node with CPUs (node 0: 4 usable cores; "
                              "node 1: 4 usable cores)")


def test_explicit_list_is_checked_and_used():
    plan = reservation_plan(machine(), {"reserved_cpu_list": "12,0,8,4"})
    assert plan["reserved"]["cpus"] == "0,4,8,12"
    assert plan["policy"]["reserved_cpu_list"] == "0,4,8,12"
    assert plan["policy"]["reserved_cpus"] is None
    assert plan["reasons"][0] == ("reserved_cpu_list 0,4,8,12 given explicitly: checked (online, not isolated, whole cores, one core left "
                                  "per NUMA node); strategy not used")


@pytest.mark.parametrize("cpu_list, isolated, message", [
    ("0", "", "reserved_cpu_list 0 splits core 0 (CPUs 0,8): SMT siblings 8 are missing; reserve whole physical cores"),
    ("0,8,16", "", "reserved_cpu_list 0,8,16 includes CPUs 16 that are not online (online: 0-15); the kubelet needs a subset of online CPUs"),
    ("1,9", "9", "reserved_cpu_list 1,9 includes isolated CPUs 9 (isolated: 9)"),
    ("0-3,8-11", "", "reserved_cpu_list 0-3,8-11 takes all 4 whole cores of NUMA node 0 (CPUs 0-3,8-11); keep at least one whole core "
                     "allocatable there"),
])
def test_explicit_list_refusals(cpu_list, isolated, message):
    with pytest.raises(PlanError) as err:
        reservation_plan(machine(isolated=isolated), {"reserved_cpu_list": cpu_list})
    assert str(err.value) == message


def test_unknown_isolated_cpus_are_refused():
    # cpus.isolated null: the facts could not read the isolated list; a chosen CPU might be isolated.
    facts = machine()
    facts["cpus"]["isolated"] = None
    with pytest.raises(PlanError) as err:
        reservation_plan(facts)
    assert str(err.value) == ("isolated CPUs unknown (cpus.isolated is null): refusing to choose reserved CPUs that might be isolated; "
                              "fix the facts or give reserved_cpu_list")
    del facts["cpus"]["isolated"]
    with pytest.raises(PlanError, match=r"^isolated CPUs unknown \(cpus.isolated is missing\)"):
        reservation_plan(facts)
    facts["cpus"]["isolated"] = None
    plan = reservation_plan(facts, {"reserved_cpu_list": "0,8"})
    assert plan["reserved"]["cpus"] == "0,8"
    assert plan["warnings"] == ["isolated CPUs unknown (cpus.isolated is null): reserved_cpu_list 0,8 is not checked against isolated CPUs"]


def _sibling_offline():
    """One node of two cores (0,2 and 1,3) with CPU 2 offline: core 0 has one online CPU, core 1 two."""
    facts = machine(nodes=1, cores=2)
    facts["cpus"].update(online="0-1,3", offline="2")
    return facts


@pytest.mark.parametrize("policy", [{"reserved_cpus": 2, "strategy": "spread"}, {"reserved_cpus": 2, "strategy": "compact"},
                                    {"reserved_cpus": 2}, {"reserved_cpus": {"0": 2}}])
def test_node_keeps_its_smallest_core_when_that_is_what_fits(policy):
    # Lowest cores first would take core 0 (one CPU) and stop, core 1 being the last; keeping core 0 instead fits 2 CPUs.
    plan = reservation_plan(_sibling_offline(), policy)
    assert plan["reserved"]["cpus"] == "1,3"
    assert plan["allocatable"]["0"]["cpus"] == "0"
    assert ("NUMA node 0 keeps core 0 (CPUs 0) allocatable instead of core 1 (CPUs 1,3): it has fewer online CPUs, and the reservation "
            "did not fit otherwise") in plan["reasons"]


def test_shortage_counts_keeping_the_smallest_core():
    with pytest.raises(PlanError) as err:
        reservation_plan(_sibling_offline(), {"reserved_cpus": 3})
    assert str(err.value) == ("reserved_cpus 3 needs 3 logical CPUs in whole cores, but only 1 whole cores (2 logical CPUs) can be reserved "
                              "while keeping one whole core allocatable on each NUMA node with CPUs (node 0: 2 usable cores)")
    with pytest.raises(PlanError) as err:
        reservation_plan(_sibling_offline(), {"reserved_cpus": {"0": 3}})
    assert str(err.value) == ("policy reserved_cpus asks 3 CPUs on NUMA node 0, but only 1 whole cores (2 CPUs) of its 2 can be reserved "
                              "while keeping one whole core allocatable there")


def test_facts_without_cores_treat_each_cpu_as_a_core():
    facts = machine(smt=1)
    facts["cores"] = []
    plan = reservation_plan(facts, {"reserved_cpus": 2, "strategy": "compact"})
    assert plan["reserved"]["cpus"] == "0-1"
    assert plan["warnings"][0] == "the topology facts list no cores; each online CPU is treated as a core of its own"


def test_node_with_only_isolated_cpus_is_reported():
    plan = reservation_plan(machine(isolated="4-7,12-15"), {"reserved_cpus": 2})
    assert plan["warnings"] == ["NUMA node 1 has online CPUs but no whole core that is not isolated; nothing there is allocatable"]
    assert plan["allocatable"]["1"]["whole_cores"] == 0
    assert plan["reserved"]["cpus"] == "0,8"
