# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The shared settings reach the roles that talk to the API: the service_comparison role's Job load and the
kubelet_transition role's verify step (tasks_from: verify, with the module_defaults the role's main.yml sets around it)
take numa_gate_kubeconfig, and the verify step takes numa_gate_verify_timeout. Through the real ansible-playbook against
the API server TEST DOUBLE (tests/doubles/apiserver),
with HOME an empty folder and no KUBECONFIG or K8S_AUTH_*, so only the kubeconfig set through the shared setting reaches it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
import yaml

from ansible_collections.gpusmith.numa_gate.tests.unit import ansible_run

if os.path.join(ansible_run.REPO, "tests", "doubles") not in sys.path:
    sys.path.insert(0, os.path.join(ansible_run.REPO, "tests", "doubles"))

from apiserver import server  # noqa: E402 pylint: disable=wrong-import-position,import-error

NODE = "gpu-node-7"
JOB = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "load-{side}-{repetition}", "namespace": "default"},
       "spec": {"backoffLimit": 0, "template": {"spec": {"restartPolicy": "Never", "terminationGracePeriodSeconds": 1,
                                                         "containers": [{"name": "bench", "image": "registry.example/bench@sha256:0123",
                                                                         "command": ["bench"]}]}}}}
VERIFY = """- hosts: localhost
  gather_facts: false
{connection}  tasks:
    - name: The transition's verify step alone
      ansible.builtin.include_role:
        name: gpusmith.numa_gate.kubelet_transition
        tasks_from: verify
"""


def role_connection(role):
    """The module_defaults the role's tasks/main.yml sets around its tasks (its API connection), as a play's keyword: a task
    file run alone (tasks_from) is an internal step of the role and gets its connection from there."""
    with open(os.path.join(ansible_run.REPO, "roles", role, "tasks", "main.yml"), encoding="utf-8") as stream:
        return "  module_defaults: %s\n" % json.dumps(yaml.safe_load(stream)[0]["module_defaults"])


COMPARE = """- hosts: localhost
  gather_facts: false
  roles:
    - role: gpusmith.numa_gate.service_comparison
"""


@pytest.fixture(name="double")
def fixture_double():
    started = server.ApiServerDouble(controllers=True).start()
    try:
        started.add_node(NODE)
        yield started
    finally:
        started.stop()


def play(tmp_path, text, variables):
    (tmp_path / "play.yml").write_text(text)
    (tmp_path / "vars.json").write_text(json.dumps(variables))
    env = ansible_run.environment_without_api_settings(tmp_path)
    argv = [os.path.join(ansible_run.BIN, "ansible-playbook"), "-i", "localhost,", "-c", "local", str(tmp_path / "play.yml"),
            "-e", "@%s" % (tmp_path / "vars.json"), "-e", "ansible_python_interpreter=%s" % ansible_run.PYTHON]
    done = subprocess.run(argv, cwd=str(tmp_path), env=env, capture_output=True, text=True, timeout=120, check=False)
    return done, json.loads(done.stdout[done.stdout.index("{"):])


def failed(result):
    return [(task["task"]["name"], outcome) for one in result["plays"] for task in one["tasks"]
            for outcome in task["hosts"].values() if outcome.get("failed")]


def test_the_transition_verify_takes_the_shared_kubeconfig_and_verify_timeout(double, tmp_path):
    done, result = play(tmp_path, VERIFY.replace("{connection}", role_connection("kubelet_transition")), {
        "numa_gate_kubeconfig": double.write_kubeconfig(tmp_path / "kubeconfig"), "numa_gate_node_name": NODE,
        "numa_gate_verify_timeout": 3, "kubelet_transition_target": "enable", "kubelet_transition_settings": {"cpuManagerPolicy": "static"}})
    assert done.returncode == 2
    [(name, outcome)] = failed(result)
    assert name == "gpusmith.numa_gate.kubelet_transition : Wait for the node to be Ready with the target configuration"
    # The timeout set through numa_gate_verify_timeout (3 s, not the default 180 s), stable_s the role's own 20 s; the node
    # read through the kubeconfig set through numa_gate_kubeconfig (no other reaches the double).
    assert outcome["msg"].startswith("verify %s: not Ready and healthy for 20s in a row within 3s; last seen: Ready=True since " % NODE)
    assert 3 <= outcome["waited_s"] < 10
    assert ("GET", "/api/v1/nodes/%s" % NODE) in double.requests
    assert ("GET", "/api/v1/nodes/%s/proxy/healthz" % NODE) in double.requests


def test_the_service_comparison_job_takes_the_shared_kubeconfig(double, tmp_path):
    done, result = play(tmp_path, COMPARE, {
        "numa_gate_kubeconfig": double.write_kubeconfig(tmp_path / "kubeconfig"),
        "service_comparison_baseline": {"target_url": "http://127.0.0.1:9/baseline", "prometheus_url": "http://127.0.0.1:9"},
        "service_comparison_canary": {"target_url": "http://127.0.0.1:9/canary", "prometheus_url": "http://127.0.0.1:9"},
        "service_comparison_job": JOB, "service_comparison_repetitions": 3, "service_comparison_timeout": 2,
        "service_comparison_poll": 0.2, "service_comparison_result_dir": str(tmp_path)})
    assert done.returncode == 2
    [(name, outcome)] = failed(result)
    assert name.startswith("gpusmith.numa_gate.service_comparison : Run the load, the measured part: baseline repetition 1")
    # The Job was created on the double (through the kubeconfig set through numa_gate_kubeconfig), ran past the 2 s and was removed.
    assert ("POST", "/apis/batch/v1/namespaces/default/jobs") in double.requests
    assert outcome["msg"] == ("the load generator failed for baseline repetition 1 (window 1, the measured part): ran past its 2 s timeout "
                              "and was stopped (the Job deleted with its pods); Job default/load-baseline-1-baseline-1; log tail: (empty)")
    assert ("DELETE", "/apis/batch/v1/namespaces/default/jobs/load-baseline-1-baseline-1") in [
        (method, path.split("?", 1)[0]) for method, path in double.requests]
