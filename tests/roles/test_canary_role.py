# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The canary role with the operator's workload through its controller, against the API double (tests/doubles/apiserver) with its
controllers on: a Job's pod, and a GPU Deployment's pod through the Deployment and ReplicaSet controllers, are the evidence subjects
(read back by uid, their controller named), the remove entry point leaves nothing of them; a Deployment no node takes ends at the bound
naming the scheduler's reason; a CronJob is refused naming the kinds accepted, and nothing is created (issue 26)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence import admission_failure
from ansible_collections.gpusmith.numa_gate.tests.unit import ansible_run

if os.path.join(ansible_run.REPO, "tests", "doubles") not in sys.path:
    sys.path.insert(0, os.path.join(ansible_run.REPO, "tests", "doubles"))

from apiserver import server, workloads  # noqa: E402 pylint: disable=wrong-import-position,import-error
import standin_harness  # noqa: E402 pylint: disable=wrong-import-position,import-error

PLAY = """- hosts: localhost
  gather_facts: false
  tasks:
    - name: Send the canary
      ansible.builtin.include_role:
        name: gpusmith.numa_gate.canary
    - name: Keep what the role recorded
      ansible.builtin.copy:
        content: "{{ canary_result | to_json }}"
        dest: "{{ result_path }}"
        mode: "0644"
    - name: Remove the canary
      ansible.builtin.include_role:
        name: gpusmith.numa_gate.canary
        tasks_from: remove
"""
MAIN = {"name": "main", "image": "cuda-smoke:1",
        "resources": {"requests": {"cpu": "2", "memory": "2Gi"}, "limits": {"cpu": "2", "memory": "2Gi", "nvidia.com/gpu": "1"}}}
JOB = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "gpu-smoke"},
       "spec": {"template": {"metadata": {"labels": {"app": "smoke"}},
                             "spec": {"restartPolicy": "Never", "terminationGracePeriodSeconds": 1, "containers": [MAIN]}}}}


@pytest.fixture(name="double")
def fixture_double():
    started = server.ApiServerDouble(controllers=True).start()
    try:
        started.add_node("gpu-1")
        yield started
    finally:
        started.stop()


def run(double, tmp_path, workload, node="gpu-1", timeout=10, **extra):
    (tmp_path / "play.yml").write_text(PLAY)
    (tmp_path / "vars.json").write_text(json.dumps(dict({
        "numa_gate_kubeconfig": double.write_kubeconfig(tmp_path / "kubeconfig"), "canary_node_name": node, "canary_timeout": timeout,
        "canary_poll": 1, "canary_workload": workload, "result_path": str(tmp_path / "result.json")}, **extra)))
    argv = [os.path.join(ansible_run.BIN, "ansible-playbook"), "-i", "localhost,", "-c", "local", str(tmp_path / "play.yml"),
            "-e", "@%s" % (tmp_path / "vars.json"), "-e", "ansible_python_interpreter=%s" % ansible_run.PYTHON]
    return subprocess.run(argv, cwd=str(tmp_path), env=ansible_run.environment_without_api_settings(tmp_path), capture_output=True,
                          text=True, timeout=300, check=False)


def test_a_jobs_pod_is_the_subject_and_nothing_is_left(double, tmp_path):
    done = run(double, tmp_path, JOB)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    result = json.loads((tmp_path / "result.json").read_text())
    assert (result["kind"], result["workload"], result["created"]) == ("Job", "Job/gpu-smoke", True)
    assert result["diff"] == [
        "metadata.labels: (none) -> {\"app.kubernetes.io/name\":\"numa-gate-canary\"}",
        "metadata.namespace: (none) -> default",
        "spec.template.metadata.labels.app.kubernetes.io/name: (none) -> numa-gate-canary",
        "spec.template.spec.nodeSelector: (none) -> {\"example.com/pod-managers\":\"canary\",\"kubernetes.io/hostname\":\"gpu-1\"}",
        "spec.template.spec.resources: (none) -> {\"limits\":{\"cpu\":\"2\",\"memory\":\"2Gi\"},\"requests\":{\"cpu\":\"2\",\"memory\":\"2Gi\"}}"]
    assert result["sent_resources"] == {"requests": {"cpu": "2", "memory": "2Gi"}, "limits": {"cpu": "2", "memory": "2Gi"}}
    assert len(result["pods"]) == 1
    [pod] = result["pods"]
    assert pod["pod"].startswith("default/gpu-smoke-") and pod["uid"] == result["uid"]
    assert (pod["controller"], pod["gpu_requests"], pod["stored_read"]) == ("Job/gpu-smoke", {"nvidia.com/gpu": "1"}, True)
    assert result["admission"]["admitted"] is True
    assert (double.store.list("jobs")[0], double.store.list("pods")[0]) == ([], [])  # the Job and its pod: nothing left


def test_a_cronjob_is_refused_naming_the_kinds_accepted_and_nothing_is_created(double, tmp_path):
    done = run(double, tmp_path, {"apiVersion": "batch/v1", "kind": "CronJob", "metadata": {"name": "nightly"}, "spec": {}})
    assert done.returncode == 2
    failed = [host["msg"] for task in json.loads(done.stdout)["plays"][0]["tasks"] for host in task["hosts"].values() if host.get("failed")]
    assert failed == ["Task failed: Finalization of task args for 'ansible.builtin.set_fact' failed: Error while resolving value for "
                      "'__canary_pod': The filter plugin 'gpusmith.numa_gate.canary_manifest' failed: canary_manifest: canary: workload must be a "
                      "Deployment, StatefulSet, Job or Pod manifest, got kind 'CronJob': its pods come on a schedule, not when the canary is sent"]
    assert not [request for request in double.requests if request[0] != "GET"]


DEPLOYMENT = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "gpu-serve"},
              "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "serve"}},
                       "template": {"metadata": {"labels": {"app": "serve"}},
                                    "spec": {"terminationGracePeriodSeconds": 0, "containers": [dict(MAIN, image="vllm-serve:1")]}}}}
POOL = {"example.com/pod-managers": "canary"}


def workload_objects(double):
    return {resource: sorted(o["metadata"]["name"] for o in double.store.list(resource)[0]) for resource in ("deployments", "replicasets", "pods")}


def test_a_gpu_deployment_through_its_controller_is_the_subject_and_nothing_is_left(double, tmp_path):
    double.add_node("gpu-2", labels=dict(POOL, **{"kubernetes.io/hostname": "gpu-2"}), capacity={"nvidia.com/gpu": "1"})
    assert workload_objects(double) == {"deployments": [], "replicasets": [], "pods": []}
    done = run(double, tmp_path, DEPLOYMENT, node="gpu-2")
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    result = json.loads((tmp_path / "result.json").read_text())
    assert (result["kind"], result["workload"], result["created"]) == ("Deployment", "Deployment/gpu-serve", True)
    assert result["diff"] == [
        "metadata.labels: (none) -> {\"app.kubernetes.io/name\":\"numa-gate-canary\"}",
        "metadata.namespace: (none) -> default",
        "spec.template.metadata.labels.app.kubernetes.io/name: (none) -> numa-gate-canary",
        "spec.template.spec.nodeSelector: (none) -> {\"example.com/pod-managers\":\"canary\",\"kubernetes.io/hostname\":\"gpu-2\"}",
        "spec.template.spec.resources: (none) -> {\"limits\":{\"cpu\":\"2\",\"memory\":\"2Gi\"},\"requests\":{\"cpu\":\"2\",\"memory\":\"2Gi\"}}"]
    [pod] = result["pods"]
    # The Deployment controller's ReplicaSet, <deployment>-<pod-template-hash>, made the pod: <replicaset>-<5 characters>.
    replicaset = "gpu-serve-" + workloads.template_hash(result["manifest"]["spec"]["template"])
    assert pod["controller"] == "ReplicaSet/" + replicaset and pod["pod"].startswith("default/%s-" % replicaset)
    assert (pod["uid"], pod["node"]) == (result["uid"], "gpu-2")
    assert (pod["gpu_requests"], pod["stored_read"], pod["stored_resources"]) == (
        {"nvidia.com/gpu": "1"}, True, {"limits": {"cpu": "2", "memory": "2Gi"}, "requests": {"cpu": "2", "memory": "2Gi"}})
    assert result["admission"]["admitted"] is True
    assert workload_objects(double) == {"deployments": [], "replicasets": [], "pods": []}  # the Deployment, its ReplicaSet and pod: gone


def test_a_deployment_no_node_takes_ends_at_the_bound_naming_the_scheduler_and_leaves_nothing(double, tmp_path):
    double.add_node("cpu-2", labels=dict(POOL, **{"kubernetes.io/hostname": "cpu-2"}))
    before = workload_objects(double)
    done = run(double, tmp_path, DEPLOYMENT, node="cpu-2", timeout=3)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    result = json.loads((tmp_path / "result.json").read_text())
    message = ("0/2 nodes are available: 1 Insufficient nvidia.com/gpu, 1 node(s) didn't match Pod's node affinity/selector. preemption: 0/2 "
               "nodes are available: 2 Preemption is not helpful for scheduling.")
    assert result["admission"]["admitted"] is False
    assert result["admission"]["failures"] == [{"layer": "scheduler", "reason": "Unschedulable", "message": message}]
    [pod] = result["pods"]
    assert (pod["node"], pod["gpu_requests"]) == (None, {"nvidia.com/gpu": "1"})
    assert "canary %s: scheduler refused it (Unschedulable): %s" % (result["pod"], message) in done.stdout
    assert (before, workload_objects(double)) == ({"deployments": [], "replicasets": [], "pods": []},) * 2


KUBELET_CONFIG = """apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
cpuManagerPolicy: static
memoryManagerPolicy: Static
topologyManagerPolicy: single-numa-node
topologyManagerScope: pod
featureGates: {PodLevelResources: true, PodLevelResourceManagers: true}
reservedSystemCPUs: "0"
kubeReserved: {memory: 1Gi}
reservedMemory:
- numaNode: 0
  limits: {memory: 1124Mi}
"""
# The plan's allocatable on that machine: NUMA node 0 keeps CPUs 1-3 (CPU 0 reserved), node 1 CPUs 4-7 (kubelet_plan's largest_pod).
PLAN_ALLOCATABLE = {"0": {"cpus": "1-3", "largest_pod": {"cpu": 3, "memory": "2900Mi"}}, "1": {"cpus": "4-7", "largest_pod": {"cpu": 4, "memory": "4Gi"}}}
POD_SCOPE_REJECTION = "Pod Scope pod with pod-level resources failed admission under pod-scope topology manager"


@pytest.fixture(name="kubelet")
def fixture_kubelet(double, tmp_path):
    """The kubelet stand-in (tests/doubles/kubelet) of node n1 in the canary pool, admitting the double's pods: 8 CPUs, NUMA 0-3 and 4-7."""
    machine = standin_harness.fake_machine(tmp_path / "n1", "0-7", {0: "0-3", 1: "4-7"})
    running = standin_harness.Running(machine, KUBELET_CONFIG, "--api-server", double.url, "--admit-api-pods", "--bind-pods",
                                      "--node-labels", "example.com/pod-managers=canary")
    try:
        yield running
    finally:
        running.stop()


def test_the_controllers_answer_to_an_admission_failure_is_recorded_and_nothing_is_left(double, kubelet, tmp_path):
    assert kubelet.proc.poll() is None
    before = workload_objects(double)
    done = run(double, tmp_path, None, node="n1", timeout=20, canary_admission_failure=True, canary_admission_largest=PLAN_ALLOCATABLE,
               canary_admission_window=4)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    result = json.loads((tmp_path / "result.json").read_text())
    found = result["admission_failure"]
    # The probe: one CPU over node 1's 4, sent through a Deployment; the kubelet stand-in rejects each pod in scope_pod.go's words.
    assert found["rejection"] == {"layer": "kubelet", "reason": "TopologyAffinityError", "message": "Pod was rejected: " + POD_SCOPE_REJECTION}
    # The ReplicaSet replaced each rejected pod within the 4 s window (a pod a second, the stand-in's poll), every one of them failed but
    # perhaps the newest, still waiting for the kubelet; the events are the rejections, one per failed pod.
    assert found["created"] >= 3 and found["replacements"] == found["created"] - 1
    assert found["failed"] in (found["created"], found["created"] - 1)
    assert [p["reason"] for p in found["pods"] if p["phase"] == "Failed"] == ["TopologyAffinityError"] * found["failed"]
    probe = admission_failure.probe({"name": "pod-numa-admission-probe", "node": "n1", "largest": PLAN_ALLOCATABLE})
    assert probe["shape"] == {"cpu": "5", "memory": "1Gi"}
    replicaset = "pod-numa-admission-probe-" + workloads.template_hash(probe["manifest"]["spec"]["template"])
    assert {p["pod"].rsplit("-", 1)[0] for p in found["pods"]} == {"default/" + replicaset}
    assert found["events"] == [{"type": "Warning", "reason": "TopologyAffinityError", "message": POD_SCOPE_REJECTION, "count": found["failed"]}]
    assert (found["left"], found["window_s"]) == ([], 4)
    assert found["row"] == ("TopologyAffinityError at the kubelet; the controller created %d pods in 4 s, %d failed, %d replacements; nothing left "
                            "after clean-up" % (found["created"], found["failed"], found["replacements"]))
    assert "canary admission failure: " + found["row"] in done.stdout
    assert "refused, 0s of 4s" in done.stdout  # the window's progress lines
    # The allocation canary sent after it was admitted on the node.
    assert (result["node"], result["admission"]["admitted"]) == ("n1", True)
    # The double's objects before and after: no Deployment, ReplicaSet or pod of the probe or the canary.
    assert (before, workload_objects(double)) == ({"deployments": [], "replicasets": [], "pods": []},) * 2
