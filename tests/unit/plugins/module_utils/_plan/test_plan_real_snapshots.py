"""Plans for every real snapshot, each checked by the kubelet_config module's own validator.

Facts come from the real sysfs snapshots (hwloc's test data and the H200 host); the node runs
a realistic kubeadm main file with its own systemReserved and evictionHard. The plan is made
over that configuration, its kubelet settings are merged as the module merges a drop-in over
the main file, then validated by the same rules the module enforces before it writes.
"""

import glob
import os
import re

import pytest

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import cpulist as _cpulist
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kubelet.config import merge as _kubelet_merge
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kubelet.rules import validate as _validate
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts import schema as _schema
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import quantity as _quantity
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._plan import plan as _reservation
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts import gather as _topology
from ansible_collections.gpusmith.numa_gate.tests.unit import shared_paths

SNAPSHOTS = sorted(path[: -len(".truth.json")] for path in glob.glob(os.path.join(shared_paths.HWLOC, "*.truth.json")))
SNAPSHOTS.append(shared_paths.H200_VM)
MAIN = {"apiVersion": "kubelet.config.k8s.io/v1beta1", "kind": "KubeletConfiguration"}
# /var/lib/kubelet/config.yaml as kubeadm writes it, with the operator's own reservations and thresholds.
KUBEADM_MAIN = dict(MAIN, **{
    "cgroupDriver": "systemd",
    "clusterDNS": ["10.96.0.10"],
    "clusterDomain": "cluster.local",
    "systemReserved": {"memory": "512Mi"},
    "evictionHard": {"memory.available": "300Mi", "nodefs.available": "10%"},
})
MAIN_PATH = "/var/lib/kubelet/config.yaml"
DROPIN = "/etc/kubernetes/kubelet.conf.d/50-numa-gate.conf"
MI = 2**20
# A one-core machine has nothing left to reserve once one core stays allocatable per node.
UNPLANNABLE = {
    "2i386-2t-hugepagesizecount": "only 0 whole cores (0 logical CPUs) can be reserved while keeping one whole core allocatable",
}


def _policy(facts):
    # Only kube_reserved: systemReserved and evictionHard are the node's own, and the plan must count them, not replace them.
    policy = {"reserved_cpus": 2, "kube_reserved": {"memory": "256Mi"}}
    nodes = len(facts["numa_nodes"])
    if nodes > 8:
        # The kubelet refuses topology policies beyond 8 NUMA nodes unless this option is set.
        policy["kubelet_settings"] = {"topologyManagerPolicyOptions": {"max-allowable-numa-nodes": str(nodes)}}
    return policy


def _base():
    """The node's effective configuration before the collection's drop-in."""
    return _kubelet_merge.effective_config(KUBEADM_MAIN, [], main_path=MAIN_PATH)


def _plan(facts):
    return _reservation.reservation_plan(facts, _policy(facts), _base())


@pytest.mark.parametrize("root", SNAPSHOTS, ids=os.path.basename)
def test_plan_is_accepted_by_the_validator(root):
    facts = _topology.gather(root, gpu_source="sysfs")
    name = os.path.basename(root)
    if name in UNPLANNABLE:
        with pytest.raises(_reservation.PlanError, match=re.escape(UNPLANNABLE[name])):
            _plan(facts)
        return
    plan = _plan(facts)
    settings = plan["kubelet_settings"]
    assert "systemReserved" not in settings and "evictionHard" not in settings
    effective = _kubelet_merge.effective_config(KUBEADM_MAIN, [(DROPIN, dict(MAIN, **settings))], main_path=MAIN_PATH)
    assert effective["evictionHard"] == {"memory.available": "300Mi", "nodefs.available": "10%"}
    assert [str(problem) for problem in _validate.validate(effective, _schema.kubelet_node(facts))] == []

    reserved = _cpulist.parse(settings["reservedSystemCPUs"])
    online = set(_cpulist.parse(facts["cpus"]["online"]))
    assert len(reserved) >= 2 and set(reserved) <= online
    for core in facts["cores"]:
        siblings = set(_cpulist.parse(core["cpus"]))
        assert siblings <= set(reserved) or not siblings & set(reserved), "core %s split" % core["cpus"]
    total = sum(_quantity.to_bytes(entry["limits"]["memory"]) for entry in settings["reservedMemory"])
    # kubeReserved 256Mi (the policy) + systemReserved 512Mi + evictionHard memory.available 300Mi (both the node's main file)
    assert total == 256 * MI + 512 * MI + 300 * MI


def test_h200_plan_exact():
    """The real H200 VM: 16 single-thread cores on one node; two cores and all memory go to node 0."""
    facts = _topology.gather(shared_paths.H200_VM, gpu_source="sysfs")
    plan = _plan(facts)
    assert plan["kubelet_settings"]["reservedSystemCPUs"] == "0-1"
    assert plan["kubelet_settings"]["reservedMemory"] == [{"numaNode": 0, "limits": {"memory": "1068Mi"}}]
    assert plan["kubelet_settings"]["kubeReserved"] == {"memory": "256Mi"}
    assert plan["reasons"][1] == ("reservedMemory memory 1068Mi (1119879168 bytes) = kubeReserved memory 256Mi (policy) + systemReserved "
                                  "memory 512Mi (node config /var/lib/kubelet/config.yaml) + evictionHard memory.available 300Mi (node "
                                  "config /var/lib/kubelet/config.yaml), placed on NUMA nodes 0: 1068Mi in proportion to the reserved CPUs "
                                  "there")
    assert plan["allocatable"]["0"]["cpus"] == "2-15"
