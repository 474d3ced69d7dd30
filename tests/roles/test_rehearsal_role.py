# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The rehearsal role's after entry point through the stand-ins (issue 27, item 6): the API double (tests/doubles/apiserver) with its
ReplicaSet controller recreates the workload's pod, the kubelet stand-in (tests/doubles/kubelet) admits it on node n1 and serves
PodResources on its socket; the recreated pod's cgroups are a recorded tree laid out as the kubelet and containerd lay them out
(its container IDs the stand-in's). The kept check holds the canary's placement checks for the recreated pod, not only Ready."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import time

import pytest

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._rehearsal import workloads as rehearsal_workloads
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._transition.journal import journal, transitions
from ansible_collections.gpusmith.numa_gate.tests.unit import ansible_run
from ansible_collections.gpusmith.numa_gate.tests.unit.plugins.module_utils._evidence.evidence_trees import node_tree
from ansible_collections.gpusmith.numa_gate.tests.unit.plugins.module_utils._record import record_inputs as ri

if os.path.join(ansible_run.REPO, "tests", "doubles") not in sys.path:
    sys.path.insert(0, os.path.join(ansible_run.REPO, "tests", "doubles"))

from apiserver import server  # noqa: E402 pylint: disable=wrong-import-position,import-error
import standin_harness  # noqa: E402 pylint: disable=wrong-import-position,import-error

ROLLBACK = "20261201T091000Z"
LABELS = {"app": "web"}
# The rolled-back kubelet: the static CPU manager at container scope, CPU 0 reserved, on the H200 VM's 16 CPUs (one NUMA node).
KUBELET_CONFIG = """apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
cpuManagerPolicy: static
topologyManagerPolicy: none
topologyManagerScope: container
reservedSystemCPUs: "0"
"""
PLAY = """- hosts: localhost
  gather_facts: false
  module_defaults:
    gpusmith.numa_gate.placement_info: {root: "{{ node_root }}"}
    gpusmith.numa_gate.pod_resources_info: {socket: "{{ socket }}"}
  tasks:
    - name: Check the workloads after the rollback
      ansible.builtin.include_role:
        name: gpusmith.numa_gate.rehearsal
        tasks_from: after
    - name: Keep what the role exported
      ansible.builtin.copy:
        content: "{{ rehearsal_result | to_json }}"
        dest: "{{ result_path }}"
        mode: "0644"
"""


@pytest.fixture(name="double")
def fixture_double():
    started = server.ApiServerDouble(controllers=True).start()
    try:
        yield started
    finally:
        started.stop()


@pytest.fixture(name="kubelet")
def fixture_kubelet(double, tmp_path):
    machine = standin_harness.fake_machine(tmp_path / "n1", "0-15", {0: "0-15"})
    running = standin_harness.Running(machine, KUBELET_CONFIG, "--api-server", double.url, "--admit-api-pods", "--bind-pods")
    try:
        yield running, machine
    finally:
        running.stop()


def _container_id(uid, name):
    """The stand-in's container ID (tests/doubles/kubelet/standin_pods.py container_id), as containerd's would look."""
    return hashlib.sha256(("%s/%s" % (uid, name)).encode()).hexdigest()


def _web_pods(double):
    return [pod for pod in double.store.list("pods")[0] if pod["metadata"].get("labels", {}).get("app") == "web"]


def _wait_for(what, condition, timeout=30):
    deadline = time.time() + timeout
    while time.time() < deadline:
        found = condition()
        if found:
            return found
        time.sleep(0.2)
    raise AssertionError("%s within %d s" % (what, timeout))


def _ready(pod):
    return pod["spec"].get("nodeName") == "n1" and any(c.get("type") == "Ready" and c.get("status") == "True"
                                                       for c in pod.get("status", {}).get("conditions") or [])


def _admitted(pod):
    return all(len(status.get("containerID", "")) == len("containerd://") + 64 for status in pod.get("status", {}).get("containerStatuses") or [{}])


def _closed_rollback(state_dir):
    transitions.open_transition("/", state_dir, "rollback", ROLLBACK)
    path = transitions.journal_path("/", state_dir, ROLLBACK)
    journal.append(path, "decide", "finished", outcome="ok", changed={"target": "rollback"}, at="2026-12-01T09:10:00Z")
    journal.append(path, "uncordon", "finished", outcome="changed", at="2026-12-01T09:10:21Z")
    transitions.close("/", state_dir, ROLLBACK)


def _rehearse(double, kubelet, tmp_path, container_cpus):
    """The workload named before, its pod evicted (as the drain does) and recreated; its cgroups on CPUs ``container_cpus``."""
    _running, machine = kubelet
    double.add_pod("web-7c9f5d-q2xkp", "n1", owner_kind="ReplicaSet", owner_name="web", labels=LABELS, grace=0)
    (old,) = _wait_for("the ReplicaSet's pod Ready on n1", lambda: [p for p in _web_pods(double) if _ready(p)])
    before = rehearsal_workloads.workloads(_web_pods(double), "n1")
    double.store.delete("pods", "default", old["metadata"]["name"])
    # the double marks a placed pod Ready at once; the stand-in's admission then writes its container IDs
    (new,) = _wait_for("a new pod admitted by the stand-in on n1", lambda: [
        p for p in _web_pods(double) if _ready(p) and p["metadata"]["uid"] != old["metadata"]["uid"] and _admitted(p)])
    uid = new["metadata"]["uid"]
    containers = [{"id": _container_id(uid, c["name"]), "prefix": "cri-containerd-", "cpus": container_cpus, "mems": "0",
                   "usage_ns": 10, "pids": {500: {"threads": {500: container_cpus}, "numa_maps": "7f00 default anon=256 N0=256 kernelpagesize_kB=4\n"}}}
                  for c in new["spec"]["containers"]]
    node_tree(str(tmp_path / "node"), 2, "systemd", "besteffort", uid, containers)
    state_dir = str(tmp_path / "state")
    _closed_rollback(state_dir)
    (tmp_path / "play.yml").write_text(PLAY)
    (tmp_path / "vars.json").write_text(json.dumps({
        "numa_gate_kubeconfig": double.write_kubeconfig(tmp_path / "kubeconfig"), "rehearsal_node_name": "n1", "rehearsal_timeout": 20,
        "rehearsal_poll": 0.5, "rehearsal_before": before, "rehearsal_transition": {"target": "rollback", "transition": ROLLBACK},
        "rehearsal_topology": ri.h200_facts(), "rehearsal_state_dir": state_dir, "podresources_client_python": ansible_run.PYTHON,
        "node_root": str(tmp_path / "node"), "socket": str(machine / "root" / "pod-resources" / "kubelet.sock"),
        "result_path": str(tmp_path / "result.json")}))
    argv = [os.path.join(ansible_run.BIN, "ansible-playbook"), "-i", "localhost,", "-c", "local", str(tmp_path / "play.yml"),
            "-e", "@%s" % (tmp_path / "vars.json"), "-e", "ansible_python_interpreter=%s" % ansible_run.PYTHON]
    done = subprocess.run(argv, cwd=str(tmp_path), env=ansible_run.environment_without_api_settings(tmp_path), capture_output=True,
                          text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    return new, json.loads((tmp_path / "result.json").read_text())


def test_a_recreated_pod_on_the_shared_pool_agrees_on_the_canarys_checks(double, kubelet, tmp_path):
    new, result = _rehearse(double, kubelet, tmp_path, "0-15")
    check = result["check"]
    name = "default/%s" % new["metadata"]["name"]
    assert (check["came_back"], check["problems"], check["reconciled"]) == (True, [], True)
    assert check["placement"]["checked"] == 1
    assert check["placement"]["pods"] == [{"pod": name, "owner": "ReplicaSet/default/web", "checks": [
        ["cpuset", "main", "agree"], ["thread_masks", "main", "agree"]]}]
    assert check["restarts"] is None


def test_a_recreated_pod_ready_but_not_on_the_shared_pool_is_not_reconciled(double, kubelet, tmp_path):
    new, result = _rehearse(double, kubelet, tmp_path, "1-15")
    check = result["check"]
    name = "default/%s" % new["metadata"]["name"]
    assert (check["came_back"], check["reconciled"]) == (True, False)
    assert [entry[2] for entry in check["placement"]["pods"][0]["checks"] if entry[0] == "cpuset"] == ["disagree"]
    assert check["problems"] == check["placement"]["problems"] == [
        "%s: cpuset disagree: pod %s container main: the node's shared pool (container scope) 0-15, the cgroup's effective CPUs are 1-15"
        % (name, name)]
