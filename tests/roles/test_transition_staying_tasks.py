# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""roles/kubelet_transition's dry_run.yml on enable with the admission check (issue 28, parts 1 and 2), through real
ansible-playbook against the API server double, the node's topology read from the recorded H200 VM (one NUMA node, 16 CPUs)
by topology_facts: a DaemonSet pod the target would reject refuses before the cordon naming it, or passes allowed by its
owner's name; a GPU device plugin without CPU-manager compatibility refuses naming the setting, or passes overridden. The API
saw no write but dry runs; a refusal is recorded as the dry run's failure and ends the transition.
"""

from __future__ import annotations

import json
import os
import subprocess

import pytest

from ansible_collections.gpusmith.numa_gate.tests.unit import ansible_run
from ansible_collections.gpusmith.numa_gate.tests.roles import test_transition_dry_run_tasks as dry
from ansible_collections.gpusmith.numa_gate.tests.roles.test_transition_resume_journal_tasks import role_connection
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._transition.journal import transitions

H200 = os.path.join(os.environ.get("NUMA_GATE_SHARED", "/work/shared"), "fixtures", "real", "h200-vm")
TASK = "Check the drain before the cordon (dry-run evictions, pods summed per budget)"
TARGET = {"cpuManagerPolicy": "static", "memoryManagerPolicy": "Static", "topologyManagerPolicy": "single-numa-node",
          "topologyManagerScope": "pod", "reservedSystemCPUs": "0-1", "reservedMemory": [{"numaNode": 0, "limits": {"memory": "1Gi"}}]}
PLAY = dry.PLAY.replace("""  tasks:
    - name: The dry run, as main.yml runs it with its rescue""", """  tasks:
    - name: Read the recorded machine's topology
      gpusmith.numa_gate.topology_facts:
        root: "%s"

    - name: The dry run, as main.yml runs it with its rescue""" % H200)


@pytest.fixture(name="double")
def fixture_double():
    started = dry.server.ApiServerDouble().start()
    try:
        yield started
    finally:
        started.stop()


def play(tmp_path, extra):
    """Run PLAY with ``extra`` as extra vars: (rc, {task name: the host's result})."""
    playbook = tmp_path / "play.yml"
    playbook.write_text(PLAY.replace("{connection}", role_connection("kubelet_transition")))
    variables = tmp_path / "vars.json"
    variables.write_text(json.dumps(extra))
    argv = [os.path.join(ansible_run.BIN, "ansible-playbook"), "-i", "localhost,", "-c", "local", str(playbook), "-e", "@%s" % variables,
            "-e", "ansible_python_interpreter=%s" % ansible_run.PYTHON]
    done = subprocess.run(argv, cwd=ansible_run.REPO, env=ansible_run.environment(tmp_path), capture_output=True, text=True, timeout=300,
                          check=False)
    report = json.loads(done.stdout[done.stdout.index("{"):])
    return done.returncode, {task["task"]["name"].split(" : ")[-1]: task["hosts"]["localhost"] for task in report["plays"][0]["tasks"]}


def enabling(double, tmp_path, **more):
    state_dir, extra = dry.opened(double, tmp_path)
    extra.update(kubelet_transition_target="enable", __kubelet_transition_render={"effective": TARGET}, **more)
    return state_dir, extra


def guaranteed(double, name, cpus, namespace="kube-system"):
    with double.store.cond:
        pod = double.store.get("pods", namespace, name)
        pod["spec"]["containers"][0]["resources"] = {"requests": {"cpu": cpus, "memory": "1Gi"}, "limits": {"cpu": cpus, "memory": "1Gi"}}
        double.store.update("pods", pod, check_version=False)


def writes(double):
    return [(m, p) for m, p in double.requests if m != "GET"]


def test_a_daemonset_pod_the_target_rejects_refuses_before_the_cordon_naming_it(double, tmp_path):
    state_dir, extra = enabling(double, tmp_path)
    double.add_pod("burner-x2k9f", "n1", namespace="kube-system", owner_kind="DaemonSet", owner_name="burner", labels={"app": "burner"})
    guaranteed(double, "burner-x2k9f", "15")
    rc, results = play(tmp_path, extra)
    assert rc == 2
    assert results[TASK]["msg"].startswith(
        "the pods that stay on n1 through the restart would not all be admitted under the target policy: kube-system/burner-x2k9f would be "
        "rejected after the restart: TopologyAffinityError (Resources cannot be allocated with Topology locality): Guaranteed, 15 exclusive "
        "CPUs and 1Gi of memory needed on one NUMA node under single-numa-node at pod scope; the planned allocatable left is NUMA 0: 14 CPUs, ")
    assert results[TASK]["msg"].endswith("; allow a pod by name with kubelet_transition_allow_rejected_pods (namespace/pod or namespace/owner); "
                                         "checked before the cordon by a server-side dry run; nothing was cordoned or evicted")
    assert writes(double) == []
    assert dry.events(state_dir)[1:] == [("dry_run", "finished", "failed")]
    assert transitions.current("/", state_dir) is None


def test_the_same_pod_allowed_by_its_owners_name_passes_and_the_event_names_it(double, tmp_path):
    _state_dir, extra = enabling(double, tmp_path, kubelet_transition_allow_rejected_pods=["kube-system/burner"])
    double.add_pod("burner-x2k9f", "n1", namespace="kube-system", owner_kind="DaemonSet", owner_name="burner", labels={"app": "burner"})
    guaranteed(double, "burner-x2k9f", "15")
    rc, results = play(tmp_path, extra)
    assert rc == 0
    event = results["What the drain's run would record before its own start"]["msg"][0]
    assert event["changed"]["staying"] == ["kube-system/burner-x2k9f"]
    assert [(r["pod"], r["reason"], r["allowed"]) for r in event["changed"]["predicted_rejections"]] == [
        ("kube-system/burner-x2k9f", "TopologyAffinityError", True)]
    assert event["changed"]["extended_resources"] == {}
    assert writes(double) == []


def plugin(double, env=None, privileged=False):
    double.add_pod("nvdp-abcde", "n1", namespace="kube-system", owner_kind="DaemonSet", owner_name="nvdp", labels={"app": "nvdp"})
    with double.store.cond:
        pod = double.store.get("pods", "kube-system", "nvdp-abcde")
        pod["spec"]["containers"][0].update(name="nvidia-device-plugin-ctr", image="nvcr.io/nvidia/k8s-device-plugin:v0.20.0", env=env or [],
                                            securityContext={"privileged": privileged})
        double.store.update("pods", pod, check_version=False)


def test_a_device_plugin_without_cpu_manager_compatibility_refuses_and_the_override_lets_it_through(double, tmp_path):
    _state_dir, extra = enabling(double, tmp_path)
    plugin(double)
    rc, results = play(tmp_path, extra)
    assert rc == 2
    assert results[TASK]["msg"].startswith(
        "enabling the static CPU manager: the GPU device plugin kube-system/nvdp-abcde (container nvidia-device-plugin-ctr) runs without "
        "CPU-manager compatibility: DEVICE_LIST_STRATEGY is envvar (the plugin's default), PASS_DEVICE_SPECS is false (the plugin's default), "
        "the container is not privileged; ")
    assert writes(double) == []
    extra["kubelet_transition_gpu_device_access_override"] = True
    state_dir = extra["kubelet_transition_state_dir"]
    transitions.open_transition("/", state_dir, "enable", "20261201T090500Z")
    extra["__kubelet_transition_journal"] = {"transition": {"id": "20261201T090500Z"}, "resume": extra["__kubelet_transition_journal"]["resume"]}
    rc, results = play(tmp_path, extra)
    assert rc == 0
    assert results[TASK]["device_access"]["safe"] is False
    assert results[TASK]["warnings"][-1].endswith("(overridden by kubelet_transition_gpu_device_access_override)")


def test_the_gpu_operators_plugin_passes(double, tmp_path):
    _state_dir, extra = enabling(double, tmp_path)
    plugin(double, env=[{"name": "PASS_DEVICE_SPECS", "value": "true"}, {"name": "DEVICE_LIST_STRATEGY", "value": "envvar"}], privileged=True)
    # The versions the open step's module run read on the node (transition_journal runtime_versions) go into the preflight's record.
    versions = {"containerd": "2.1.4", "cri-o": None, "runc": "1.3.0"}
    extra["__kubelet_transition_journal"] = dict(extra["__kubelet_transition_journal"], runtime_versions=versions)
    rc, results = play(tmp_path, extra)
    assert rc == 0
    assert json.dumps(results[TASK]["device_access"]["why"]) == '"PASS_DEVICE_SPECS is true (PASS_DEVICE_SPECS) on a privileged container"'
    assert results[TASK]["device_access"]["runtime_versions"] == versions
