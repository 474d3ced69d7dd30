"""The reservation plan as a whole (_plan/plan.py), with exact expected plans: settings, the node's own configuration, facts refusals.

Most use a small generated machine (plan_machines.py); a few use facts gathered from the real sysfs snapshots in ../shared/fixtures.
"""

import os
import random

import pytest

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kubelet.rules import validate as _validate
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts import schema as _schema
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts import gather as _topology
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._plan.plan import PlanError, reservation_plan
from ansible_collections.gpusmith.numa_gate.tests.unit import shared_paths
from ansible_collections.gpusmith.numa_gate.tests.unit.plugins.module_utils._plan.plan_machines import GI, MI, base, machine, module_view


def test_real_h200_host_default_plan():
    facts = _topology.gather(shared_paths.H200_VM, gpu_source="none")
    facts["gpus"] = [{"pci_address": "0000:00:06.0", "numa_node": 0}]
    plan = reservation_plan(facts)
    # The tiered default over the NUMA node's 4550128Ki (MemTotal is more: see test_plan_real_snapshots), plus the 100Mi threshold.
    assert plan["reserved"] == {"cpus": "0-1", "cores": 2, "by_numa": {"0": "0-1"}, "memory_bytes": {"0": 1193 * MI}}
    assert plan["kubelet_settings"]["kubeReserved"] == {"memory": "1093Mi"}
    assert plan["allocatable"]["0"]["cpus"] == "2-15"
    assert plan["allocatable"]["0"]["gpus"] == ["0000:00:06.0"]
    assert plan["reasons"][0] == "strategy device-aware: every NUMA node with CPUs (0) has a GPU or NIC; fell back to spread"


def test_default_plan_in_full():
    plan = reservation_plan(machine())
    # The plan used to write evictionHard in full (the kubelet defaults) and empty kubeReserved/systemReserved. As a
    # drop-in that silently replaced an operator's own eviction thresholds in the main file; it now writes only what
    # the policy sets, and the 100Mi default comes from the node's configuration (here: none, so the kubelet default).
    assert plan == {
        "kubelet_settings": {
            "cpuManagerPolicy": "static",
            "featureGates": {"PodLevelResourceManagers": True, "PodLevelResources": True},
            "kubeReserved": {"memory": "2662Mi"},
            "memoryManagerPolicy": "Static",
            "reservedMemory": [{"numaNode": 0, "limits": {"memory": "2762Mi"}}],
            "reservedSystemCPUs": "0,8",
            "topologyManagerPolicy": "single-numa-node",
            "topologyManagerScope": "pod",
        },
        "reserved": {"cpus": "0,8", "cores": 1, "by_numa": {"0": "0,8"}, "memory_bytes": {"0": 2762 * MI}},
        "allocatable": {
            "0": {"cpus": "1-3,9-11", "whole_cores": 3, "memory_bytes": 8 * GI - 2762 * MI, "gpus": [], "nics": [],
                  "largest_pod": {"cpu": 6, "memory": "5430Mi"}},
            "1": {"cpus": "4-7,12-15", "whole_cores": 4, "memory_bytes": 8 * GI, "gpus": [], "nics": [],
                  "largest_pod": {"cpu": 8, "memory": "8Gi"}},
        },
        "reasons": [
            "strategy device-aware: no NUMA node has a GPU or NIC; spread over NUMA nodes 0, 1",
            "kubeReserved memory 2662Mi: the tiered default for 16Gi of memory (the sum of NUMA node memory; 25% of the first "
            "4 GiB, 20% of the next 4, 10% of the next 8, 6% of the next 112, 2% above 128 GiB), since neither the policy nor the node's "
            "files set kubeReserved or systemReserved memory (kubelet_plan_reserved_memory_default: none keeps the kubelet's 0)",
            "reservedMemory memory 2762Mi (2896166912 bytes) = kubeReserved memory 2662Mi (tiered default) + systemReserved memory 0 "
            "(kubelet default) + evictionHard memory.available 100Mi (kubelet default), placed on NUMA nodes 0: 2762Mi in proportion to "
            "the reserved CPUs there",
        ],
        "warnings": [],
        "policy": {
            "reserved_cpus": 2, "reserved_cpu_list": None, "strategy": "device-aware", "kube_reserved": {}, "system_reserved": {},
            "eviction_hard": None, "reserved_memory_default": "tiered",
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
    plan = reservation_plan(facts, {"kubelet_settings": {"topologyManagerPolicyOptions": {"max-allowable-numa-nodes": "64"}},
                                    "reserved_memory_default": "none"})
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
    plan = reservation_plan(machine(), {"eviction_hard": {"nodefs.available": "5%"}, "reserved_memory_default": "none"}, node)
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


def test_reserved_cpu_in_kube_reserved_is_overridden():
    plan = reservation_plan(machine(), {"kube_reserved": {"cpu": "500m", "memory": "512Mi"}})
    assert plan["kubelet_settings"]["kubeReserved"] == {"cpu": "500m", "memory": "512Mi"}
    assert plan["warnings"] == ["policy kube_reserved cpu 500m is overridden by reservedSystemCPUs (the kubelet then reserves 2 CPUs)"]
    assert plan["reserved"]["memory_bytes"] == {"0": 612 * MI}


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
