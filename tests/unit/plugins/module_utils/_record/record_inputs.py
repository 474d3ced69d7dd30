"""Inputs for acceptance-record tests (a plain helper, not a test): the real H200 facts, a multi-NUMA hwloc snapshot, the canary's evidence.

The facts are gathered from the real fixtures in place (`_facts.gather.gather(root, gpu_source="sysfs")`);
the canary's PodResources answer is the report's canary (pod 4 CPUs, main 2 exclusive, sidecars on the
pod's shared pool, the GPU kept), and its cgroups are a recorded tree written under a given folder.
"""

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence.podresources import allocations
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence.placement import read as placement
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence.reconcile import findings as reconcile
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._service_comparison import compare as service_compare
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._record import service_slack
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts.gather import gather
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._plan import locality
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._plan.plan import reservation_plan
from ansible_collections.gpusmith.numa_gate.tests.unit import shared_paths
from ansible_collections.gpusmith.numa_gate.tests.unit.plugins.module_utils._rehearsal import rehearsal_cases
from ansible_collections.gpusmith.numa_gate.tests.unit.plugins.module_utils._service_comparison import runs_cases as service_runs
from ansible_collections.gpusmith.numa_gate.tests.unit.plugins.module_utils._evidence.evidence_trees import node_tree
from ansible_collections.gpusmith.numa_gate.tests.unit.plugins.module_utils._record import test_service_slack as slack_cases

GPU_UUID = "GPU-5e1b2c3d-4e5f-6a7b-8c9d-0e1f2a3b4c5d"
HOSTILE_GPU_NAME = 'NVIDIA H200 <script>alert("gpu")</script> \'quoted\''
HOSTILE_NIC_NAME = 'eth0"><img src=x onerror=alert(1)>'
HOSTILE_MESSAGE = '<script>document.title="owned"</script> "TopologyAffinityError" & \'more\''
MULTI_NUMA = "40intel64-2g2n4c+pci"
UID = "7c1d9e2f-3a4b-4c5d-8e6f-7a8b9c0d1e2f"
MAIN = "c" * 64
METRICS_ID = "d" * 64
LOGGING_ID = "e" * 64
CANARY = "canary/pod-numa-allocation-canary"
VERSIONS = {"kubelet": "v1.37.1", "driver": "580.82.07", "node_image": "debian-12-gpu-20261101"}
# The feature took effect for the canary (`_evidence.effect.findings`, every check agreeing), as the effect source composes it.
EFFECT = [{"pod": CANARY, "check": "stored_resources", "result": "agree",
           "message": "pod %s: the API server kept .spec.resources as sent (requests cpu=4, memory=4Gi; limits cpu=4, memory=4Gi)" % CANARY},
          {"pod": None, "check": "control_plane", "result": "agree",
           "message": 'the control plane v1.37.1: kube-apiserver reports kubernetes_feature_enabled{name="PodLevelResources"} 1'}]


def h200_facts(hostile=False):
    """The real H200 VM (sysfs only, as the fixture has no vendor tool to run), the GPU given its UUID and a name."""
    facts = gather(shared_paths.H200_VM, gpu_source="sysfs")
    facts["gpus"][0]["uuid"] = GPU_UUID
    facts["gpus"][0]["name"] = HOSTILE_GPU_NAME if hostile else "NVIDIA H200"
    if hostile:
        facts["nics"][0]["name"] = HOSTILE_NIC_NAME
    return facts


def multi_numa_facts():
    """hwloc's 40intel64-2g2n4c+pci snapshot: 4 NUMA nodes (CPUs interleaved), 40 cores, 5 NICs."""
    return gather("%s/%s" % (shared_paths.HWLOC, MULTI_NUMA), gpu_source="sysfs")


def canary_pods(gpu_id=GPU_UUID, pod_cpus="2-5", main_cpus="2-3"):
    return [{"name": "pod-numa-allocation-canary", "namespace": "canary", "cpu_ids": pod_cpus, "memory": [],
             "containers": [{"name": "main", "cpu_ids": main_cpus, "memory": [], "dynamic_resources": [],
                             "devices": [{"resource_name": "nvidia.com/gpu", "device_ids": [gpu_id], "numa_nodes": [0]}]},
                            {"name": "metrics", "cpu_ids": "", "memory": [], "devices": [], "dynamic_resources": []},
                            {"name": "logging", "cpu_ids": "", "memory": [], "devices": [], "dynamic_resources": []}]}]


def measured_slack(facts):
    """The service comparison's slack (service_slack.windows_slack) of one window per side, from placement_info-shaped readings:
    a main container on CPUs 1,5 and a sidecar on CPU 2, 30 and 6 CPU-seconds over 60 s (0.6 CPU-equivalents)."""
    use = service_slack.window_use(slack_cases.reading(100, 10, 1), slack_cases.reading(160, 40, 7), [slack_cases.POD])
    return service_slack.windows_slack([{"side": side, "repetition": 0, "window": 0, "cpu": use} for side in ("baseline", "canary")], facts)


def full_inputs(root, facts, hostile=False):
    """Every input of `record.build` for the canary on CPUs 2-5 (main 2-3) of the H200, its cgroup tree written under ``root``."""
    oracle = locality.build(facts)
    reconciled = allocations.reconcile_allocations(canary_pods(), "pod", facts["cpus"]["online"], None, oracle)
    node_tree(root, 2, "systemd", "guaranteed", UID, [
        {"id": MAIN, "prefix": "cri-containerd-", "cpus": "2-3", "mems": "0", "usage_ns": 10,
         "pids": {100: {"threads": {100: "2-3", 101: "2-3"}, "numa_maps": "7f00 default anon=256 N0=256 kernelpagesize_kB=4\n"}}},
        {"id": METRICS_ID, "prefix": "cri-containerd-", "cpus": "4-5", "mems": "0", "usage_ns": 10,
         "pids": {200: {"threads": {200: "4-5"}, "numa_maps": ""}}},
        {"id": LOGGING_ID, "prefix": "cri-containerd-", "cpus": "4-5", "mems": "0", "usage_ns": 10,
         "pids": {300: {"threads": {300: "4-5"}, "numa_maps": ""}}}])
    placed = placement.read_pods(root, [UID])[1][0]
    ids = {"main": "containerd://" + MAIN, "metrics": "containerd://" + METRICS_ID, "logging": "containerd://" + LOGGING_ID}
    findings = reconcile.reconcile_pod(reconciled["pods"][0], placed, ids, oracle)
    failures = [{"layer": "kubelet", "reason": "TopologyAffinityError", "message": HOSTILE_MESSAGE}] if hostile else []
    baseline = {"apiVersion": "kubelet.config.k8s.io/v1beta1", "kind": "KubeletConfiguration", "cpuManagerPolicy": "none"}
    plan = reservation_plan(facts, {"reserved_cpus": 2})
    target = dict(baseline, **plan["kubelet_settings"])
    return {"versions": dict(VERSIONS), "plan": plan, "baseline_config": baseline, "target_config": target, "allocations": reconciled,
            "findings": findings, "canary": {"pod": CANARY, "admission": {"admitted": not hostile, "failures": failures}},
            "metrics": [{"name": "resource_manager_allocations_total", "labels": {"source": "pod"}, "type": "counter", "second": 3.0,
                         "first": 2.0, "increase": 1.0, "rate_per_second": 0.1, "reset": False},
                        {"name": "resource_manager_allocation_errors_total", "labels": {"source": "pod"}, "type": "counter", "second": 0.0,
                         "first": 0.0, "increase": 0.0, "rate_per_second": 0.0, "reset": False}],
            "effect": [dict(finding) for finding in EFFECT],
            "slack": measured_slack(facts),
            "configuration": {"verified": True, "message": "/configz matches the plan"},
            "service_objectives": service_compare.compare(service_runs.interleaved(), [{"metric": "ttft", "quantile": 0.95, "at_most": 0.5}]),
            "rollback": rehearsal_cases.rehearsed(),
            "generated_at": "2026-12-01T09:00:00Z"}
