# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The drain checked before the cordon, against the API server double: dry-run evictions, refused pods, pods summed per budget."""

import pytest

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._transition.api import drain, dry_run

OPTIONS = drain.DEFAULT_OPTIONS
NOTHING = "checked before the cordon by a server-side dry run; nothing was cordoned or evicted"


def writes(double):
    return [(method, path) for method, path in double.requests if method not in ("GET",)]


def seeded(double, replicas=2, min_available=1):
    """Node n1 with ``replicas`` db pods under one budget (the ReplicaSet's other pods on n2), and a DaemonSet pod."""
    double.add_node("n1")
    double.add_node("n2")
    for index in range(replicas):
        double.add_pod("db-%d" % index, "n1", owner_kind="ReplicaSet", owner_name="db", labels={"app": "db"})
    double.add_pod("db-9", "n2", owner_kind="ReplicaSet", owner_name="db", labels={"app": "db"})
    double.add_pod("agent-n1", "n1", namespace="kube-system", owner_kind="DaemonSet", owner_name="agent", labels={"app": "agent"})
    double.add_pdb("db-pdb", {"app": "db"}, min_available=min_available)


def test_a_drain_that_would_go_through_sends_only_dry_runs(double, kube):
    seeded(double, replicas=1)
    assert dry_run.check(kube, "n1", OPTIONS) == {
        "changed": False, "would_evict": ["default/db-0"],
        "skipped_pods": [{"pod": "kube-system/agent-n1", "reason": "DaemonSet-managed"}], "pod_warnings": [],
        "budgets": [{"budget": "default/db-pdb", "disruptions_allowed": 1, "pods": ["default/db-0"]}], "budget_waits": []}
    assert writes(double) == [("POST", "/api/v1/namespaces/default/pods/db-0/eviction")]
    assert double.pod_names("n1") == ["default/db-0", "kube-system/agent-n1"]
    assert double.node("n1")["spec"] == {}


def test_pods_that_pass_one_by_one_are_summed_per_budget_and_wait_their_turn(double, kube):
    # Three pods healthy, minAvailable 2: the budget allows 1; each dry run passes alone, the two on n1 leave one after the other.
    seeded(double, replicas=2, min_available=2)
    result = dry_run.check(kube, "n1", OPTIONS)
    assert result["budgets"] == [{"budget": "default/db-pdb", "disruptions_allowed": 1, "pods": ["default/db-0", "default/db-1"]}]
    assert result["budget_waits"] == [
        "default/db-0, default/db-1 leave one by one: PodDisruptionBudget default/db-pdb allows 1 disruption and the drain would evict 2 of its "
        "pods; the drain waits for their replacements to be healthy elsewhere, within its bound"]
    assert [m for m, _p in writes(double)] == ["POST", "POST"]
    assert double.pod_names("n1") == ["default/db-0", "default/db-1", "kube-system/agent-n1"]


def test_a_pod_whose_budget_allows_nothing_refuses_naming_pod_budget_and_disruptions(double, kube):
    double.add_node("n1")
    double.add_pod("db-0", "n1", owner_kind="ReplicaSet", owner_name="db", labels={"app": "db"})
    double.add_pdb("db-pdb", {"app": "db"}, min_available=1)
    with pytest.raises(dry_run.DryRunError) as caught:
        dry_run.check(kube, "n1", OPTIONS)
    assert str(caught.value) == (
        "the drain of n1 would not go through now: default/db-0 cannot leave now: PodDisruptionBudget default/db-pdb allows 0 disruptions "
        "(Cannot evict pod as it would violate the pod's disruption budget); " + NOTHING)
    assert caught.value.details["refusals"] == [
        "default/db-0 cannot leave now: PodDisruptionBudget default/db-pdb allows 0 disruptions (Cannot evict pod as it would violate the pod's "
        "disruption budget)"]
    assert writes(double) == [("POST", "/api/v1/namespaces/default/pods/db-0/eviction")]
    assert double.pod_names("n1") == ["default/db-0"]


def test_pods_the_drain_would_refuse_refuse_first_and_nothing_is_sent(double, kube):
    double.add_node("n1")
    double.add_pod("debug", "n1")
    double.add_pod("web-1", "n1", owner_kind="ReplicaSet", owner_name="web", labels={"app": "web"})
    with pytest.raises(dry_run.DryRunError) as caught:
        dry_run.check(kube, "n1", OPTIONS)
    assert str(caught.value) == ("the drain of n1 would refuse: cannot delete Pods that declare no controller (use force=true to override): "
                                 "default/debug; " + NOTHING)
    assert caught.value.details["would_evict"] == ["default/web-1"]
    assert writes(double) == []


def test_force_lets_the_unmanaged_pod_through_with_its_warning(double, kube):
    double.add_node("n1")
    double.add_pod("debug", "n1")
    result = dry_run.check(kube, "n1", OPTIONS._replace(force=True))
    assert (result["would_evict"], result["pod_warnings"], result["budgets"]) == (
        ["default/debug"], ["deleting Pods that declare no controller: default/debug"], [])
    assert writes(double) == [("POST", "/api/v1/namespaces/default/pods/debug/eviction")]
    assert double.pod_names("n1") == ["default/debug"]


def test_finished_pods_are_not_counted_against_their_budget(double, kube):
    seeded(double, replicas=1, min_available=2)
    double.add_pod("db-old", "n1", owner_kind="ReplicaSet", owner_name="db", labels={"app": "db"}, phase="Succeeded")
    result = dry_run.check(kube, "n1", OPTIONS)
    assert result["would_evict"] == ["default/db-0", "default/db-old"]
    assert result["budgets"] == [{"budget": "default/db-pdb", "disruptions_allowed": 1, "pods": ["default/db-0"]}]


GUARANTEED_15 = {"requests": {"cpu": "15", "memory": "1Gi"}, "limits": {"cpu": "15", "memory": "1Gi"}}
ADMISSION = {"config": {"cpuManagerPolicy": "static", "memoryManagerPolicy": "Static", "topologyManagerPolicy": "single-numa-node",
                        "topologyManagerScope": "pod", "reservedSystemCPUs": "0-1",
                        "reservedMemory": [{"numaNode": 0, "limits": {"memory": "1Gi"}}]},
             "numa_nodes": [{"id": 0, "cpus": "0-15", "memory_bytes": 64 * 2 ** 30}], "allow": []}


def with_resources(double, name, resources, namespace="kube-system"):
    """Give pod ``name``'s container ``resources`` (as its manifest would have them)."""
    with double.store.cond:
        pod = double.store.get("pods", namespace, name)
        pod["spec"]["containers"][0]["resources"] = resources
        double.store.update("pods", pod, check_version=False)


def test_a_staying_pod_the_target_would_reject_refuses_before_any_dry_run(double, kube):
    seeded(double, replicas=1)
    with_resources(double, "agent-n1", GUARANTEED_15)
    with pytest.raises(dry_run.DryRunError) as caught:
        dry_run.check(kube, "n1", OPTIONS, admission=ADMISSION)
    assert str(caught.value) == (
        "the pods that stay on n1 through the restart would not all be admitted under the target policy: kube-system/agent-n1 would be "
        "rejected after the restart: TopologyAffinityError (Resources cannot be allocated with Topology locality): Guaranteed, 15 exclusive "
        "CPUs and 1Gi of memory needed on one NUMA node under single-numa-node at pod scope; the planned allocatable left is NUMA 0: 14 CPUs, "
        "63Gi; allow a pod by name with kubelet_transition_allow_rejected_pods (namespace/pod or namespace/owner); " + NOTHING)
    assert caught.value.details["predicted_rejections"][0]["reason"] == "TopologyAffinityError"
    assert writes(double) == []


def test_an_allowed_rejection_is_a_warning_and_the_result_keeps_what_the_verify_compares(double, kube):
    double.add_node("n1", capacity={"nvidia.com/gpu": "8"})
    double.add_pod("agent-n1", "n1", namespace="kube-system", owner_kind="DaemonSet", owner_name="agent", labels={"app": "agent"})
    double.add_pod("old-job", "n1", owner_kind="ReplicaSet", owner_name="old", labels={"app": "old"}, phase="Failed")
    with_resources(double, "agent-n1", GUARANTEED_15)
    result = dry_run.check(kube, "n1", OPTIONS, admission=dict(ADMISSION, allow=["kube-system/agent"], device_access_override=True))
    assert result["extended_resources"] == {"nvidia.com/gpu": "8"}
    assert result["failed_before"] == [double.pod("old-job")["metadata"]["uid"]]
    assert [s["pod"] for s in result["staying"]] == ["kube-system/agent-n1"]
    assert result["pod_warnings"] == [
        "kube-system/agent-n1 would be rejected after the restart (allowed by name): " + result["predicted_rejections"][0]["why"],
        "n1 has nvidia.com/gpu but no pod of the NVIDIA device plugin (an image .../k8s-device-plugin or a container nvidia-device-plugin*): how "
        "it hands out GPUs cannot be told (overridden by kubelet_transition_gpu_device_access_override)"]


def test_a_device_plugin_without_cpu_manager_compatibility_refuses_before_any_dry_run(double, kube):
    double.add_node("n1", capacity={"nvidia.com/gpu": "8"})
    double.add_pod("nvdp-abcde", "n1", namespace="kube-system", owner_kind="DaemonSet", owner_name="nvdp", labels={"app": "nvdp"})
    double.add_pod("web-1", "n1", owner_kind="ReplicaSet", owner_name="web", labels={"app": "web"})
    with double.store.cond:
        pod = double.store.get("pods", "kube-system", "nvdp-abcde")
        pod["spec"]["containers"][0].update(name="nvidia-device-plugin-ctr", image="nvcr.io/nvidia/k8s-device-plugin:v0.20.0")
        double.store.update("pods", pod, check_version=False)
    with pytest.raises(dry_run.DryRunError) as caught:
        dry_run.check(kube, "n1", OPTIONS, admission=ADMISSION)
    assert str(caught.value).startswith(
        "enabling the static CPU manager: the GPU device plugin kube-system/nvdp-abcde (container nvidia-device-plugin-ctr) runs without "
        "CPU-manager compatibility: DEVICE_LIST_STRATEGY is envvar (the plugin's default), PASS_DEVICE_SPECS is false (the plugin's default), "
        "the container is not privileged; ")
    assert str(caught.value).endswith("; " + NOTHING)
    assert caught.value.details["device_access"]["safe"] is False
    assert writes(double) == []


def test_check_mode_sends_no_dry_run_and_reads_the_blocking_budget(double, kube):
    seeded(double, replicas=2, min_available=2)
    result = dry_run.check(kube, "n1", OPTIONS, check_mode=True)
    assert result["budget_waits"][0].startswith("default/db-0, default/db-1 leave one by one: PodDisruptionBudget default/db-pdb allows 1")
    double.add_pdb("ledger-pdb", {"app": "ledger"}, max_unavailable=0)
    double.add_pod("ledger-0", "n1", owner_kind="ReplicaSet", owner_name="ledger", labels={"app": "ledger"})
    with pytest.raises(dry_run.DryRunError) as caught:
        dry_run.check(kube, "n1", OPTIONS, check_mode=True)
    assert caught.value.details["refusals"] == [
        "default/ledger-0 cannot leave now: PodDisruptionBudget default/ledger-pdb allows 0 disruptions (read in check mode; no dry run sent)"]
    assert writes(double) == []
