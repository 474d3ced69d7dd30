# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""After the start, against the API server double: pods rejected at admission, device plugins' resources back (issue 28, part 1)."""

import pytest

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._transition.api import came_back

BEFORE = {"extended_resources": {"nvidia.com/gpu": "8"}, "failed_before": []}
REJECTED = "Pod was rejected: Resources cannot be allocated with Topology locality"


def set_gpus(double, count):
    """The Node's allocatable nvidia.com/gpu as the device plugin's registration leaves it (None: absent)."""
    with double.store.cond:
        node = double.store.get("nodes", None, "n1")
        for part in ("capacity", "allocatable"):
            node["status"][part].pop("nvidia.com/gpu", None)
            if count is not None:
                node["status"][part]["nvidia.com/gpu"] = str(count)
        double.store.update("nodes", node, check_version=False)


def reject(double, name, reason="TopologyAffinityError", message=REJECTED, namespace="kube-system"):
    """kubelet.go rejectPod: phase Failed, the reason, "Pod was rejected: " + the message."""
    with double.store.cond:
        pod = double.store.get("pods", namespace, name)
        pod["status"] = {"phase": "Failed", "reason": reason, "message": message}
        double.store.update("pods", pod, check_version=False)


def run(kube, clock, lines, before=None, timeout=60):
    return came_back.check(kube, "n1", BEFORE if before is None else before, timeout=timeout, poll=2, display=lines.append,
                           clock=clock, sleep=clock.sleep)


def test_the_resources_back_and_no_rejection_pass_at_once(double, kube, clock):
    double.add_node("n1", capacity={"nvidia.com/gpu": "8"})
    double.add_pod("agent-n1", "n1", namespace="kube-system", owner_kind="DaemonSet", owner_name="agent")
    lines = []
    assert run(kube, clock, lines) == {"rejected_pods": [], "restarted_pods": [], "lost_resources": [], "unready_pods": [],
                                       "extended_resources": {"nvidia.com/gpu": "8"}, "waited_s": 0}
    assert lines == []


def test_a_device_plugin_that_registers_late_is_waited_for_with_progress_lines(double, kube, clock):
    double.add_node("n1")
    clock.hooks = [lambda: None, lambda: set_gpus(double, 8)]
    lines = []
    assert run(kube, clock, lines)["waited_s"] == 4
    assert lines == ["verify n1: waiting for the device plugins: nvidia.com/gpu: 0 (absent) of the 8 allocatable before the stop, 0s of 60s",
                     "verify n1: waiting for the device plugins: nvidia.com/gpu: 0 (absent) of the 8 allocatable before the stop, 2s of 60s"]


def test_a_resource_still_short_at_the_bound_fails_naming_it(double, kube, clock):
    double.add_node("n1", capacity={"nvidia.com/gpu": "6"})
    with pytest.raises(came_back.CameBackError) as caught:
        run(kube, clock, [], timeout=10)
    assert str(caught.value) == ("verify n1: the pods that stayed through the restart did not all come back: not back in the node's "
                                 "allocatable after 10s: nvidia.com/gpu: 6 of the 8 allocatable before the stop")
    assert caught.value.details["lost_resources"] == ["nvidia.com/gpu: 6 of the 8 allocatable before the stop"]


def test_a_pod_rejected_at_admission_fails_at_once_naming_pod_reason_and_message(double, kube, clock):
    double.add_node("n1", capacity={"nvidia.com/gpu": "8"})
    double.add_pod("burner-x2", "n1", namespace="kube-system", owner_kind="DaemonSet", owner_name="burner")
    double.add_pod("web-1", "n1", owner_kind="ReplicaSet", owner_name="web")
    reject(double, "burner-x2")
    with pytest.raises(came_back.CameBackError) as caught:
        run(kube, clock, [])
    assert str(caught.value) == ("verify n1: the pods that stayed through the restart did not all come back: rejected at admission: "
                                 "kube-system/burner-x2 (TopologyAffinityError: " + REJECTED + ")")
    assert clock.sleeps == []


def test_pods_that_failed_before_the_stop_or_for_other_reasons_are_not_rejections(double, kube, clock):
    double.add_node("n1", capacity={"nvidia.com/gpu": "8"})
    old = double.add_pod("old-1", "n1", owner_kind="ReplicaSet", owner_name="old")
    double.add_pod("job-1", "n1", owner_kind="ReplicaSet", owner_name="job")
    reject(double, "old-1", reason="OutOfcpu", message="Pod was rejected: Node didn't have enough resource: cpu", namespace="default")
    reject(double, "job-1", reason="Error", message="exit code 1", namespace="default")
    before = dict(BEFORE, failed_before=[old["metadata"]["uid"]])
    assert run(kube, clock, [], before=before)["rejected_pods"] == []
    reject(double, "job-1", reason="OutOfnvidia.com/gpu", message="Node didn't have enough resource: nvidia.com/gpu", namespace="default")
    with pytest.raises(came_back.CameBackError) as caught:
        run(kube, clock, [], before=before)
    assert caught.value.details["rejected_pods"] == ["default/job-1 (OutOfnvidia.com/gpu: Node didn't have enough resource: nvidia.com/gpu)"]


def test_a_gpu_pod_that_stayed_must_be_ready_without_a_restart_since_the_stop(double, kube, clock):
    double.add_node("n1", capacity={"nvidia.com/gpu": "8"})
    trainer = double.add_pod("trainer-0", "n1", owner_kind="ReplicaSet", owner_name="trainer")
    entry = {"pod": "default/trainer-0", "uid": trainer["metadata"]["uid"], "restarts": 0}
    before = dict(BEFORE, gpu_pods=[entry])
    assert run(kube, clock, [], before=before)["restarted_pods"] == []
    with double.store.cond:
        pod = double.store.get("pods", "default", "trainer-0")
        pod["status"]["containerStatuses"] = [{"name": "main", "restartCount": 2, "ready": True}]
        double.store.update("pods", pod, check_version=False)
    with pytest.raises(came_back.CameBackError) as caught:
        run(kube, clock, [], before=before)
    assert str(caught.value) == ("verify n1: the pods that stayed through the restart did not all come back: GPU pods restarted: "
                                 "default/trainer-0 restarted 2 times since the stop")
    lines = []
    with pytest.raises(came_back.CameBackError) as caught:
        run(kube, clock, lines, before=dict(BEFORE, gpu_pods=[dict(entry, uid="gone-uid")]), timeout=4)
    assert str(caught.value) == ("verify n1: the pods that stayed through the restart did not all come back: GPU pods not Ready after 4s: "
                                 "default/trainer-0 is gone")
    assert lines[0] == "verify n1: waiting for the device plugins: default/trainer-0 is gone, 0s of 4s"
