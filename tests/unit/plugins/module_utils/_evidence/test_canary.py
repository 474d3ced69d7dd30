"""The allocation canary (_evidence/canary.py): the report's manifest exactly, Guaranteed QoS checked before sending, admission by layer."""

import copy

import pytest

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence import canary
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence.nodefs import EvidenceError


def test_the_reports_canary():
    pod = canary.manifest({"node": "gpu-node-1", "gpu_resource": "nvidia.com/gpu"})
    assert pod == {
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "pod-numa-allocation-canary", "namespace": "default", "labels": {"app.kubernetes.io/name": "numa-gate-canary"}},
        "spec": {"nodeSelector": {"example.com/pod-managers": "canary", "kubernetes.io/hostname": "gpu-node-1"}, "restartPolicy": "Never",
                 "terminationGracePeriodSeconds": 5,
                 "resources": {"requests": {"cpu": "4", "memory": "4Gi"}, "limits": {"cpu": "4", "memory": "4Gi"}},
                 "initContainers": [{"name": "metrics", "image": "registry.k8s.io/pause:3.9", "restartPolicy": "Always"},
                                    {"name": "logging", "image": "registry.k8s.io/pause:3.9", "restartPolicy": "Always"}],
                 "containers": [{"name": "main", "image": "registry.k8s.io/pause:3.9",
                                 "resources": {"requests": {"cpu": "2", "memory": "2Gi"},
                                               "limits": {"cpu": "2", "memory": "2Gi", "nvidia.com/gpu": "1"}}}]}}
    assert canary.qos_problems(pod) == []


def test_the_operators_workload_keeps_its_gpu_request_and_dra_claim():
    workload = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "server", "labels": {"app": "llm"}},
                "spec": {"nodeSelector": {"gpu": "h200"}, "resourceClaims": [{"name": "gpu", "resourceClaimTemplateName": "one-gpu"}],
                         "resources": {"requests": {"cpu": "8", "memory": "32Gi"}, "limits": {"cpu": "8", "memory": "32Gi"}},
                         "containers": [{"name": "main", "image": "llm:1", "resources": {
                             "requests": {"cpu": "6", "memory": "24Gi"}, "limits": {"cpu": "6", "memory": "24Gi"}, "claims": [{"name": "gpu"}]}}]}}
    before = copy.deepcopy(workload)
    pod = canary.manifest({"workload": workload, "node": "n1", "namespace": "serving"})
    assert workload == before
    assert pod["spec"]["nodeSelector"] == {"gpu": "h200", "example.com/pod-managers": "canary", "kubernetes.io/hostname": "n1"}
    assert pod["spec"]["resourceClaims"] == before["spec"]["resourceClaims"]
    assert pod["spec"]["containers"][0]["resources"]["claims"] == [{"name": "gpu"}]
    assert pod["metadata"] == {"name": "server", "namespace": "serving", "labels": {"app": "llm", "app.kubernetes.io/name": "numa-gate-canary"}}
    assert canary.qos_problems(pod) == []


@pytest.mark.parametrize("change, problems", [
    (lambda p: p["spec"]["resources"]["limits"].update(cpu="3"),
     ["pod .spec.resources: requests.cpu 4 differs from limits.cpu 3 (Guaranteed QoS needs them equal)"]),
    (lambda p: p["spec"]["resources"]["requests"].pop("memory"),
     ["pod .spec.resources: memory needs both requests.memory and limits.memory for Guaranteed QoS"]),
    (lambda p: p["spec"]["containers"][0]["resources"].update(requests={"cpu": "1500m", "memory": "2Gi"}, limits={"cpu": "1500m", "memory": "2Gi"}),
     ["container main: requests.cpu 1500m is not a whole, positive number of CPUs: it would run on the shared pool, not an exclusive slice"]),
    (lambda p: p["spec"]["containers"][0]["resources"]["limits"].update(memory="3Gi"),
     ["container main: requests.memory 2Gi differs from limits.memory 3Gi (Guaranteed QoS needs them equal)"]),
    (lambda p: p["spec"]["containers"][0]["resources"].update(requests={"cpu": "5", "memory": "2Gi"}, limits={"cpu": "5", "memory": "2Gi"}),
     ["containers request cpu 5000m in all, more than the pod's budget 4"]),
    (lambda p: p["spec"]["containers"][0].update(name="server"), ["container main: not in the pod, so it cannot hold an exclusive slice"]),
])
def test_qos_problems_are_named_before_sending(change, problems):
    pod = canary.manifest()
    change(pod)
    assert canary.qos_problems(pod) == problems


def test_without_pod_level_resources_every_container_must_be_guaranteed():
    pod = canary.manifest()
    del pod["spec"]["resources"]
    assert canary.qos_problems(pod) == [
        "container metrics: cpu needs both requests.cpu and limits.cpu for Guaranteed QoS",
        "container metrics: memory needs both requests.memory and limits.memory for Guaranteed QoS",
        "container logging: cpu needs both requests.cpu and limits.cpu for Guaranteed QoS",
        "container logging: memory needs both requests.memory and limits.memory for Guaranteed QoS"]


def test_admission_by_layer():
    conditions = [{"type": "PodScheduled", "status": "True"}, {"type": "Ready", "status": "True"}]
    running = {"spec": {"nodeName": "n1"}, "status": {"phase": "Running", "conditions": conditions}}
    assert canary.admission(running) == {"admitted": True, "phase": "Running", "node": "n1", "failures": []}
    rejected = "Pod was rejected: Resources cannot be allocated with Topology locality"
    topology = {"spec": {"nodeName": "n1"}, "status": {"phase": "Failed", "reason": "TopologyAffinityError", "message": rejected}}
    events = [{"reason": "TopologyAffinityError", "message": "Resources cannot be allocated with Topology locality"}]
    assert canary.admission(topology, events) == {
        "admitted": False, "phase": "Failed", "node": "n1",
        "failures": [{"layer": "kubelet", "reason": "TopologyAffinityError",
                      "message": "Pod was rejected: Resources cannot be allocated with Topology locality"}]}
    unschedulable = "0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector."
    pending = {"spec": {}, "status": {"phase": "Pending", "conditions": [
        {"type": "PodScheduled", "status": "False", "reason": "Unschedulable", "message": unschedulable}]}}
    assert canary.admission(pending)["failures"] == [{"layer": "scheduler", "reason": "Unschedulable", "message": unschedulable}]
    assert canary.admission(None, api_error={"status": 422, "reason": "Invalid", "message": "spec.resources: Forbidden"}) == {
        "admitted": False, "phase": None, "node": None, "failures": [{"layer": "api", "reason": "Invalid", "message": "spec.resources: Forbidden"}]}
    assert canary.admission({"status": {"phase": "Pending"}}) == {"admitted": False, "phase": "Pending", "node": None, "failures": []}


def test_bad_parameters():
    with pytest.raises(EvidenceError, match=r"^canary: unknown parameters cpu \(known: name, namespace, "):
        canary.manifest({"cpu": 4})
    with pytest.raises(EvidenceError, match=r"^canary: workload Deployment None has no spec.template: its controller has no pods to make$"):
        canary.manifest({"workload": {"kind": "Deployment"}})
    with pytest.raises(EvidenceError, match=r"^canary: workload must be a Deployment, StatefulSet, Job or Pod manifest, got kind None: not a "
                       r"workload the canary can send$"):
        canary.manifest({"workload": {"metadata": {}}})
    pod = canary.manifest({"pod_cpu": "four"})
    with pytest.raises(EvidenceError, match=r"^canary: pod \.spec\.resources requests\.cpu: "):
        canary.qos_problems(pod)


def deployment(kind="Deployment"):
    return {"apiVersion": "apps/v1", "kind": kind, "metadata": {"name": "llm", "labels": {"app": "llm"}},
            "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "llm"}},
                     "template": {"metadata": {"labels": {"app": "llm"}},
                                  "spec": {"initContainers": [{"name": "proxy", "image": "proxy:1", "restartPolicy": "Always",
                                                               "resources": {"requests": {"cpu": "500m", "memory": "512Mi"},
                                                                             "limits": {"cpu": "500m", "memory": "512Mi"}}}],
                                           "containers": [{"name": "main", "image": "llm:1", "resources": {
                                               "requests": {"cpu": "6", "memory": "24Gi"},
                                               "limits": {"cpu": "6", "memory": "24Gi", "nvidia.com/gpu": "1"}}}]}}}}


def test_a_deployment_is_pinned_its_budget_moved_and_the_change_recorded():
    given = deployment()
    before = copy.deepcopy(given)
    found = canary.workload({"workload": given, "node": "gpu-1"})
    assert given == before
    assert found["kind"] == "Deployment" and found["selector"] == {"app.kubernetes.io/name": "numa-gate-canary"}
    assert found["sent_resources"] == {"requests": {"cpu": "6500m", "memory": "25088Mi"}, "limits": {"cpu": "6500m", "memory": "25088Mi"}}
    assert found["diff"] == [
        'metadata.labels.app.kubernetes.io/name: (none) -> numa-gate-canary',
        'metadata.namespace: (none) -> default',
        'spec.template.metadata.labels.app.kubernetes.io/name: (none) -> numa-gate-canary',
        'spec.template.spec.nodeSelector: (none) -> {"example.com/pod-managers":"canary","kubernetes.io/hostname":"gpu-1"}',
        'spec.template.spec.resources: (none) -> {"limits":{"cpu":"6500m","memory":"25088Mi"},"requests":{"cpu":"6500m","memory":"25088Mi"}}']
    template = found["manifest"]["spec"]["template"]["spec"]
    assert template["containers"] == before["spec"]["template"]["spec"]["containers"]  # the images and the GPU request as they were
    assert template["initContainers"] == before["spec"]["template"]["spec"]["initContainers"]  # the helper's requests as given
    assert canary.qos_problems(found["manifest"]) == []


@pytest.mark.parametrize("kind", ["StatefulSet", "Job"])
def test_a_statefulset_or_job_is_pinned_through_its_template(kind):
    found = canary.workload({"workload": deployment(kind), "node": "gpu-1"})
    assert found["manifest"]["spec"]["template"]["spec"]["nodeSelector"] == {"example.com/pod-managers": "canary", "kubernetes.io/hostname": "gpu-1"}


@pytest.mark.parametrize("kind, why", [
    ("CronJob", "its pods come on a schedule, not when the canary is sent"),
    ("DaemonSet", "its pods go to every node of its selector, and a pinned one would leave the rest of the pool")])
def test_a_cronjob_or_daemonset_is_refused_naming_the_kinds_accepted(kind, why):
    with pytest.raises(EvidenceError) as caught:
        canary.manifest({"workload": deployment(kind)})
    assert str(caught.value) == "canary: workload must be a Deployment, StatefulSet, Job or Pod manifest, got kind %r: %s" % (kind, why)


def test_a_controller_without_a_template_is_refused():
    with pytest.raises(EvidenceError) as caught:
        canary.manifest({"workload": {"kind": "Job", "metadata": {"name": "j"}, "spec": {}}})
    assert str(caught.value) == "canary: workload Job j has no spec.template: its controller has no pods to make"


def test_a_budget_is_not_moved_when_a_container_is_not_guaranteed():
    given = deployment()
    given["spec"]["template"]["spec"]["initContainers"][0]["resources"]["limits"]["cpu"] = "1"
    found = canary.workload({"workload": given})
    assert "resources" not in found["manifest"]["spec"]["template"]["spec"] and found["sent_resources"] is None


def test_the_subjects_are_the_pods_read_back_with_their_controller():
    pods = [{"metadata": {"namespace": "serving", "name": "llm-7d9f-b2x4k", "uid": "u2",
                          "ownerReferences": [{"kind": "ReplicaSet", "name": "llm-7d9f", "controller": True}]},
             "spec": {"nodeName": "gpu-1", "containers": [{"name": "main", "resources": {"limits": {"cpu": "6", "nvidia.com/gpu": "1"}}}]},
             "status": {"containerStatuses": [{"name": "main", "containerID": "containerd://abc"}]}},
            {"metadata": {"namespace": "serving", "name": "llm-7d9f-a1b2c", "uid": "u1"},
             "spec": {"resources": {"requests": {"cpu": "4"}}, "containers": []}}]
    assert canary.subjects(pods) == [
        {"pod": "serving/llm-7d9f-a1b2c", "uid": "u1", "node": None, "container_ids": {}, "stored_read": True,
         "stored_resources": {"requests": {"cpu": "4"}}, "controller": None, "gpu_requests": {}},
        {"pod": "serving/llm-7d9f-b2x4k", "uid": "u2", "node": "gpu-1", "container_ids": {"main": "containerd://abc"}, "stored_read": True,
         "stored_resources": None, "controller": "ReplicaSet/llm-7d9f", "gpu_requests": {"nvidia.com/gpu": "1"}}]


def test_the_admission_of_a_controllers_pods_names_each_failing_pod():
    ready = {"metadata": {"name": "llm-a", "uid": "u1"}, "spec": {"nodeName": "gpu-1"},
             "status": {"phase": "Running", "conditions": [{"type": "Ready", "status": "True"}]}}
    message = "Pod was rejected: Pod Scope pod with pod-level resources failed admission under pod-scope topology manager"
    rejected = {"metadata": {"name": "llm-b", "uid": "u2"}, "spec": {"nodeName": "gpu-1"},
                "status": {"phase": "Failed", "reason": "TopologyAffinityError", "message": message}}
    assert canary.admissions([ready], [], None, 1) == {"admitted": True, "phase": "Running", "node": "gpu-1", "failures": []}
    assert canary.admissions([ready], [], None, 2)["admitted"] is False
    assert canary.admissions([ready, rejected], [{"involvedObject": {"uid": "u2"}, "reason": "TopologyAffinityError", "message": "same"}],
                             None, 2) == {
        "admitted": False, "phase": "Running", "node": "gpu-1",
        "failures": [{"layer": "kubelet", "reason": "TopologyAffinityError", "message": "pod llm-b: Pod was rejected: Pod Scope pod with pod-level "
                      "resources failed admission under pod-scope topology manager"}]}
    assert canary.admissions([], [], {"status": 422, "reason": "Invalid", "message": "bad"}) == {
        "admitted": False, "phase": None, "node": None, "failures": [{"layer": "api", "reason": "Invalid", "message": "bad"}]}
