# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The rehearsal role's after entry point through the stand-ins (issue 27, item 6): the API double (tests/doubles/apiserver) with its
ReplicaSet controller recreates the workload's pod, the kubelet stand-in (tests/doubles/kubelet) admits it on node n1 and serves
PodResources on its socket; the recreated pod's cgroups are a recorded tree laid out as the kubelet and containerd lay them out
(its container IDs the stand-in's), or, for the opt-in restart, real cgroups of this machine holding a real main process. The kept
check holds the canary's placement checks for the recreated pod, not only Ready, and the restarted container's allocation."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import threading
import time

import pytest

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._rehearsal import workloads as rehearsal_workloads
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._transition.journal import journal, transitions
from ansible_collections.gpusmith.numa_gate.tests.unit import ansible_run, playbook_run
from ansible_collections.gpusmith.numa_gate.tests.unit.plugins.module_utils._evidence.evidence_trees import node_tree
from ansible_collections.gpusmith.numa_gate.tests.unit.plugins.module_utils._evidence.placement.evidence_procs import Child, KubeletCgroups
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
    variables = playbook_run.write_vars(tmp_path, {
        "numa_gate_kubeconfig": double.write_kubeconfig(tmp_path / "kubeconfig"), "rehearsal_node_name": "n1", "rehearsal_timeout": 20,
        "rehearsal_poll": 0.5, "rehearsal_before": before, "rehearsal_transition": {"target": "rollback", "transition": ROLLBACK},
        "rehearsal_topology": ri.h200_facts(), "rehearsal_state_dir": state_dir, "podresources_client_python": ansible_run.PYTHON,
        "node_root": str(tmp_path / "node"), "socket": str(machine / "root" / "pod-resources" / "kubelet.sock"),
        "result_path": str(tmp_path / "result.json")})
    playbook_run.run(tmp_path, tmp_path / "play.yml", *playbook_run.LOCALHOST, "-e", "@%s" % variables,
                     env=ansible_run.environment_without_api_settings(tmp_path))
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


RESTART_PLAY = """- hosts: localhost
  gather_facts: false
  module_defaults:
    gpusmith.numa_gate.placement_info: {cgroup_root: "{{ cgroup_root }}"}
    gpusmith.numa_gate.pod_resources_info: {socket: "{{ socket }}"}
  tasks:
    - name: Read this machine's topology (its real CPUs and NUMA node, which the stand-in's machine copies)
      gpusmith.numa_gate.topology_facts:
    - name: Check the workloads after the rollback, restarting their main container
      ansible.builtin.include_role:
        name: gpusmith.numa_gate.rehearsal
        tasks_from: after
    - name: Keep what the role exported
      ansible.builtin.copy:
        content: "{{ rehearsal_result | to_json }}"
        dest: "{{ result_path }}"
        mode: "0644"
"""


def _play_the_kubelets_restart(double, name, child, stop):
    """The stand-in restarts no container: when the real main process ends, the test writes what the kubelet would (restartCount 1,
    the pod Ready again), and keeps it written (the stand-in's own status writes may come after)."""
    child.proc.wait()
    while not stop.is_set():
        pod = double.store.get("pods", "default", name)
        statuses = pod.get("status", {}).get("containerStatuses") or []
        if any(status.get("restartCount") != 1 for status in statuses):
            for status in statuses:
                status["restartCount"] = 1
            double.store.update("pods", pod, check_version=False)
        stop.wait(0.1)


def test_an_asked_restart_of_the_main_container_keeps_its_allocation(double, tmp_path):
    """Real: this machine's cgroups (a kubelet-shaped tree under a cgroup root of its own) and a real main process, stopped by
    rehearsal_restart; the stand-in's PodResources before and after; the API double's pod as the kubelet would write it."""
    cpus = "0-%d" % max(os.sched_getaffinity(0)) if len(os.sched_getaffinity(0)) > 1 else "0"
    machine = standin_harness.fake_machine(tmp_path / "n1", cpus, {0: cpus})
    running = standin_harness.Running(machine, KUBELET_CONFIG, "--api-server", double.url,
                                      "--admit-api-pods", "--bind-pods")
    tree = KubeletCgroups("numa-gate-rehearsal-%s" % os.urandom(4).hex())
    stop = threading.Event()
    child = None
    try:
        if tree.version != 1:
            pytest.skip("this machine has cgroup v2; the real restart test is written against its v1 cpuset")
        double.add_pod("web-7c9f5d-q2xkp", "n1", owner_kind="ReplicaSet", owner_name="web", labels=LABELS, grace=0)
        (old,) = _wait_for("the ReplicaSet's pod Ready on n1", lambda: [p for p in _web_pods(double) if _ready(p)])
        before = rehearsal_workloads.workloads(_web_pods(double), "n1")
        double.store.delete("pods", "default", old["metadata"]["name"])
        (new,) = _wait_for("a new pod admitted by the stand-in on n1", lambda: [
            p for p in _web_pods(double) if _ready(p) and p["metadata"]["uid"] != old["metadata"]["uid"] and _admitted(p)])
        uid, name = new["metadata"]["uid"], new["metadata"]["name"]
        cgroup = tree.make("kubepods/besteffort/pod%s/%s" % (uid, _container_id(uid, "main")), cpus, "0")
        child = Child(main=[0], threads=[[0]], touch=4096)
        tree.enter(cgroup, child.pid)
        child.go()
        threading.Thread(target=_play_the_kubelets_restart, args=(double, name, child, stop), daemon=True).start()
        state_dir = str(tmp_path / "state")
        _closed_rollback(state_dir)
        (tmp_path / "play.yml").write_text(RESTART_PLAY)
        (tmp_path / "vars.json").write_text(json.dumps({
            "numa_gate_kubeconfig": double.write_kubeconfig(tmp_path / "kubeconfig"), "rehearsal_node_name": "n1", "rehearsal_timeout": 20,
            "rehearsal_poll": 0.5, "rehearsal_before": before, "rehearsal_transition": {"target": "rollback", "transition": ROLLBACK},
            "rehearsal_state_dir": state_dir, "podresources_client_python": ansible_run.PYTHON, "rehearsal_restart_main": True,
            "cgroup_root": "/" + tree.prefix, "socket": str(machine / "root" / "pod-resources" / "kubelet.sock"),
            "result_path": str(tmp_path / "result.json")}))
        argv = [os.path.join(ansible_run.BIN, "ansible-playbook"), "-i", "localhost,", "-c", "local", str(tmp_path / "play.yml"),
                "-e", "@%s" % (tmp_path / "vars.json"), "-e", "ansible_python_interpreter=%s" % ansible_run.PYTHON]
        done = subprocess.run(argv, cwd=str(tmp_path), env=ansible_run.environment_without_api_settings(tmp_path), capture_output=True,
                              text=True, timeout=300, check=False)
        assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
        check = json.loads((tmp_path / "result.json").read_text())["check"]
        assert child.proc.returncode == -9  # the real main process got SIGKILL
        assert check["restarts"] == [{"pod": "default/" + name, "container": "main", "restarted": True, "restart_count": 1, "changes": [],
                                      "error": None, "problems": []}]
        assert (check["problems"], check["reconciled"]) == ([], True)
    finally:
        stop.set()
        if child is not None:
            child.stop()
        tree.remove()
        running.stop()
