# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""roles/kubelet_transition's lock.yml before dry_run.yml, drain_failed.yml after a refusal and lock_release.yml, through real
ansible-playbook against the API server double (the controller is the node: -c local) (issue 28): a Lease another holder keeps
refuses before anything is sent, naming the holder and since when, and the journal records it; a killed run's lease is taken over
once it expired; a resumed run takes its own lease back; the lock is given back at the end.
"""

from __future__ import annotations

import datetime
import json

import pytest

from ansible_collections.gpusmith.numa_gate.tests.roles import test_transition_dry_run_tasks as dry
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._transition.journal import transitions

from apiserver import server  # noqa: E402 pylint: disable=wrong-import-position,import-error

T1, T0 = dry.T1, "20261130T090000Z"
LEASE = "gpusmith-numa-gate-n1"
PLAY = """- hosts: localhost
  gather_facts: false
{connection}  tasks:
    - name: The lock and the dry run, as main.yml runs them with their rescue
      block:
        - name: The lock step
          ansible.builtin.include_role:
            name: gpusmith.numa_gate.kubelet_transition
            tasks_from: lock
            public: true

        - name: The dry run step
          ansible.builtin.include_role:
            name: gpusmith.numa_gate.kubelet_transition
            tasks_from: dry_run
            public: true

        - name: What the drain's run would record before its own start
          ansible.builtin.debug:
            msg: "{{ __kubelet_transition_lock_event + __kubelet_transition_dry_run_event }}"

        - name: The lock given back
          ansible.builtin.include_role:
            name: gpusmith.numa_gate.kubelet_transition
            tasks_from: lock_release
          when: release | default(false) | bool
      rescue:
        - name: The failed drain's tasks
          ansible.builtin.include_role:
            name: gpusmith.numa_gate.kubelet_transition
            tasks_from: drain_failed
"""


@pytest.fixture(name="double")
def fixture_double():
    started = server.ApiServerDouble().start()
    try:
        yield started
    finally:
        started.stop()


def play(tmp_path, extra):
    original = dry.PLAY
    dry.PLAY = PLAY
    try:
        return dry.play(tmp_path, extra)
    finally:
        dry.PLAY = original


def micro(seconds_ago):
    moment = datetime.datetime.now(datetime.timezone.utc) - datetime.timedelta(seconds=seconds_ago)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def held_by(double, holder, seconds_ago, duration):
    double.store.create("leases", {"metadata": {"name": LEASE, "namespace": "kube-system"}, "spec": {
        "holderIdentity": holder, "leaseDurationSeconds": duration, "acquireTime": micro(seconds_ago), "renewTime": micro(seconds_ago),
        "leaseTransitions": 0}})


def events(state_dir):
    with open(transitions.journal_path("/", state_dir, T1), encoding="utf-8") as stream:
        return [(e["step"], e["event"], e.get("outcome"), e.get("changed")) for e in map(json.loads, stream)]


def test_a_lease_another_holder_keeps_refuses_before_anything_is_sent(double, tmp_path):
    state_dir, extra = dry.opened(double, tmp_path)
    double.add_pod("web-1", "n1", owner_kind="ReplicaSet", owner_name="web", labels={"app": "web"})
    held_by(double, "gpusmith.numa_gate/n1/" + T0, 10, 900)
    before = double.store.get("leases", "kube-system", LEASE)
    rc, results = play(tmp_path, extra)
    assert rc == 2
    refusal = results["Take the node for maintenance (a lock other tools see)"]["msg"]
    assert refusal.startswith("node n1 is held for maintenance by gpusmith.numa_gate/n1/%s since %s (Lease kube-system/%s, renewed %s, until "
                              % (T0, before["spec"]["acquireTime"], LEASE, before["spec"]["renewTime"]))
    assert refusal.endswith(" unless renewed); nothing was changed. Wait for it to be released or to expire")
    assert results["Stop here"]["msg"].endswith("The kubelet was not touched and its configuration is unchanged; the node was not cordoned "
                                                "(refused before the cordon).")
    assert [(m, p) for m, p in double.requests if m != "GET"] == []
    assert double.store.get("leases", "kube-system", LEASE) == before
    assert events(state_dir)[1:] == [("lock", "finished", "failed", {
        "message": refusal, "holder": "gpusmith.numa_gate/n1/" + T0, "acquired": before["spec"]["acquireTime"]})]
    assert transitions.current("/", state_dir) is None


def test_a_killed_runs_lease_is_taken_over_once_it_expired_and_given_back(double, tmp_path):
    _state_dir, extra = dry.opened(double, tmp_path)
    held_by(double, "gpusmith.numa_gate/n1/" + T0, 120, 60)
    rc, results = play(tmp_path, dict(extra, release=True))
    assert rc == 0, results
    event = results["What the drain's run would record before its own start"]["msg"][0]
    assert (event["step"], event["changed"]["lock_action"], event["changed"]["previous_holder"], event["changed"]["holder"]) == (
        "lock", "taken_over", "gpusmith.numa_gate/n1/" + T0, "gpusmith.numa_gate/n1/" + T1)
    assert [(m, p) for m, p in double.requests if m != "GET"] == [
        ("PUT", "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/" + LEASE),
        ("DELETE", "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/" + LEASE)]
    assert double.store.list("leases", "kube-system")[0] == []


def test_a_resumed_run_takes_its_own_lease_back(double, tmp_path):
    _state_dir, extra = opened = dry.opened(double, tmp_path)
    del opened
    held_by(double, "gpusmith.numa_gate/n1/" + T1, 5, 900)
    rc, results = play(tmp_path, extra)
    assert rc == 0, results
    assert results["Take the node for maintenance (a lock other tools see)"]["lock_action"] == "renewed"
    assert double.store.get("leases", "kube-system", LEASE)["spec"]["holderIdentity"] == "gpusmith.numa_gate/n1/" + T1


MAINTENANCE = "/apis/maintenance.nvidia.com/v1alpha1/namespaces/default/nodemaintenances"


def test_with_the_nodemaintenance_crd_served_the_request_is_made_waited_for_and_released(double, tmp_path):
    _state_dir, extra = dry.opened(double, tmp_path)
    double.install_node_maintenance(grant_after=1.0)
    rc, results = play(tmp_path, dict(extra, release=True))
    assert rc == 0, results
    taken = results["Take the node for maintenance (a lock other tools see)"]
    assert (taken["lock_kind"], taken["lock_action"], taken["maintenance"], taken["holder"], taken["transition"], taken["ready"], taken["phase"]) == (
        "NodeMaintenance", "created", "default/" + LEASE, "numa-gate.gpusmith", T1, "True", "Ready")
    assert 1.0 <= taken["waited_s"] < 10
    event = results["What the drain's run would record before its own start"]["msg"][0]
    assert event == {"step": "lock", "event": "finished", "outcome": "changed", "changed": {
        "lock_kind": "NodeMaintenance", "maintenance": "default/" + LEASE, "holder": "numa-gate.gpusmith", "lock_action": "created",
        "acquired": taken["acquired"]}}
    # Made once, read until granted, deleted at the end; no Lease written.
    log = [(m, p.split("?")[0]) for m, p in double.requests if "nodemaintenances" in p]
    assert log[0] == ("GET", "/apis/maintenance.nvidia.com/v1alpha1/nodemaintenances")
    assert log[1] == ("POST", MAINTENANCE)
    assert log[2:-2] == [("GET", MAINTENANCE + "/" + LEASE)] * len(log[2:-2]) and len(log[2:-2]) >= 1
    assert log[-2:] == [("GET", MAINTENANCE + "/" + LEASE), ("DELETE", MAINTENANCE + "/" + LEASE)]
    assert [(m, p) for m, p in double.requests if m != "GET" and "nodemaintenances" not in p] == []
    assert double.store.list("nodemaintenances")[0] == []


def test_another_requestors_nodemaintenance_refuses_before_anything_is_sent(double, tmp_path):
    state_dir, extra = dry.opened(double, tmp_path)
    double.install_node_maintenance(grant_after=None)
    other = double.store.create("nodemaintenances", {"metadata": {"name": "nvidia-operator-n1", "namespace": "default"},
                                                     "spec": {"requestorID": "gpu.operator.nvidia.com", "nodeName": "n1", "cordon": True}})
    rc, results = play(tmp_path, extra)
    assert rc == 2
    refusal = results["Take the node for maintenance (a lock other tools see)"]["msg"]
    assert refusal.startswith("node n1 is in maintenance requested by gpu.operator.nvidia.com since %s (NodeMaintenance default/nvidia-operator-n1, "
                              "Ready " % other["metadata"]["creationTimestamp"])
    assert refusal.endswith("); nothing was changed. Wait for it to be released")
    assert [(m, p) for m, p in double.requests if m != "GET"] == []
    assert events(state_dir)[1:] == [("lock", "finished", "failed", {
        "message": refusal, "holder": "gpu.operator.nvidia.com", "acquired": other["metadata"]["creationTimestamp"]})]
    assert transitions.current("/", state_dir) is None
