"""Plans for every real snapshot, each checked by the kubelet_config module's own validator.

Facts come from the real sysfs snapshots (hwloc's test data and the H200 host); the plan's
kubelet settings are merged as the module merges a drop-in over a main file, then validated
by the same rules the module enforces before it writes.
"""

import glob
import os
import re

import pytest

from ansible_collections.gpusmith.numa_gate.plugins.module_utils import _cpulist
from ansible_collections.gpusmith.numa_gate.plugins.module_utils import _kubelet_merge
from ansible_collections.gpusmith.numa_gate.plugins.module_utils import _kubelet_validation
from ansible_collections.gpusmith.numa_gate.plugins.module_utils import _quantity
from ansible_collections.gpusmith.numa_gate.plugins.module_utils import _reservation
from ansible_collections.gpusmith.numa_gate.plugins.module_utils import _topology
from ansible_collections.gpusmith.numa_gate.tests.unit import shared_paths

SNAPSHOTS = sorted(path[: -len(".truth.json")] for path in glob.glob(os.path.join(shared_paths.HWLOC, "*.truth.json")))
SNAPSHOTS.append(shared_paths.H200_VM)
MAIN = {"apiVersion": "kubelet.config.k8s.io/v1beta1", "kind": "KubeletConfiguration"}
# A one-core machine has nothing left to reserve once one core stays allocatable per node.
UNPLANNABLE = {
    "2i386-2t-hugepagesizecount": "only 0 whole cores (0 logical CPUs) can be reserved while keeping one whole core allocatable",
}


def _policy(facts):
    policy = {"reserved_cpus": 2, "system_reserved": {"memory": "512Mi"}, "kube_reserved": {"memory": "256Mi"}}
    nodes = len(facts["numa_nodes"])
    if nodes > 8:
        # The kubelet refuses topology policies beyond 8 NUMA nodes unless this option is set.
        policy["kubelet_settings"] = {"topologyManagerPolicyOptions": {"max-allowable-numa-nodes": str(nodes)}}
    return policy


def _node(facts):
    memory = {node["id"]: node["memory_bytes"] or 0 for node in facts["numa_nodes"]}
    return {"online_cpus": facts["cpus"]["online"], "numa_nodes": memory, "memory_bytes": sum(memory.values())}


@pytest.mark.parametrize("root", SNAPSHOTS, ids=os.path.basename)
def test_plan_is_accepted_by_the_validator(root):
    facts = _topology.gather(root, gpu_source="sysfs")
    name = os.path.basename(root)
    if name in UNPLANNABLE:
        with pytest.raises(_reservation.PlanError, match=re.escape(UNPLANNABLE[name])):
            _reservation.reservation_plan(facts, _policy(facts))
        return
    plan = _reservation.reservation_plan(facts, _policy(facts))
    settings = plan["kubelet_settings"]
    effective = _kubelet_merge.effective_config(MAIN, [("/etc/kubernetes/kubelet.conf.d/50-numa-gate.conf", dict(MAIN, **settings))])
    assert [problem.message for problem in _kubelet_validation.validate(effective, _node(facts))] == []

    reserved = _cpulist.parse(settings["reservedSystemCPUs"])
    online = set(_cpulist.parse(facts["cpus"]["online"]))
    assert len(reserved) >= 2 and set(reserved) <= online
    for core in facts["cores"]:
        siblings = set(_cpulist.parse(core["cpus"]))
        assert siblings <= set(reserved) or not siblings & set(reserved), "core %s split" % core["cpus"]
    total = sum(_quantity.to_bytes(entry["limits"]["memory"]) for entry in settings["reservedMemory"])
    assert total == 512 * 2**20 + 256 * 2**20 + 100 * 2**20


def test_h200_plan_exact():
    """The real H200 VM: 16 single-thread cores on one node; two cores and all memory go to node 0."""
    facts = _topology.gather(shared_paths.H200_VM, gpu_source="sysfs")
    plan = _reservation.reservation_plan(facts, _policy(facts))
    assert plan["kubelet_settings"]["reservedSystemCPUs"] == "0-1"
    assert plan["kubelet_settings"]["reservedMemory"] == [{"numaNode": 0, "limits": {"memory": "868Mi"}}]
    assert plan["allocatable"]["0"]["cpus"] == "2-15"
