# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The admission-failure probe (_evidence/admission_failure.py): one CPU over the plan's largest single-NUMA shape, and the row it makes."""

import pytest

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence import admission_failure
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence.nodefs import EvidenceError

ALLOCATABLE = {"0": {"cpus": "1-3", "largest_pod": {"cpu": 3, "memory": "2Gi"}}, "1": {"cpus": "4-7", "largest_pod": {"cpu": 4, "memory": "3Gi"}}}
SHAPE = {"cpu": "5", "memory": "1Gi"}
REJECTED = "Pod was rejected: Pod Scope pod with pod-level resources failed admission under pod-scope topology manager"


def test_the_probe_is_one_cpu_over_the_plans_largest_single_numa_pod_pinned_and_labelled_apart():
    found = admission_failure.probe({"name": "probe", "node": "n1", "largest": ALLOCATABLE})
    assert (found["shape"], found["largest_cpu"], found["selector"]) == (SHAPE, 4, {"app.kubernetes.io/name": "numa-gate-admission-probe"})
    labels = {"app.kubernetes.io/name": "numa-gate-admission-probe"}
    assert found["manifest"] == {
        "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "probe", "namespace": "default", "labels": labels},
        "spec": {"replicas": 1, "selector": {"matchLabels": labels}, "template": {"metadata": {"labels": labels}, "spec": {
            "terminationGracePeriodSeconds": 0, "nodeSelector": {"example.com/pod-managers": "canary", "kubernetes.io/hostname": "n1"},
            "resources": {"requests": SHAPE, "limits": SHAPE},
            "containers": [{"name": "main", "image": "registry.k8s.io/pause:3.9", "resources": {"requests": SHAPE, "limits": SHAPE}}]}}}}
    assert admission_failure.probe({"largest": {"cpu": 7}, "memory": "2Gi"})["shape"] == {"cpu": "8", "memory": "2Gi"}


@pytest.mark.parametrize("largest", [None, {}, {"cpu": 0}, {"cpu": "4"}, {"cpu": True}, {"0": {"largest_pod": {}}}])
def test_a_largest_shape_without_a_whole_cpu_count_is_refused_naming_it(largest):
    with pytest.raises(EvidenceError) as caught:
        admission_failure.probe({"largest": largest})
    assert str(caught.value) == ("canary admission failure: largest must be the plan's allocatable mapping (each NUMA node's largest_pod.cpu, "
                                 "a whole number of CPUs, 1 or more) or {\"cpu\": N}, got %r" % (largest,))


def test_unknown_parameters_and_a_bad_memory_are_refused():
    with pytest.raises(EvidenceError) as caught:
        admission_failure.probe({"largest": {"cpu": 1}, "kind": "ReplicaSet"})
    assert str(caught.value) == ("canary admission failure: unknown parameters kind (known: name, namespace, node, pool_selector, image, "
                                 "largest, memory)")
    with pytest.raises(EvidenceError) as caught:
        admission_failure.probe({"largest": {"cpu": 1}, "memory": "lots"})
    assert str(caught.value).startswith("canary admission failure: memory: ")


def pod(name, created, phase, reason=None):
    status = {"phase": phase}
    if reason:
        status.update(reason=reason, message=REJECTED)
    return {"metadata": {"name": name, "namespace": "default", "creationTimestamp": created}, "spec": {"nodeName": "n1"}, "status": status}


def test_the_row_counts_the_controllers_replacements_the_rejection_and_the_events():
    pods = [pod("probe-x-bbbbb", "2026-12-05T12:00:01Z", "Failed", "TopologyAffinityError"),
            pod("probe-x-ccccc", "2026-12-05T12:00:00Z", "Failed", "TopologyAffinityError"),
            pod("probe-x-ddddd", "2026-12-05T12:00:02Z", "Pending")]
    events = [{"involvedObject": {"name": name}, "type": "Warning", "reason": "TopologyAffinityError", "message": REJECTED[len("Pod was rejected: "):]}
              for name in ("probe-x-bbbbb", "probe-x-ccccc", "probe-x-ddddd")] + [{"involvedObject": {"name": "other"}, "reason": "Pulled", "message": "x"}]
    # probe-x-ddddd's rejection came after the pods were listed (Pending): its event is not counted, so events and pods agree.
    found = admission_failure.observed(pods, events, 5, 5.2, [])
    assert (found["created"], found["failed"], found["replacements"], found["left"]) == (3, 2, 2, [])
    assert found["rejection"] == {"layer": "kubelet", "reason": "TopologyAffinityError", "message": REJECTED}
    assert [p["pod"] for p in found["pods"]] == ["default/probe-x-ccccc", "default/probe-x-bbbbb", "default/probe-x-ddddd"]
    assert found["events"] == [{"type": "Warning", "reason": "TopologyAffinityError", "count": 2,
                                "message": "Pod Scope pod with pod-level resources failed admission under pod-scope topology manager"}]
    assert found["row"] == ("TopologyAffinityError at the kubelet; the controller created 3 pods in 5 s, 2 failed, 2 replacements; "
                            "nothing left after clean-up")


def test_no_rejection_and_something_left_are_said():
    found = admission_failure.observed([pod("p", "t", "Running")], [], 5, 5.0, ["ReplicaSet/probe-x", "Pod/p"])
    assert (found["rejection"], found["left"]) == (None, ["Pod/p", "ReplicaSet/probe-x"])
    assert found["row"] == ("no pod was rejected by the kubelet in 5 s (1 created, 0 failed): the rejection was not observed; "
                            "left after clean-up: Pod/p, ReplicaSet/probe-x")
