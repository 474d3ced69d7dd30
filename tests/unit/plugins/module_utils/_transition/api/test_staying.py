# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The pods that stay through the kubelet's restart, predicted under the target policy (issue 28, part 1)."""

import pytest

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._transition.api import filters, staying

GI = 2 ** 30
# The real H200 VM of the molecule scenario: one NUMA node, 16 CPUs; the plan reserves 0-1 and 1Gi on node 0.
H200 = [{"id": 0, "cpus": "0-15", "memory_bytes": 64 * GI}]
TWO_SOCKETS = [{"id": 0, "cpus": "0-7,16-23", "memory_bytes": 32 * GI}, {"id": 1, "cpus": "8-15,24-31", "memory_bytes": 32 * GI}]
TARGET = {"cpuManagerPolicy": "static", "memoryManagerPolicy": "Static", "topologyManagerPolicy": "single-numa-node",
          "topologyManagerScope": "pod", "reservedSystemCPUs": "0-1", "reservedMemory": [{"numaNode": 0, "limits": {"memory": "1Gi"}}]}


def pod(name, cpu, memory="1Gi", guaranteed=True, owner="DaemonSet", namespace="kube-system", created="2026-12-04T09:00:00Z", phase="Running"):
    resources = {"requests": {"cpu": cpu, "memory": memory}}
    if guaranteed:
        resources["limits"] = {"cpu": cpu, "memory": memory}
    meta = {"name": name, "namespace": namespace, "uid": "uid-" + name, "creationTimestamp": created}
    if owner:
        meta["ownerReferences"] = [{"kind": owner, "name": name.rsplit("-", 1)[0], "controller": True, "apiVersion": "apps/v1"}]
    return {"metadata": meta, "spec": {"containers": [{"name": "main", "resources": resources}]}, "status": {"phase": phase}}


def test_the_planned_allocatable_per_numa_node_is_its_cpus_and_memory_less_the_reservation():
    target = staying.target_from(TARGET, H200)
    assert target == staying.Target("static", "Static", "single-numa-node", "pod", {0: (14, 63 * GI)})
    assert staying.target_from(dict(TARGET, reservedSystemCPUs="0,16"), TWO_SOCKETS).numa == {0: (14, 31 * GI), 1: (16, 32 * GI)}


def test_a_guaranteed_daemonset_pod_larger_than_a_numa_node_is_predicted_rejected_naming_why():
    found = staying.predict([pod("burner-x2k9f", "15")], staying.target_from(TARGET, H200))
    why = ("TopologyAffinityError (Resources cannot be allocated with Topology locality): Guaranteed, 15 exclusive CPUs and 1Gi of memory "
           "needed on one NUMA node under single-numa-node at pod scope; the planned allocatable left is NUMA 0: 14 CPUs, 63Gi")
    assert found == {
        "staying": [{"pod": "kube-system/burner-x2k9f", "uid": "uid-burner-x2k9f", "owner": "kube-system/burner", "qos": "Guaranteed",
                     "gpus": 0, "restarts": 0}],
        "rejected": [{"pod": "kube-system/burner-x2k9f", "reason": "TopologyAffinityError", "why": why, "allowed": False}],
        "refusals": ["kube-system/burner-x2k9f would be rejected after the restart: " + why]}


def test_a_rejection_allowed_by_owner_or_pod_name_is_no_refusal():
    target = staying.target_from(TARGET, H200)
    for allow in (["kube-system/burner"], ["kube-system/burner-x2k9f"]):
        found = staying.predict([pod("burner-x2k9f", "15")], target, allow=allow)
        assert (found["refusals"], [r["allowed"] for r in found["rejected"]]) == ([], [True])
    assert staying.predict([pod("burner-x2k9f", "15")], target, allow=["default/burner"])["refusals"] != []


def test_pods_are_placed_first_fit_in_creation_order_and_the_third_does_not_fit():
    target = staying.target_from(dict(TARGET, reservedSystemCPUs="0,16"), TWO_SOCKETS)
    pods = [pod("c-3", "10", created="2026-12-04T09:00:03Z"), pod("a-1", "10", created="2026-12-04T09:00:01Z"),
            pod("b-2", "10", created="2026-12-04T09:00:02Z")]
    ordered = sorted(pods, key=lambda p: p["metadata"]["creationTimestamp"])
    found = staying.predict(ordered, target)
    assert [r["pod"] for r in found["rejected"]] == ["kube-system/c-3"]
    assert found["rejected"][0]["why"].endswith("the planned allocatable left is NUMA 0: 4 CPUs, 30Gi, NUMA 1: 6 CPUs, 31Gi")


def test_container_scope_places_each_container_and_a_fractional_cpu_is_shared():
    target = staying.target_from(dict(TARGET, topologyManagerScope="container", memoryManagerPolicy="None"), H200)
    two = pod("pair-a", "7")
    side = {"requests": {"cpu": "7", "memory": "1Gi"}, "limits": {"cpu": "7", "memory": "1Gi"}}
    two["spec"]["containers"].append({"name": "side", "resources": side})
    assert staying.predict([two], target)["rejected"] == []
    assert staying.predict([pod("half-a", "1500m"), pod("big-a", "12")], target)["rejected"] == []
    assert [r["reason"] for r in staying.predict([pod("half-a", "1500m"), pod("big-a", "13")], target)["rejected"]] == ["OutOfcpu"]


def test_burstable_pods_take_no_exclusive_cpus_but_count_against_the_allocatable_cpus():
    target = staying.target_from(TARGET, H200)
    found = staying.predict([pod("agent-a", "8", guaranteed=False), pod("agent-b", "7", guaranteed=False)], target)
    assert found["refusals"] == ["kube-system/agent-b would be rejected after the restart: OutOfcpu (Node didn't have enough resource: cpu): the "
                                 "staying pods request 15 CPUs up to this one, the planned allocatable is 14"]
    assert [s["qos"] for s in found["staying"]] == ["not Guaranteed", "not Guaranteed"]


def test_without_single_numa_node_exclusive_cpus_come_from_the_whole_pool():
    target = staying.target_from(dict(TARGET, topologyManagerPolicy="none", reservedSystemCPUs="0,16"), TWO_SOCKETS)
    assert staying.predict([pod("wide-a", "20")], target)["rejected"] == []
    found = staying.predict([pod("wide-a", "20"), pod("wide-b", "20")], target)
    assert found["refusals"] == ["kube-system/wide-b would be rejected after the restart: UnexpectedAdmissionError (not enough cpus available "
                                 "to satisfy request): Guaranteed, 20 exclusive CPUs needed, 10 planned allocatable CPUs left"]


def test_the_none_cpu_policy_admits_what_fits_the_node():
    target = staying.target_from(dict(TARGET, cpuManagerPolicy="none", memoryManagerPolicy="None"), H200)
    assert staying.predict([pod("burner-x2k9f", "14")], target)["rejected"] == []


def test_bad_input_is_refused_naming_the_value_and_the_rule():
    with pytest.raises(staying.AdmissionError) as caught:
        staying.predict([pod("odd-a", "two")], staying.target_from(TARGET, H200))
    assert str(caught.value) == "kube-system/odd-a cpu must be a resource quantity (like 2, 500m or 4Gi), not 'two'"
    with pytest.raises(staying.AdmissionError) as caught:
        staying.target_from(dict(TARGET, reservedSystemCPUs="3-1"), H200)
    assert str(caught.value) == "reservedSystemCPUs must be a cpulist (like 0-3,8), not '3-1'"
    with pytest.raises(staying.AdmissionError) as caught:
        staying.target_from(TARGET, [])
    assert str(caught.value) == "admission needs the node's NUMA nodes (the topology facts' numa_nodes), none were given"


def test_the_staying_pods_are_what_the_drain_skips_unfinished_in_creation_order():
    pods = [pod("agent-b", "1", created="2026-12-04T09:00:02Z"), pod("agent-a", "1", created="2026-12-04T09:00:01Z"),
            pod("done-a", "1", phase="Failed"), pod("web-a", "1", owner="ReplicaSet", namespace="default")]
    selection = filters.Selection([pods[3]], [{"pod": "kube-system/agent-b", "reason": "x"}, {"pod": "kube-system/agent-a", "reason": "x"},
                                              {"pod": "kube-system/done-a", "reason": "x"}], [], [])
    assert [filters.pod_name(p) for p in staying.staying(pods, selection)] == ["kube-system/agent-a", "kube-system/agent-b"]


def test_the_extended_resources_are_the_allocatable_names_beyond_cpu_memory_pods_storage_and_hugepages():
    node = {"status": {"allocatable": {"cpu": "14", "memory": "1Gi", "pods": "110", "ephemeral-storage": "1Gi", "hugepages-2Mi": "0",
                                       "nvidia.com/gpu": "8", "rdma/ib": 4}}}
    assert staying.extended(node) == {"nvidia.com/gpu": "8", "rdma/ib": "4"}


def test_a_staying_pods_gpus_and_restarts_are_kept_for_the_check_after_the_start():
    trainer = pod("trainer-a", "2", guaranteed=False)
    trainer["spec"]["containers"][0]["resources"]["limits"] = {"nvidia.com/gpu": "2"}
    trainer["status"]["containerStatuses"] = [{"name": "main", "restartCount": 3}]
    found = staying.predict([trainer], staying.target_from(TARGET, H200))
    assert (found["staying"][0]["gpus"], found["staying"][0]["restarts"]) == (2, 3)
