# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The node's maintenance lock through the NVIDIA Maintenance Operator's NodeMaintenance, against the API server double with its CRD
installed (the operator's grant played by the test through the fake clock's hooks)."""

import pytest

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._transition.api import maintenance

T1, T2 = "20261204T090000Z", "20261204T100000Z"
NAME = "gpusmith-numa-gate-n1"
PATH = "/apis/maintenance.nvidia.com/v1alpha1/namespaces/default/nodemaintenances"


def set_ready(double, status, reason, message="", name=NAME, namespace="default", kind="Ready"):
    def hook():
        obj = double.store.get("nodemaintenances", namespace, name)
        obj["status"] = {"conditions": [{"type": kind, "status": status, "reason": reason, "message": message,
                                         "lastTransitionTime": "2026-12-04T12:00:00Z"}]}
        double.store.update("nodemaintenances", obj, check_version=False)
    return hook


def writes(double):
    return [(m, p) for m, p in double.requests if m != "GET"]


def test_served_only_once_the_crd_is_installed(double, kube):
    assert maintenance.served(kube) is False
    double.install_node_maintenance(grant_after=None)
    assert maintenance.served(kube) is True


def test_a_request_is_made_waited_for_with_progress_and_released(double, kube, clock):
    double.install_node_maintenance(grant_after=None)
    clock.hooks = [set_ready(double, "False", "Scheduled"), set_ready(double, "True", "Ready")]
    lines = []
    held = maintenance.hold(kube, "default", "n1", T1, timeout=60, poll=2, display=lines.append, clock=clock, sleep=clock.sleep)
    stored = double.store.get("nodemaintenances", "default", NAME)
    assert (stored["spec"], stored["metadata"]["annotations"]) == (
        {"requestorID": "numa-gate.gpusmith", "nodeName": "n1", "cordon": False}, {"numa-gate.gpusmith/transition": T1})
    assert held == {"changed": True, "lock_action": "created", "lock_kind": "NodeMaintenance", "maintenance": "default/" + NAME,
                    "holder": "numa-gate.gpusmith", "transition": T1, "acquired": stored["metadata"]["creationTimestamp"], "ready": "True",
                    "phase": "Ready", "waited_s": 4.0}
    assert lines == ["lock n1: waiting for NodeMaintenance default/%s to be granted (Ready unset), 0s of 60s" % NAME,
                     "lock n1: waiting for NodeMaintenance default/%s to be granted (Ready False Scheduled), 2s of 60s" % NAME]
    # A resumed run of the same transition finds its request: nothing made twice.
    again = maintenance.hold(kube, "default", "n1", T1, timeout=60, clock=clock, sleep=clock.sleep)
    assert (again["changed"], again["lock_action"], again["waited_s"]) == (False, "renewed", 0)
    assert maintenance.release(kube, "default", "n1", T2)["lock_action"] == "held_by_another"
    released = maintenance.release(kube, "default", "n1", T1)
    assert (released["changed"], released["lock_action"]) == (True, "released")
    assert writes(double) == [("POST", PATH), ("DELETE", PATH + "/" + NAME)]
    assert maintenance.release(kube, "default", "n1", T1)["lock_action"] == "absent"


def test_another_requestors_maintenance_refuses_naming_it_and_since_when(double, kube, clock):
    double.install_node_maintenance(grant_after=None)
    other = double.store.create("nodemaintenances", {"metadata": {"name": "nvidia-operator-n1", "namespace": "default"},
                                                     "spec": {"requestorID": "gpu.operator.nvidia.com", "nodeName": "n1", "cordon": True}})
    set_ready(double, "False", "Draining", name="nvidia-operator-n1")()
    with pytest.raises(maintenance.MaintenanceError) as caught:
        maintenance.hold(kube, "default", "n1", T1, clock=clock, sleep=clock.sleep)
    assert str(caught.value) == (
        "node n1 is in maintenance requested by gpu.operator.nvidia.com since %s (NodeMaintenance default/nvidia-operator-n1, Ready False "
        "Draining); nothing was changed. Wait for it to be released" % other["metadata"]["creationTimestamp"])
    assert writes(double) == []


def test_a_request_not_granted_within_the_bound_fails_naming_its_state(double, kube, clock):
    double.install_node_maintenance(grant_after=None)
    clock.hooks = [set_ready(double, "False", "Pending", "waiting for a slot")]
    with pytest.raises(maintenance.MaintenanceError) as caught:
        maintenance.hold(kube, "default", "n1", T1, timeout=5, poll=2, clock=clock, sleep=clock.sleep)
    assert str(caught.value) == ("lock n1: the maintenance request NodeMaintenance default/%s was not granted within 5s (Ready False Pending); "
                                 "nothing else was changed" % NAME)
    assert caught.value.details["changed"] is True
    assert clock.sleeps == [2, 2, 1]


def test_a_failed_request_fails_at_once(double, kube, clock):
    double.install_node_maintenance(grant_after=None)
    clock.hooks = [set_ready(double, "True", "FailedMaintenance", "drain timed out", kind="RequestorFailed")]
    with pytest.raises(maintenance.MaintenanceError) as caught:
        maintenance.hold(kube, "default", "n1", T1, timeout=60, poll=2, clock=clock, sleep=clock.sleep)
    assert str(caught.value) == ("lock n1: the maintenance request NodeMaintenance default/%s failed: FailedMaintenance (drain timed out); "
                                 "the transition does not go on" % NAME)
    assert clock.sleeps == [2]


def test_check_mode_reads_and_writes_nothing(double, kube, clock):
    double.install_node_maintenance(grant_after=None)
    would = maintenance.hold(kube, "default", "n1", T1, check_mode=True, clock=clock, sleep=clock.sleep)
    assert (would["changed"], would["lock_action"], would["maintenance"]) == (True, "created", "default/" + NAME)
    assert writes(double) == [] and clock.sleeps == []
