"""Unit tests for the kubelet configuration rules.

Every expected message is the kubelet's own wording (see the upstream file
each rule in _kubelet_validation cites); the tests assert it exactly.
"""

import copy
import struct

import pytest

from ansible_collections.gpusmith.numa_gate.plugins.module_utils import _kubelet_merge as merge
from ansible_collections.gpusmith.numa_gate.plugins.module_utils import _kubelet_validation as kv

GI = 1 << 30
MI = 1 << 20
NODE = {"online_cpus": "0-15", "numa_nodes": {0: 32 * GI, 1: 32 * GI}, "memory_bytes": 64 * GI}

# The canary fragment: pod-level resource managers with matching reservations.
CANARY = {
    "apiVersion": "kubelet.config.k8s.io/v1beta1",
    "kind": "KubeletConfiguration",
    "featureGates": {"PodLevelResources": True, "PodLevelResourceManagers": True},
    "cpuManagerPolicy": "static",
    "cpuManagerPolicyOptions": {"full-pcpus-only": "true"},
    "memoryManagerPolicy": "Static",
    "topologyManagerPolicy": "single-numa-node",
    "topologyManagerScope": "pod",
    "reservedSystemCPUs": "0,8",
    "kubeReserved": {"memory": "1Gi"},
    "systemReserved": {"memory": "1Gi"},
    "evictionHard": {"memory.available": "100Mi"},
    "reservedMemory": [
        {"numaNode": 0, "limits": {"memory": "1124Mi"}},
        {"numaNode": 1, "limits": {"memory": "1Gi"}},
    ],
}


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


# Each case: the changes to the canary, the key, and the kubelet's message.
INVALID = [
    ("cpu policy case", {"cpuManagerPolicy": "Static"}, "cpuManagerPolicy", 'unknown policy: "Static"'),
    ("memory policy case", {"memoryManagerPolicy": "static"}, "memoryManagerPolicy", 'unknown policy: "static"'),
    ("memory policy BestEffort", {"memoryManagerPolicy": "BestEffort"}, "memoryManagerPolicy",
     'policy "BestEffort" is not available for platform "linux"'),
    ("topology policy", {"topologyManagerPolicy": "single-numa"}, "topologyManagerPolicy",
     'invalid configuration: topologyManagerPolicy (--topology-manager-policy) "single-numa" must be one of: '
     '["none" "best-effort" "restricted" "single-numa-node"]'),
    ("topology scope", {"topologyManagerScope": "Pod"}, "topologyManagerScope",
     'invalid configuration: topologyManagerScope (--topology-manager-scope) "Pod" must be one of: "container", or "pod"'),
    ("reserved cpus parse", {"reservedSystemCPUs": "0-"}, "reservedSystemCPUs",
     "invalid configuration: unable to parse reservedSystemCPUs (--reserved-cpus) 0-, error: cpulist '0-': '0-' is not a CPU id or a range 'a-b'"),
    ("reserved cpus offline", {"reservedSystemCPUs": "0,99"}, "reservedSystemCPUs",
     "reserved-cpus: 0,99 is not a subset of online-cpus: 0-15"),
    ("reserved cpus with cgroup", {"systemReservedCgroup": "/system.slice"}, "reservedSystemCPUs",
     "invalid configuration: can't use reservedSystemCPUs (--reserved-cpus) with systemReservedCgroup (--system-reserved-cgroup) "
     "or kubeReservedCgroup (--kube-reserved-cgroup)"),
    ("static without cpu reservation", {"reservedSystemCPUs": None}, "cpuManagerPolicy",
     "[cpumanager] the static policy requires systemreserved.cpu + kubereserved.cpu to be greater than zero "
     "(with nothing reserved the kubelet stops with \"[cpumanager] unable to determine reserved CPU resources for static policy\")"),
    ("limit type", {"reservedMemory": [{"numaNode": 0, "limits": {"memory": "2148Mi", "cpu": "1"}}]}, "reservedMemory[0].limits.cpu",
     'invalid configuration: the limit type "cpu" for NUMA node 0 is not supported, only [memory hugepages-<HugePageSize>] is accepted'),
    ("zero entry", {"reservedMemory": [{"numaNode": 0, "limits": {"memory": "2148Mi"}}, {"numaNode": 1, "limits": {"memory": "0"}}]},
     "reservedMemory[1].limits.memory", 'invalid configuration: reserved memory may not be zero for NUMA node 1 and resource "memory"'),
    ("duplicate entry", {"reservedMemory": [{"numaNode": 0, "limits": {"memory": "1124Mi"}}, {"numaNode": 0, "limits": {"memory": "1Gi"}}]},
     "reservedMemory[1].limits.memory",
     'invalid configuration: the reserved memory has a duplicate value for NUMA node 0 and resource "memory"'),
    ("missing NUMA node", {"reservedMemory": [{"numaNode": 0, "limits": {"memory": "1124Mi"}}, {"numaNode": 2, "limits": {"memory": "1Gi"}}]},
     "reservedMemory[1].numaNode", "the reserved memory configuration references a NUMA node 2 that does not exist on this machine"),
    ("sum too small", {"reservedMemory": [{"numaNode": 0, "limits": {"memory": "1Gi"}}, {"numaNode": 1, "limits": {"memory": "1Gi"}}]},
     "reservedMemory",
     'the total amount "2Gi" of type "memory" is not equal to the value "2148Mi" determined by Node Allocatable feature'),
    ("no reservedMemory", {"reservedMemory": None}, "reservedMemory",
     'the total amount "0" of type "memory" is not equal to the value "2148Mi" determined by Node Allocatable feature'),
    ("hugepages reserved", {"reservedMemory": [{"numaNode": 0, "limits": {"memory": "2148Mi", "hugepages-1Gi": "1Gi"}}]}, "reservedMemory",
     'the total amount "1Gi" of type "hugepages-1Gi" is not equal to the value "0" determined by Node Allocatable feature'),
    ("partial evictionHard zeroes memory.available", {"evictionHard": {"memory.available": None, "nodefs.available": "10%"}},
     "reservedMemory", 'the total amount "2148Mi" of type "memory" is not equal to the value "2Gi" determined by Node Allocatable feature'),
    ("too many NUMA nodes", {}, "topologyManagerPolicy", "unsupported on machines with more than 8 NUMA Nodes"),
    ("max-allowable below 8", {"topologyManagerPolicyOptions": {"max-allowable-numa-nodes": "4"}},
     "topologyManagerPolicyOptions.max-allowable-numa-nodes",
     'the minimum value of "max-allowable-numa-nodes" should not be less than 8'),
    ("max-allowable not a number", {"topologyManagerPolicyOptions": {"max-allowable-numa-nodes": "lots"}},
     "topologyManagerPolicyOptions.max-allowable-numa-nodes",
     'unable to convert policy option to integer "max-allowable-numa-nodes": strconv.Atoi: parsing "lots": invalid syntax'),
    ("unknown topology option", {"topologyManagerPolicyOptions": {"prefer-closest-numa": "true"}},
     "topologyManagerPolicyOptions.prefer-closest-numa", 'unknown Topology Manager Policy option: "prefer-closest-numa"'),
    ("bad topology option value", {"topologyManagerPolicyOptions": {"prefer-closest-numa-nodes": "yes"}},
     "topologyManagerPolicyOptions.prefer-closest-numa-nodes",
     'bad value for option "prefer-closest-numa-nodes": strconv.ParseBool: parsing "yes": invalid syntax'),
    ("unknown cpu option", {"cpuManagerPolicyOptions": {"full-pcpu-only": "true"}}, "cpuManagerPolicyOptions.full-pcpu-only",
     'unknown CPU Manager Policy option: "full-pcpu-only"'),
    ("alpha cpu option without gate", {"cpuManagerPolicyOptions": {"align-by-socket": "true"}}, "cpuManagerPolicyOptions.align-by-socket",
     'CPU Manager Policy Alpha-level Options not enabled, but option "align-by-socket" provided'),
    ("beta cpu option with gate off", {"featureGates": {"CPUManagerPolicyBetaOptions": False},
                                       "cpuManagerPolicyOptions": {"distribute-cpus-across-numa": "true"}},
     "cpuManagerPolicyOptions.distribute-cpus-across-numa",
     'CPU Manager Policy Beta-level Options not enabled, but option "distribute-cpus-across-numa" provided'),
    ("cpu option unquoted", {"cpuManagerPolicyOptions": {"full-pcpus-only": True}}, "cpuManagerPolicyOptions.full-pcpus-only",
     "json: cannot unmarshal bool into Go struct field KubeletConfiguration.cpuManagerPolicyOptions of type string"),
    ("cpu option bad bool", {"cpuManagerPolicyOptions": {"full-pcpus-only": "on"}}, "cpuManagerPolicyOptions.full-pcpus-only",
     'bad value for option "full-pcpus-only": strconv.ParseBool: parsing "on": invalid syntax'),
    ("options with none policy", {"cpuManagerPolicy": "none"}, "cpuManagerPolicyOptions",
     "None policy: received unsupported options=map[full-pcpus-only:true]"),
    ("exclusive cpu options", {"featureGates": {"CPUManagerPolicyAlphaOptions": True},
                               "cpuManagerPolicyOptions": {"distribute-cpus-across-cores": "true"}},
     "cpuManagerPolicyOptions",
     "static policy options full-pcpus-only and distribute-cpus-across-cores can not be used at the same time"),
    ("align-by-socket with single-numa-node", {"featureGates": {"CPUManagerPolicyAlphaOptions": True},
                                               "cpuManagerPolicyOptions": {"align-by-socket": "true"}},
     "cpuManagerPolicyOptions.align-by-socket",
     "Topolgy manager single-numa-node policy is incompatible with CPUManager align-by-socket policy option"),
    ("gate dependency", {"featureGates": {"PodLevelResources": False}}, "featureGates.PodLevelResourceManagers",
     "PodLevelResourceManagers is enabled, but depends on features that are disabled: [PodLevelResources]"),
    ("gate not a bool", {"featureGates": {"PodLevelResourceManagers": "true"}}, "featureGates.PodLevelResourceManagers",
     "json: cannot unmarshal string into Go struct field KubeletConfiguration.featureGates of type bool"),
    ("gate name case", {"featureGates": {"podLevelResourceManagers": True}}, "featureGates.podLevelResourceManagers",
     "unrecognized feature gate: podLevelResourceManagers"),
    ("gate name typo", {"featureGates": {"PodLevelResourceManager": True}}, "featureGates.PodLevelResourceManager",
     "unrecognized feature gate: PodLevelResourceManager"),
    ("locked gate", {"featureGates": {"MemoryManager": False}}, "featureGates.MemoryManager",
     "cannot set feature gate MemoryManager to false, feature is locked to true"),
    ("reserve hugepages", {"kubeReserved": {"hugepages-1Gi": "1Gi"}}, "kubeReserved.hugepages-1Gi",
     'cannot reserve "hugepages-1Gi" resource'),
    ("reserved quantity", {"kubeReserved": {"memory": "1GB"}}, "kubeReserved.memory",
     'failed to parse quantity "1GB" for "memory" resource: ' + kv.QUANTITY_FORMAT),
    ("reserved negative", {"systemReserved": {"memory": "-1Gi"}}, "systemReserved.memory",
     'resource quantity for "memory" cannot be negative: -1Gi'),
    ("reserved number unquoted", {"kubeReserved": {"cpu": 1}}, "kubeReserved.cpu",
     "json: cannot unmarshal number into Go struct field KubeletConfiguration.kubeReserved of type string"),
    ("reservation above capacity", {"systemReserved": {"memory": "100Gi"},
                                    "reservedMemory": [{"numaNode": 0, "limits": {"memory": "31Gi"}},
                                                       {"numaNode": 1, "limits": {"memory": "71780Mi"}}]},
     "kubeReserved/systemReserved/evictionHard",
     'invalid Node Allocatable configuration. Resource "memory" has a reservation of 103524Mi but capacity of 64Gi. '
     "Expected capacity >= reservation."),
    ("eviction above 100%", {"evictionHard": {"memory.available": "120%"}}, "evictionHard.memory.available",
     "eviction percentage threshold memory.available must be <= 100%: 120%"),
    ("eviction zero quantity", {"evictionHard": {"nodefs.available": "0"}}, "evictionHard.nodefs.available",
     "eviction threshold nodefs.available must be positive: 0"),
    ("eviction unknown signal", {"evictionHard": {"memory.free": "1Gi"}}, "evictionHard.memory.free",
     "unsupported eviction signal memory.free"),
    ("reservedMemory quantity", {"reservedMemory": [{"numaNode": 0, "limits": {"memory": "2148MB!"}}]}, "reservedMemory[0].limits.memory",
     kv.QUANTITY_FORMAT),
    ("reservedMemory numaNode type", {"reservedMemory": [{"numaNode": "0", "limits": {"memory": "2148Mi"}}]}, "reservedMemory[0].numaNode",
     "json: cannot unmarshal string into Go struct field MemoryReservation.reservedMemory.numaNode of type int32"),
]


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
    assert kv.reserved_memory_total(canary(evictionHard={"memory.available": "5%"}), 64 * GI) == 2 * GI + 3435973888


def test_percentage_eviction_without_node_memory_skips_sums():
    assert kv.validate(canary(evictionHard={"memory.available": "5%"}), {"online_cpus": "0-15"}) == []


def test_reserved_memory_total_defaults():
    config = {"kubeReserved": {"memory": "1Gi"}, "systemReserved": {"memory": "512Mi"}}
    assert kv.reserved_memory_total(config, 64 * GI) == GI + 512 * MI + 100 * MI


def test_reserved_memory_total_ignore_eviction_threshold():
    config = {"kubeReserved": {"memory": "1Gi"}, "experimentalNodeAllocatableIgnoreEvictionThreshold": True}
    assert kv.reserved_memory_total(config, 64 * GI) == GI


def test_reserved_memory_total_refuses_bad_values():
    with pytest.raises(kv.KubeletValidationError) as err:
        kv.reserved_memory_total({"kubeReserved": {"memory": "lots"}}, GI)
    assert 'failed to parse quantity "lots" for "memory" resource' in str(err.value)


def test_node_allocatable_reservation_reserved_cpus_replace_cpu_reservations():
    config = {"reservedSystemCPUs": "0-3", "kubeReserved": {"cpu": "1", "memory": "1Gi"}, "systemReserved": {"cpu": "500m"}}
    assert kv.node_allocatable_reservation(config, 64 * GI) == {"cpu": 4000, "memory": GI + 100 * MI}


@pytest.mark.parametrize("config, expected", [
    ({}, merge.DEFAULT_EVICTION_HARD),
    ({"evictionHard": {"memory.available": "1Gi"}},
     {"memory.available": "1Gi", "nodefs.available": "0", "nodefs.inodesFree": "0", "imagefs.available": "0", "imagefs.inodesFree": "0"}),
    ({"evictionHard": {"memory.available": "1Gi"}, "mergeDefaultEvictionSettings": True},
     {"memory.available": "1Gi", "nodefs.available": "10%", "nodefs.inodesFree": "5%", "imagefs.available": "15%", "imagefs.inodesFree": "5%"}),
    ({"evictionHard": {"pid.available": "10%"}},
     {"memory.available": "0", "nodefs.available": "0", "nodefs.inodesFree": "0", "imagefs.available": "0", "imagefs.inodesFree": "0",
      "pid.available": "10%"}),
])
def test_effective_eviction_hard(config, expected):
    assert kv.effective_eviction_hard(config) == expected


def test_effective_eviction_hard_refuses_a_non_mapping():
    with pytest.raises(kv.KubeletValidationError):
        kv.effective_eviction_hard({"evictionHard": "memory.available<1Gi"})


def test_eviction_zero_and_hundred_percent_mean_no_threshold():
    assert kv.reserved_memory_total({"evictionHard": {"memory.available": "0%"}}, GI) == 0
    assert kv.reserved_memory_total({"evictionHard": {"memory.available": "100%"}}, GI) == 0


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
    assert kv.format_bytes(0) == "0"
    assert kv.format_bytes(100) == "100"
    assert kv.format_bytes(1024) == "1Ki"
    assert kv.format_bytes(2148 * MI) == "2148Mi"
    assert kv.format_bytes(1500) == "1500"
