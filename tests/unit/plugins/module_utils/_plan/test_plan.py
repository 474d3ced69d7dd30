"""Example tests for the reservation planner, with exact expected plans.

Most use a small generated machine (linux numbering: logical CPU = core + thread x cores);
a few use facts gathered from the real sysfs snapshots in ../shared/fixtures.
"""

import os
import random

import pytest

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kubelet import merge as _kubelet_merge
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kubelet import allocatable as _allocatable
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kubelet import validate as _validate
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts import schema as _schema
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts import gather as _topology
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._plan.plan import PlanError, normalize_policy, reservation_plan
from ansible_collections.gpusmith.numa_gate.tests.unit import shared_paths

GI = 1 << 30
MI = 1 << 20
MAIN = {"apiVersion": "kubelet.config.k8s.io/v1beta1", "kind": "KubeletConfiguration"}
DROPIN = "/etc/kubernetes/kubelet.conf.d/50-numa-gate.conf"


def machine(nodes=2, cores=4, smt=2, packages=None, isolated="", memory=8 * GI, gpus=(), nics=(), hugepages=None):
    """Facts (schema v1) of a machine with `nodes` NUMA nodes of `cores` cores each.

    packages: number of packages, nodes split evenly over them (default: one per node).
    gpus / nics: (label, numa_node) pairs. memory: bytes per node, or a list per node.
    """
    packages = packages or nodes
    total = nodes * cores
    core_entries, node_entries = [], []
    for node in range(nodes):
        node_cpus = []
        for core in range(node * cores, (node + 1) * cores):
            cpus = [core + thread * total for thread in range(smt)]
            node_cpus += cpus
            core_entries.append({"package": node * packages // nodes, "core": core, "cpus": ",".join(str(c) for c in cpus), "numa_node": node})
        node_memory = memory[node] if isinstance(memory, list) else memory
        node_entries.append({"id": node, "cpus": ",".join(str(c) for c in sorted(node_cpus)), "memory_bytes": node_memory,
                             "hugepages": (hugepages or {}).get(node, {}), "distances": {}})
    return {
        "schema_version": 1,
        "cpus": {"online": "0-%d" % (total * smt - 1), "offline": "", "isolated": isolated, "smt_active": smt > 1, "threads_per_core": smt},
        "cores": core_entries,
        "numa_nodes": node_entries,
        "gpus": [{"pci_address": label, "numa_node": node} for label, node in gpus],
        "nics": [{"name": label, "numa_node": node} for label, node in nics],
        "warnings": [],
    }


def base(**keys):
    """The node's effective configuration from a main file with ``keys`` (kubelet defaults filled in)."""
    return _kubelet_merge.effective_config(dict(MAIN, **keys), [], main_path="/var/lib/kubelet/config.yaml")


def module_view(main_keys, plan):
    """What the kubelet_config module validates: the main file, then the plan as its drop-in."""
    return _kubelet_merge.effective_config(dict(MAIN, **main_keys), [(DROPIN, dict(MAIN, **plan["kubelet_settings"]))])


# ------------------------------------------------------------------ strategies


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


def test_real_h200_host_default_plan():
    facts = _topology.gather(shared_paths.H200_VM, gpu_source="none")
    facts["gpus"] = [{"pci_address": "0000:00:06.0", "numa_node": 0}]
    plan = reservation_plan(facts)
    assert plan["reserved"] == {"cpus": "0-1", "cores": 2, "by_numa": {"0": "0-1"}, "memory_bytes": {"0": 100 * MI}}
    assert plan["allocatable"]["0"]["cpus"] == "2-15"
    assert plan["allocatable"]["0"]["gpus"] == ["0000:00:06.0"]
    assert plan["reasons"][0] == "strategy device-aware: every NUMA node with CPUs (0) has a GPU or NIC; fell back to spread"


# ------------------------------------------------------------------ the whole plan


def test_default_plan_in_full():
    plan = reservation_plan(machine())
    # The plan used to write evictionHard in full (the kubelet defaults) and empty kubeReserved/systemReserved. As a
    # drop-in that silently replaced an operator's own eviction thresholds in the main file; it now writes only what
    # the policy sets, and the 100Mi default comes from the node's configuration (here: none, so the kubelet default).
    assert plan == {
        "kubelet_settings": {
            "cpuManagerPolicy": "static",
            "featureGates": {"PodLevelResourceManagers": True, "PodLevelResources": True},
            "memoryManagerPolicy": "Static",
            "reservedMemory": [{"numaNode": 0, "limits": {"memory": "100Mi"}}],
            "reservedSystemCPUs": "0,8",
            "topologyManagerPolicy": "single-numa-node",
            "topologyManagerScope": "pod",
        },
        "reserved": {"cpus": "0,8", "cores": 1, "by_numa": {"0": "0,8"}, "memory_bytes": {"0": 100 * MI}},
        "allocatable": {
            "0": {"cpus": "1-3,9-11", "whole_cores": 3, "memory_bytes": 8 * GI - 100 * MI, "gpus": [], "nics": [],
                  "largest_pod": {"cpu": 6, "memory": "8092Mi"}},
            "1": {"cpus": "4-7,12-15", "whole_cores": 4, "memory_bytes": 8 * GI, "gpus": [], "nics": [],
                  "largest_pod": {"cpu": 8, "memory": "8Gi"}},
        },
        "reasons": [
            "strategy device-aware: no NUMA node has a GPU or NIC; spread over NUMA nodes 0, 1",
            "reservedMemory memory 100Mi (104857600 bytes) = kubeReserved memory 0 (not set) + systemReserved memory 0 (not set) + "
            "evictionHard memory.available 100Mi (kubelet default), placed on NUMA nodes 0: 100Mi in proportion to the reserved CPUs there",
        ],
        "warnings": [],
        "policy": {
            "reserved_cpus": 2, "reserved_cpu_list": None, "strategy": "device-aware", "kube_reserved": {}, "system_reserved": {},
            "eviction_hard": None,
            "kubelet_settings": {"cpuManagerPolicy": "static", "featureGates": {"PodLevelResourceManagers": True, "PodLevelResources": True},
                                 "memoryManagerPolicy": "Static", "topologyManagerPolicy": "single-numa-node", "topologyManagerScope": "pod"},
        },
        "schema_version": 1,
    }
    assert _validate.validate(module_view({}, plan), _schema.kubelet_node(machine())) == []
    assert reservation_plan(machine(), None, base()) == plan


def test_plan_is_the_same_for_shuffled_facts():
    facts = machine(gpus=[("0000:18:00.0", 0), ("0000:3b:00.0", 0)], nics=[("ens1", 1), ("ens0", 1)])
    policy = {"reserved_cpus": 6, "strategy": "compact", "system_reserved": {"memory": "1Gi"}}
    expected = reservation_plan(facts, policy)
    shuffled = dict(facts)
    for key in ("cores", "numa_nodes", "gpus", "nics"):
        shuffled[key] = random.Random(7).sample(facts[key], len(facts[key]))
    assert reservation_plan(shuffled, policy) == expected
    assert expected["allocatable"]["0"]["gpus"] == ["0000:18:00.0", "0000:3b:00.0"]
    assert expected["allocatable"]["1"]["nics"] == ["ens0", "ens1"]


def test_kubelet_settings_merge_over_the_canary_defaults():
    plan = reservation_plan(machine(), {"kubelet_settings": {"featureGates": {"SomeGate": False}, "cpuManagerPolicyOptions": {"full-pcpus-only": "true"}}})
    settings = plan["kubelet_settings"]
    assert settings["featureGates"] == {"PodLevelResourceManagers": True, "PodLevelResources": True, "SomeGate": False}
    assert settings["cpuManagerPolicyOptions"] == {"full-pcpus-only": "true"}
    assert list(settings) == sorted(settings)


def test_more_than_8_numa_nodes_needs_the_topology_manager_option():
    facts = _topology.gather(os.path.join(shared_paths.HWLOC, "256ia64-64n2s2c"), gpu_source="none")
    with pytest.raises(PlanError) as err:
        reservation_plan(facts)
    # The problem names its source: "the plan" for the planned keys, the node's file for the keys of its configuration.
    assert str(err.value) == ("the planned kubelet settings break the kubelet's rules: the plan: topologyManagerPolicy: unsupported on "
                              "machines with more than 8 NUMA Nodes (this node has 64 NUMA nodes; set "
                              "topologyManagerPolicyOptions.max-allowable-numa-nodes: \"64\")")
    plan = reservation_plan(facts, {"kubelet_settings": {"topologyManagerPolicyOptions": {"max-allowable-numa-nodes": "64"}}})
    assert plan["reserved"]["by_numa"] == {"0": "0", "1": "4"}
    assert plan["kubelet_settings"]["reservedMemory"] == [{"numaNode": 0, "limits": {"memory": "50Mi"}},
                                                          {"numaNode": 1, "limits": {"memory": "50Mi"}}]


def test_plan_shares_no_objects_with_its_policy():
    plan = reservation_plan(machine(), {"kube_reserved": {"memory": "1Gi"}, "eviction_hard": {"memory.available": "1Gi"}})
    assert plan["kubelet_settings"]["featureGates"] is not plan["policy"]["kubelet_settings"]["featureGates"]
    assert plan["kubelet_settings"]["kubeReserved"] is not plan["policy"]["kube_reserved"]
    assert plan["kubelet_settings"]["evictionHard"] is not plan["policy"]["eviction_hard"]


def test_plan_that_breaks_kubelet_rules_is_refused():
    with pytest.raises(PlanError) as err:
        reservation_plan(machine(), {"kubelet_settings": {"topologyManagerPolicy": "single-NUMA-node"}})
    assert str(err.value).startswith("the planned kubelet settings break the kubelet's rules: ")
    assert "topologyManagerPolicy" in str(err.value)


# ------------------------------------------------------------------ counts and explicit lists


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


# ------------------------------------------------------------------ memory


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
    policy = {"reserved_cpus": 2, "strategy": "compact", "eviction_hard": {"memory.available": "10%"}}
    plan = reservation_plan(facts, policy)
    # float32(10)/100 = 0.100000001490116...; int64(17179869184 x that) = 1717986944 (exact decimal would be 1717986918)
    assert plan["reserved"]["memory_bytes"] == {"0": 1717986944}
    assert plan["reserved"]["memory_bytes"]["0"] == _allocatable.reserved_memory_total({"evictionHard": {"memory.available": "10%"}}, 16 * GI)


def test_partial_eviction_hard_merges_over_the_node_thresholds():
    # This test used to expect memory.available zeroed (1Gi reserved). That holds only for a *main file* that sets
    # evictionHard partially (the kubelet then fills in no defaults). The plan is a drop-in, merged over the main file
    # after the defaults are filled in, so the default memory.available 100Mi stays and is reserved.
    plan = reservation_plan(machine(), {"system_reserved": {"memory": "1Gi"}, "eviction_hard": {"nodefs.available": "10%"}})
    assert plan["reserved"]["memory_bytes"] == {"0": GI + 100 * MI}
    assert plan["kubelet_settings"]["evictionHard"] == {"nodefs.available": "10%"}
    assert ("evictionHard from the policy (nodefs.available) merges over the node's thresholds, which stay: imagefs.available 15%, "
            "imagefs.inodesFree 5%, memory.available 100Mi, nodefs.inodesFree 5%") in plan["reasons"]
    assert _validate.validate(module_view({}, plan), _schema.kubelet_node(machine())) == []


def test_partial_eviction_hard_merges_over_the_node_own_thresholds():
    node = base(evictionHard={"memory.available": "300Mi", "nodefs.available": "15%"})
    plan = reservation_plan(machine(), {"eviction_hard": {"nodefs.available": "5%"}}, node)
    assert plan["reserved"]["memory_bytes"] == {"0": 300 * MI}
    assert plan["kubelet_settings"]["evictionHard"] == {"nodefs.available": "5%"}
    assert "evictionHard memory.available 300Mi (node config /var/lib/kubelet/config.yaml)" in plan["reasons"][1]
    assert _validate.validate(module_view({"evictionHard": {"memory.available": "300Mi", "nodefs.available": "15%"}}, plan),
                                        _schema.kubelet_node(machine())) == []


def test_partial_eviction_hard_in_the_main_file_zeroes_the_omitted_signals():
    # The main file sets evictionHard without memory.available: the kubelet fills in no defaults, so nothing is reserved for it.
    plan = reservation_plan(machine(), {"system_reserved": {"memory": "1Gi"}}, base(evictionHard={"nodefs.available": "10%"}))
    assert plan["reserved"]["memory_bytes"] == {"0": GI}
    assert "evictionHard" not in plan["kubelet_settings"]
    assert ("evictionHard in the merged configuration omits the default signals imagefs.available, imagefs.inodesFree, memory.available, "
            "nodefs.inodesFree, so the kubelet applies no threshold for them (it fills in defaults only when the main file sets no "
            "evictionHard)") in plan["reasons"]


def test_no_memory_reservation_is_refused():
    # A drop-in cannot zero memory.available any more (it merges over the defaults); a main file without it can.
    with pytest.raises(PlanError) as err:
        reservation_plan(machine(), {"eviction_hard": {"nodefs.available": "10%"}}, base(evictionHard={"nodefs.available": "10%"}))
    assert str(err.value) == ("kubeReserved + systemReserved + evictionHard memory.available reserve no memory (kubeReserved memory 0 "
                              "(not set), systemReserved memory 0 (not set), evictionHard memory.available 0 (not set: evictionHard omits "
                              "it, so no threshold)); the Memory Manager Static policy needs a non-zero reservation (\"you should specify "
                              "the system reserved memory\")")


# ------------------------------------------------------------------ the node's existing configuration (base_config)


def test_existing_reservations_in_the_main_file_are_counted():
    node = base(kubeReserved={"cpu": "1", "memory": "1Gi"}, systemReserved={"memory": "512Mi"})
    plan = reservation_plan(machine(), {"kube_reserved": {"memory": "256Mi"}}, node)
    # kubeReserved.memory from the policy replaces the node's 1Gi (the maps merge key by key); systemReserved stays.
    assert plan["reserved"]["memory_bytes"] == {"0": (256 + 512 + 100) * MI}
    assert plan["kubelet_settings"]["kubeReserved"] == {"memory": "256Mi"}
    assert "systemReserved" not in plan["kubelet_settings"]
    assert plan["reasons"][1] == ("reservedMemory memory 868Mi (910163968 bytes) = kubeReserved memory 256Mi (policy) + systemReserved "
                                  "memory 512Mi (node config /var/lib/kubelet/config.yaml) + evictionHard memory.available 100Mi (kubelet "
                                  "default), placed on NUMA nodes 0: 868Mi in proportion to the reserved CPUs there")
    assert plan["warnings"] == ["kubeReserved cpu 1 (node config /var/lib/kubelet/config.yaml) is overridden by reservedSystemCPUs "
                                "(the kubelet then reserves 2 CPUs)"]
    main = {"kubeReserved": {"cpu": "1", "memory": "1Gi"}, "systemReserved": {"memory": "512Mi"}}
    assert _validate.validate(module_view(main, plan), _schema.kubelet_node(machine())) == []


def test_a_plain_dict_base_config_is_the_node_config():
    # From a playbook the base arrives as a plain dict (no file origins).
    plan = reservation_plan(machine(), {}, dict(base(systemReserved={"memory": "1Gi"})))
    assert "systemReserved memory 1Gi (node config)" in plan["reasons"][1]
    assert plan["reserved"]["memory_bytes"] == {"0": GI + 100 * MI}


def test_base_config_that_breaks_the_rules_with_the_plan_is_refused():
    with pytest.raises(PlanError) as err:
        reservation_plan(machine(), {}, base(systemReservedCgroup="/system.slice"))
    assert str(err.value) == ("the planned kubelet settings break the kubelet's rules: the plan: reservedSystemCPUs: invalid configuration: "
                              "can't use reservedSystemCPUs (--reserved-cpus) with systemReservedCgroup (--system-reserved-cgroup) or "
                              "kubeReservedCgroup (--kube-reserved-cgroup)")
    with pytest.raises(PlanError) as err:
        reservation_plan(machine(), {}, base(kubeReserved={"hugepages-2Mi": "4Mi"}))
    assert str(err.value) == ("memory reservation (the policy merged over the node's kubelet configuration): /var/lib/kubelet/config.yaml: "
                              "kubeReserved.hugepages-2Mi: cannot reserve \"hugepages-2Mi\" resource (only cpu, memory, ephemeral-storage, "
                              "pid can be reserved here)")


def test_base_config_must_be_a_dict():
    with pytest.raises(PlanError, match=r"^base_config \['x'\] is a list, expected the node's effective kubelet configuration"):
        reservation_plan(machine(), {}, ["x"])


def test_percentages_are_taken_of_memtotal_not_the_numa_sum():
    # MemTotal (facts memory_bytes) is a little more than the NUMA nodes' sum; the kubelet's capacity is MemTotal.
    facts = machine()
    facts["memory_bytes"] = 16 * GI + 5 * MI
    plan = reservation_plan(facts, {"eviction_hard": {"memory.available": "10%"}})
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


def test_hugepages_cannot_be_reserved():
    # cmd/kubelet/app/server.go parseResourceList refuses them, so reservedMemory never lists hugepages
    with pytest.raises(PlanError) as err:
        reservation_plan(machine(), {"kube_reserved": {"hugepages-2Mi": "4Mi"}})
    assert str(err.value) == ("policy kube_reserved: cannot reserve 'hugepages-2Mi' resource; the kubelet accepts only cpu, memory, "
                              "ephemeral-storage, pid")


def test_reserved_cpu_in_kube_reserved_is_overridden():
    plan = reservation_plan(machine(), {"kube_reserved": {"cpu": "500m", "memory": "512Mi"}})
    assert plan["kubelet_settings"]["kubeReserved"] == {"cpu": "500m", "memory": "512Mi"}
    assert plan["warnings"] == ["policy kube_reserved cpu 500m is overridden by reservedSystemCPUs (the kubelet then reserves 2 CPUs)"]
    assert plan["reserved"]["memory_bytes"] == {"0": 612 * MI}


# ------------------------------------------------------------------ policy and facts errors


@pytest.mark.parametrize("policy, message", [
    ("x", "policy 'x' is a str, expected a dict"),
    ({"reserved": 2}, "policy keys reserved are unknown; known keys: reserved_cpus, reserved_cpu_list, strategy, kube_reserved, "
                      "system_reserved, eviction_hard, kubelet_settings"),
    ({"strategy": "Compact"}, "policy strategy 'Compact' is not one of spread, compact, device-aware"),
    ({"reserved_cpus": 0}, "policy reserved_cpus is 0; the static CPU Manager needs a non-zero CPU reservation"),
    ({"reserved_cpus": True}, "policy reserved_cpus True is a boolean, expected a whole number of logical CPUs"),
    ({"reserved_cpus": -2}, "policy reserved_cpus -2 is negative"),
    ({"reserved_cpus": "two"}, "policy reserved_cpus 'two' is not a whole number of logical CPUs"),
    ({"reserved_cpus": {"a": 2}}, "policy reserved_cpus key 'a' is not a NUMA node id"),
    ({"reserved_cpus": {"0": 0}}, "policy reserved_cpus {'0': 0} reserves no CPU; the static CPU Manager needs a non-zero CPU reservation"),
    ({"reserved_cpus": 2, "reserved_cpu_list": "0,8"}, "policy sets both reserved_cpus (2) and reserved_cpu_list ('0,8'); give one of them"),
    ({"reserved_cpu_list": "0-"}, "policy reserved_cpu_list: cpulist '0-': '0-' is not a CPU id or a range 'a-b'"),
    ({"reserved_cpu_list": ""}, "policy reserved_cpu_list '' is empty; the static CPU Manager needs a non-zero CPU reservation"),
    ({"system_reserved": {"memory": "1GB"}}, "policy system_reserved[memory]: quantity '1GB' does not match the Kubernetes quantity format "
                                             "'<number><suffix>' (suffixes Ki Mi Gi Ti Pi Ei, m k M G T P E, or eN)"),
    ({"system_reserved": ["memory"]}, "policy system_reserved ['memory'] is a list, expected a dict such as {'memory': '1Gi'}"),
    ({"eviction_hard": {"memory.available": None}}, "policy eviction_hard[memory.available] None is not a quantity or a percentage"),
    ({"kubelet_settings": {"reservedSystemCPUs": "0"}}, "policy kubelet_settings sets reservedSystemCPUs, which the planner computes; set it "
                                                        "through the policy key reserved_cpus or reserved_cpu_list"),
    ({"kubelet_settings": {"featureGates": {"X": "yes"}}}, "policy kubelet_settings featureGates X = 'yes' is not true or false"),
])
def test_policy_errors(policy, message):
    with pytest.raises(PlanError) as err:
        normalize_policy(policy)
    assert str(err.value) == message


def test_eviction_values_the_kubelet_refuses_are_refused():
    with pytest.raises(PlanError) as err:
        reservation_plan(machine(), {"eviction_hard": {"memory.available": "-1Mi"}})
    assert str(err.value) == ("memory reservation (the policy merged over the node's kubelet configuration): the plan: "
                              "evictionHard.memory.available: eviction threshold memory.available must be positive: -1Mi")


@pytest.mark.parametrize("change, message", [
    (lambda f: f.update(schema_version=2), "topology schema_version 2 is not supported; the planner reads schema_version 1"),
    (lambda f: f.pop("cpus"), "topology has no 'cpus' section (online/isolated CPU lists)"),
    (lambda f: f["cpus"].update(online="0-x"), "topology cpus.online: cpulist '0-x': '0-x' is not a CPU id or a range 'a-b'"),
    (lambda f: f.update(numa_nodes=[]), "topology lists no NUMA nodes"),
    (lambda f: f["numa_nodes"][1].update(memory_bytes=None), "topology NUMA node 1 memory_bytes None is not a byte count"),
    (lambda f: f["numa_nodes"].append(dict(f["numa_nodes"][0])), "topology lists NUMA node 0 twice"),
])
def test_bad_facts(change, message):
    facts = machine()
    change(facts)
    with pytest.raises(PlanError) as err:
        reservation_plan(facts)
    assert str(err.value) == message


@pytest.mark.parametrize("change, field", [
    (lambda f: f.update(numa_nodes="0-1"), "numa_nodes '0-1' is a str, expected a list"),
    (lambda f: f["numa_nodes"].append("node2"), "numa_nodes entry 'node2' is a str, expected a dict"),
    (lambda f: f["numa_nodes"][0].pop("id"), "has no id"),
    (lambda f: f["numa_nodes"][0].update(id="0"), "id '0' is not a NUMA node id"),
    (lambda f: f["numa_nodes"][0].update(cpus=[0, 1]), "topology NUMA node 0 cpus: cpulist [0, 1] is a list"),
    (lambda f: f["numa_nodes"][0].update(hugepages=["2048kB"]), "NUMA node 0 hugepages ['2048kB'] is a list"),
    (lambda f: f.update(cores={"0": "0,8"}), "topology cores {'0': '0,8'} is a dict, expected a list"),
    (lambda f: f["cores"].append(None), "topology cores entry None is a NoneType, expected a dict"),
    (lambda f: f["cores"][0].update(numa_node=[0]), "numa_node [0] is not a NUMA node id"),
    (lambda f: f["cores"][0].update(numa_node="0"), "numa_node '0' is not a NUMA node id"),
    (lambda f: f["cores"][0].update(cpus=8), "cpus: cpulist 8 is a int, expected a string"),
    (lambda f: f["cores"][0].update(package="socket0"), "package 'socket0' is not a package id"),
    (lambda f: f.update(gpus=[["0000:18:00.0", 0]]), "topology gpus entry ['0000:18:00.0', 0] is a list, expected a dict"),
    (lambda f: f.update(nics={"name": "ens1"}), "topology nics {'name': 'ens1'} is a dict, expected a list"),
    (lambda f: f.update(gpus=[{"pci_address": "0000:18:00.0", "numa_node": {"id": 0}}]), "numa_node {'id': 0} is not a NUMA node id"),
    (lambda f: f.update(memory_bytes="16Gi"), "topology memory_bytes '16Gi' is not a byte count"),
])
def test_malformed_facts_are_refused_naming_the_field(change, field):
    # Never an AttributeError, TypeError or KeyError from a malformed part of the facts.
    facts = machine()
    change(facts)
    with pytest.raises(PlanError) as err:
        reservation_plan(facts)
    assert field in str(err.value)


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


def test_unknown_hugepage_counts_are_taken_as_zero_with_a_warning():
    facts = machine(hugepages={0: {"2048kB": {"total": None, "free": None}}})
    plan = reservation_plan(facts, {"reserved_cpus": 2})
    assert plan["warnings"] == ["NUMA node 0 hugepages 2048kB total is unknown; taken as 0 pages"]
    assert plan["allocatable"]["0"]["memory_bytes"] == 8 * GI - 100 * MI


def test_node_with_only_isolated_cpus_is_reported():
    plan = reservation_plan(machine(isolated="4-7,12-15"), {"reserved_cpus": 2})
    assert plan["warnings"] == ["NUMA node 1 has online CPUs but no whole core that is not isolated; nothing there is allocatable"]
    assert plan["allocatable"]["1"]["whole_cores"] == 0
    assert plan["reserved"]["cpus"] == "0,8"
