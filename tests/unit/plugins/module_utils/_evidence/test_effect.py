# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Whether the pod-level resource managers took effect (issue 26): each check defers naming what it saw, with exact messages.

The subject is the report's canary on the H200 (pod budget 4 CPU / 4Gi, main 2 exclusive with the GPU, two helpers on the
pod's shared set), composed through `composition.effect` from the reads the evidence role registers; each test changes one
reading and asserts the exact findings and the verdict's reasons.
"""

from __future__ import annotations

import copy

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence import effect
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence.composition import effect as composition
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence.podresources import allocations

POD = "canary/pod-numa-allocation-canary"
UID = "7c1d9e2f-3a4b-4c5d-8e6f-7a8b9c0d1e2f"
GPU = "GPU-5e1b2c3d-4e5f-6a7b-8c9d-0e1f2a3b4c5d"
IDS = {"main": "containerd://" + "c" * 64, "metrics": "containerd://" + "d" * 64, "logging": "containerd://" + "e" * 64}
BUDGET = {"requests": {"cpu": "4", "memory": "4Gi"}, "limits": {"cpu": "4", "memory": "4Gi"}}
METRICS_TEXT = ('# HELP kubernetes_feature_enabled [BETA] This metric records the data about the stage and enablement of a k8s feature.\n'
                '# TYPE kubernetes_feature_enabled gauge\n'
                'kubernetes_feature_enabled{name="PodLevelResources",stage="BETA"} %s\n'
                'kubernetes_feature_enabled{name="InPlacePodVerticalScaling",stage="BETA"} 1\n')
TOPOLOGY = {"gpus": [{"index": 0, "uuid": GPU}]}


def podresources(pod_cpus="2-5", main_cpus="2-3", gpu=True, scope="pod"):
    devices = [{"resource_name": "nvidia.com/gpu", "device_ids": [GPU], "numa_nodes": [0]}] if gpu else []
    pods = [{"name": "pod-numa-allocation-canary", "namespace": "canary", "cpu_ids": pod_cpus, "memory": [],
             "containers": [{"name": "main", "cpu_ids": main_cpus, "memory": [], "devices": devices, "dynamic_resources": []},
                            {"name": "metrics", "cpu_ids": "", "memory": [], "devices": [], "dynamic_resources": []},
                            {"name": "logging", "cpu_ids": "", "memory": [], "devices": [], "dynamic_resources": []}]}]
    return {"reconciled": allocations.reconcile_allocations(pods, scope, "0-31")}


def placed(main="2-3", helpers="4-5", quota=("max 100000", "200000 100000")):
    return {"pods": [{"uid": UID, "found": True, "containers": [
        {"id": "c" * 64, "cpus": main, "cpu_max": quota[0]},
        {"id": "d" * 64, "cpus": helpers, "cpu_max": quota[1]},
        {"id": "e" * 64, "cpus": helpers, "cpu_max": quota[1]}]}]}


def rates(exclusive=1.0, shared=2.0, allocations_total=1.0, name="resource_manager_container_assignments", kinds=("pod_exclusive", "pod_shared")):
    def counter(metric, labels, increase):
        return {"name": metric, "labels": labels, "type": "counter", "first": 0.0, "second": increase, "increase": increase,
                "rate_per_second": increase / 10, "reset": False}
    return [counter(name, {"resource_name": "cpu", "assignment_type": kinds[0]}, exclusive),
            counter(name, {"resource_name": "cpu", "assignment_type": kinds[1]}, shared),
            counter("resource_manager_allocations_total", {"resource_name": "cpu", "source": "pod"}, allocations_total)]


def reads(**changes):
    canary = {"pod": POD, "uid": UID, "container_ids": IDS, "sent_resources": BUDGET,
              "pods": [{"pod": POD, "uid": UID, "container_ids": IDS, "stored_read": True, "stored_resources": copy.deepcopy(BUDGET)}],
              "control_plane": effect.control_plane({"gitVersion": "v1.37.1"}, METRICS_TEXT % "1")}
    found = {"canary": canary, "pod_resources": podresources(), "placement": placed(), "topology": TOPOLOGY,
             "metrics_before": {"scrape": {}}, "metrics_after": {"rates": rates()}}
    found.update(changes)
    return found


def problems(value):
    return [(f["check"], f["result"], f["message"]) for f in composition.compose(value) if f["result"] != "agree"]


def test_the_report_canary_takes_effect_on_every_check():
    found = composition.compose(reads())
    assert [(f["check"], f["result"]) for f in found] == [("stored_resources", "agree"), ("control_plane", "agree"), ("pod_scope", "agree"),
                                                          ("assignments", "agree"), ("cpu_quota", "agree"), ("gpu", "agree")]
    assert [f["message"] for f in found] == [
        "pod canary/pod-numa-allocation-canary: the API server kept .spec.resources as sent (requests cpu=4, memory=4Gi; limits cpu=4, memory=4Gi)",
        'the control plane v1.37.1: kube-apiserver reports kubernetes_feature_enabled{name="PodLevelResources"} 1',
        "pod canary/pod-numa-allocation-canary: pod-level cpu_ids 2-5, exclusive main 2-3 within it; helpers metrics, logging on the pod's "
        "shared set 4-5",
        "the kubelet counted 1 pod_exclusive and 2 pod_shared assignments and pod-level allocations",
        "pod canary/pod-numa-allocation-canary: exclusive containers without a CFS quota, shared ones with one",
        "pod canary/pod-numa-allocation-canary got GPU %s" % GPU]
    assert composition.reasons(found) == []


def test_a_dropped_budget_defers_naming_the_control_plane():
    value = reads()
    value["canary"]["pods"][0]["stored_resources"] = None
    value["canary"]["control_plane"] = effect.control_plane({"gitVersion": "v1.37.1"}, METRICS_TEXT % "0")
    value["pod_resources"] = podresources(pod_cpus="", main_cpus="")
    assert composition.reasons(composition.compose(value))[:3] == [
        {"criterion": "effect", "effect": "defer",
         "message": "the API server dropped .spec.resources from pod canary/pod-numa-allocation-canary (sent requests cpu=4, memory=4Gi; limits "
                    "cpu=4, memory=4Gi; stored: none): PodLevelResources must be on for kube-apiserver and kube-scheduler (the kubelet's gate "
                    "alone is not enough)"},
        {"criterion": "effect", "effect": "defer",
         "message": 'the control plane v1.37.1: kube-apiserver reports kubernetes_feature_enabled{name="PodLevelResources"} 0: it drops '
                    ".spec.resources on create; PodLevelResources must be on for kube-apiserver and kube-scheduler (the kubelet's gate alone "
                    "is not enough)"},
        {"criterion": "effect", "effect": "defer",
         "message": "pod canary/pod-numa-allocation-canary: PodResources has no pod-level cpu_ids or memory (fields 4 and 5) under pod scope: the "
                    "pod-level resource managers did not allocate it (PodLevelResourceManagers off, or a kubelet before 1.37)"}]


def test_a_stored_budget_that_differs_defers_with_both():
    value = reads()
    value["canary"]["pods"][0]["stored_resources"] = {"requests": {"cpu": "4000m", "memory": "4096Mi"}, "limits": {"cpu": "4", "memory": "4Gi"}}
    assert problems(value) == []  # the same quantities in other spellings
    value["canary"]["pods"][0]["stored_resources"] = {"requests": {"cpu": "2"}, "limits": {"cpu": "2"}}
    assert problems(value) == [("stored_resources", "disagree", "pod canary/pod-numa-allocation-canary: the stored .spec.resources (requests "
                                "cpu=2; limits cpu=2) differs from what was sent (requests cpu=4, memory=4Gi; limits cpu=4, memory=4Gi)")]


def test_a_pod_not_read_back_or_sent_without_budget_is_unknown():
    value = reads()
    value["canary"]["pods"][0]["stored_read"] = False
    assert problems(value) == [("stored_resources", "unknown", "pod canary/pod-numa-allocation-canary was not read back from the API: whether "
                                "the API server kept .spec.resources (sent requests cpu=4, memory=4Gi; limits cpu=4, memory=4Gi) is unknown")]
    value["canary"]["sent_resources"] = None
    assert problems(value) == [("stored_resources", "unknown", "pod canary/pod-numa-allocation-canary was sent without a pod-level budget "
                                "(.spec.resources): the pod-level resource managers were not exercised")]


def test_an_unknown_control_plane_gate_defers_saying_unknown():
    value = reads()
    value["canary"]["control_plane"] = effect.control_plane({"gitVersion": "v1.37.1"}, None, "GET /metrics: 403 Forbidden")
    assert composition.reasons(composition.compose(value)) == [{
        "criterion": "effect", "effect": "defer",
        "message": "the control plane v1.37.1: whether PodLevelResources is on for kube-apiserver is unknown: its /metrics could not be read "
                   "(GET /metrics: 403 Forbidden); unknown is not agreement"}]
    value["canary"]["control_plane"] = effect.control_plane(None, "apiserver_request_total 1\n")
    assert problems(value) == [("control_plane", "unknown", "the control plane of unknown version (/version not read): whether PodLevelResources "
                                'is on for kube-apiserver is unknown: its /metrics has no kubernetes_feature_enabled{name="PodLevelResources"} '
                                "series; unknown is not agreement")]
    value["canary"]["control_plane"] = None
    assert problems(value) == [("control_plane", "unknown", "the control plane of unknown version (/version not read): whether PodLevelResources "
                                "is on for kube-apiserver is unknown: its /metrics could not be read (not read); unknown is not agreement")]


def test_the_control_plane_is_read_as_stack_info_reads_it():
    stack = {"changed": False, "failed": False, "control_plane_gates": {"PodLevelResources": False}, "control_plane_gates_error": None,
             "observed": [{"component": "control_plane", "version": "v1.37.1", "state": "found", "error": None}]}
    assert problems(reads(control_plane=stack)) == [
        ("control_plane", "disagree", 'the control plane v1.37.1: kube-apiserver reports kubernetes_feature_enabled{name="PodLevelResources"} 0: '
                                      "it drops .spec.resources on create; PodLevelResources must be on for kube-apiserver and kube-scheduler "
                                      "(the kubelet's gate alone is not enough)")]
    stack.update(control_plane_gates=None, control_plane_gates_error="GET /metrics: 403 Forbidden")
    assert problems(reads(control_plane=stack)) == [
        ("control_plane", "unknown", "the control plane v1.37.1: whether PodLevelResources is on for kube-apiserver is unknown: its /metrics "
                                     "could not be read (GET /metrics: 403 Forbidden); unknown is not agreement")]
    # failed_when: false keeps a failed read as failed: false with its msg and none of the answers.
    assert problems(reads(control_plane={"changed": False, "failed": False, "msg": "no kubeconfig"})) == [
        ("control_plane", "unknown", "the control plane of unknown version (/version not read): whether PodLevelResources is on for "
                                     "kube-apiserver is unknown: its /metrics could not be read (stack_info failed: no kubeconfig); unknown "
                                     "is not agreement")]
    assert effect.from_stack({"skipped": True}) is None


def test_a_helper_outside_the_pods_shared_set_defers():
    value = reads(placement=placed(helpers="4-7"))
    assert composition.reasons(composition.compose(value)) == [
        {"criterion": "effect", "effect": "defer", "message": "pod canary/pod-numa-allocation-canary: helper metrics runs on CPUs 4-7, not on the "
                                                              "pod's shared set 4-5"},
        {"criterion": "effect", "effect": "defer", "message": "pod canary/pod-numa-allocation-canary: helper logging runs on CPUs 4-7, not on the "
                                                              "pod's shared set 4-5"}]


def test_exclusive_cpus_outside_the_pod_set_defer():
    assert problems(reads(pod_resources=podresources(pod_cpus="2-5", main_cpus="6-7"))) == [
        ("pod_scope", "disagree", "pod canary/pod-numa-allocation-canary: exclusive CPUs 6-7 are outside the pod-level set 2-5")]


def test_container_scope_wants_no_pod_level_fields_and_helpers_on_the_node_pool():
    value = reads(pod_resources=podresources(pod_cpus="", scope="container"), placement=placed(helpers="0-1,4-31"))
    found = composition.compose(value)
    assert [(f["check"], f["result"], f["message"]) for f in found if f["check"] == "container_scope"] == [
        ("container_scope", "agree", "pod canary/pod-numa-allocation-canary: no pod-level fields, exclusive main 2-3; helpers metrics, logging on "
                                     "the node's shared pool 0-1,4-31")]
    assert not [f for f in found if f["check"] == "assignments"]
    value["pod_resources"] = podresources(pod_cpus="2-5", scope="container")
    assert problems(value) == [("container_scope", "disagree", "pod canary/pod-numa-allocation-canary: PodResources reports pod-level cpu_ids "
                                "or memory under container scope, where the kubelet leaves them empty")]


def test_assignments_that_did_not_move_defer():
    assert problems(reads(metrics_after={"rates": rates(exclusive=0.0, shared=0.0, allocations_total=0.0)})) == [
        ("assignments", "disagree", 'resource_manager_container_assignments{assignment_type="pod_exclusive"} rose by 0 between the scrapes, for 1 '
                                    "pod_exclusive container of the canary"),
        ("assignments", "disagree", 'resource_manager_container_assignments{assignment_type="pod_shared"} rose by 0 between the scrapes, for 2 '
                                    "pod_shared containers of the canary"),
        ("assignments", "disagree", 'resource_manager_allocations_total{source="pod"} did not rise between the scrapes: no pod-level allocation '
                                    "was counted")]
    assert problems(reads(metrics_after={"rates": []})) == [
        ("assignments", "disagree", 'resource_manager_container_assignments{assignment_type="pod_exclusive"} has no series between the scrapes, '
                                    "for 1 pod_exclusive container of the canary"),
        ("assignments", "disagree", 'resource_manager_container_assignments{assignment_type="pod_shared"} has no series between the scrapes, for 2 '
                                    "pod_shared containers of the canary"),
        ("assignments", "disagree", 'resource_manager_allocations_total{source="pod"} has no series between the scrapes: no pod-level allocation '
                                    "was counted")]


def test_the_kep_names_of_the_assignments_are_accepted():
    kep = rates(name="resource_manager_container_assignments_total", kinds=("exclusive_from_pod", "shared_from_pod"))
    assert problems(reads(metrics_after={"rates": kep})) == []


def test_unread_metrics_are_unknown():
    assert problems(reads(metrics_before={"msg": "GET /api/v1/nodes/n/proxy/metrics: 503"}, metrics_after=None)) == [
        ("assignments", "unknown", "the kubelet's metrics were not read (the scrape before the canary failed: GET /api/v1/nodes/n/proxy/metrics: "
                                   "503): whether its assignments moved for the canary is unknown")]


def test_the_cpu_quota_follows_the_allocation():
    assert problems(reads(placement=placed(quota=("400000 100000", "max 100000")))) == [
        ("cpu_quota", "disagree", "pod canary/pod-numa-allocation-canary: exclusive container main runs with a CFS quota (cpu.max 400000 100000), "
                                  "not max"),
        ("cpu_quota", "disagree", "pod canary/pod-numa-allocation-canary: shared container metrics runs without a CFS quota (cpu.max max 100000)"),
        ("cpu_quota", "disagree", "pod canary/pod-numa-allocation-canary: shared container logging runs without a CFS quota (cpu.max max 100000)")]
    unread = placed()
    for container in unread["pods"][0]["containers"]:
        del container["cpu_max"]
    assert problems(reads(placement=unread)) == [
        ("cpu_quota", "unknown", "pod canary/pod-numa-allocation-canary: the containers' cpu.max was not read: whether the CPU quota follows the "
                                 "allocation is unknown")]


def test_a_gpu_node_whose_workload_got_no_gpu_defers():
    assert composition.reasons(composition.compose(reads(pod_resources=podresources(gpu=False)))) == [{
        "criterion": "effect", "effect": "defer",
        "message": "pod canary/pod-numa-allocation-canary got no GPU on a node with 1 GPU: co-location of its CPUs and memory with a GPU was not "
                   "observed"}]
    assert problems(reads(pod_resources=podresources(gpu=False), topology={"gpus": []})) == []


def test_no_canary_pod_composes_nothing():
    assert composition.compose(reads(canary=None)) is None
    value = reads()
    value["canary"]["pods"] = []
    assert composition.compose(value) is None


def test_a_record_with_no_effect_observation_defers():
    assert composition.reasons(None) == [{
        "criterion": "effect", "effect": "defer",
        "message": "whether the pod-level resource managers took effect was not observed: the record has no reading of the canary's pods "
                   "(.spec.resources read back, the control plane's gate, PodResources, cgroups, metrics); unknown is not agreement"}]
