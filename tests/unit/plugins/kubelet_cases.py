"""Shared kubelet configuration cases: the canary fragment and configurations the kubelet refuses.

A plain data module (not a test): the validator's tests (module_utils/_kubelet/test_validate.py)
and the kubelet_config module's tests (modules/test_kubelet_config.py) both import it.
Every message is the kubelet's own wording (see the upstream file each rule in
plugins/module_utils/_kubelet/rules_*.py cites).
"""

# k8s.io/apimachinery/pkg/api/resource/quantity.go: ErrFormatWrong
QUANTITY_FORMAT = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"

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
     'failed to parse quantity "1GB" for "memory" resource: ' + QUANTITY_FORMAT),
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
     QUANTITY_FORMAT),
    ("reservedMemory numaNode type", {"reservedMemory": [{"numaNode": "0", "limits": {"memory": "2148Mi"}}]}, "reservedMemory[0].numaNode",
     "json: cannot unmarshal string into Go struct field MemoryReservation.reservedMemory.numaNode of type int32"),
]
