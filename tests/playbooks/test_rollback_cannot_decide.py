# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""rollback.yml through the real ansible-playbook against the API server TEST DOUBLE (tests/doubles/apiserver) (issue 31, defect 2).

A node whose kubelet files are its baseline but which the API says is NotReady (a GPU driver fault, a runtime down: nothing the
transition did) is converged: no cordon, no drain, no restart (no PATCH and no eviction in the double's request log), and the run
says why it is NotReady. An API that cannot be reached is "cannot decide": the run fails with the connection error and opens no
transition. Before this, the NotReady node was cordoned, drained and restarted, and an unreachable API read as NotReady.

The topology is the real H200 VM fixture; the kubelet's files and the state folder lie in temporary folders (numa_gate_kubelet_layout,
numa_gate_state_dir); the host is this machine (ansible_connection=local), with a systemctl that says the kubelet runs.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from ansible_collections.gpusmith.numa_gate.tests.unit import ansible_run, shared_paths

if os.path.join(ansible_run.REPO, "tests", "doubles") not in sys.path:
    sys.path.insert(0, os.path.join(ansible_run.REPO, "tests", "doubles"))

from apiserver import server  # noqa: E402 pylint: disable=wrong-import-position,import-error

HOST = "gpu-inventory-2"
NODE = "gpu-node-2"
CONFIG = "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\ncpuManagerPolicy: none\n"
SYSTEMCTL = "#!/bin/sh\nif [ \"$1\" = show ]; then printf 'LoadState=loaded\\nActiveState=active\\n'; exit 0; fi\nexit 1\n"
REFUSE = "gpusmith.numa_gate.kubelet_transition : Refuse what this run may not do"
SAY = "gpusmith.numa_gate.kubelet_transition : Say why a node at its target is not Ready (left alone)"


@pytest.fixture(name="double")
def fixture_double():
    started = server.ApiServerDouble().start()
    try:
        yield started
    finally:
        started.stop()


def rollback(tmp_path, kubeconfig):
    """ansible-playbook playbooks/rollback.yml on the one inventory host, its Node NODE, through ``kubeconfig``."""
    (tmp_path / "conf.d").mkdir(exist_ok=True)
    (tmp_path / "config.yaml").write_text(CONFIG)
    (tmp_path / "hosts.ini").write_text("[gpu_canary]\n%s ansible_connection=local ansible_python_interpreter=%s\n" % (HOST, ansible_run.PYTHON))
    variables = {
        "numa_gate_hosts": "gpu_canary", "numa_gate_node_name": NODE, "numa_gate_kubeconfig": kubeconfig,
        "numa_gate_kubelet_layout": {"path": str(tmp_path / "config.yaml"), "config_dir": str(tmp_path / "conf.d"),
                                     "dropin_name": "50-numa-gate.conf", "kubelet_root_dir": str(tmp_path / "kubelet"), "mode": "dropin"},
        "numa_gate_state_dir": str(tmp_path / "state"), "numa_gate_artifacts_dir": str(tmp_path / "artifacts"),
        "topology_root": shared_paths.H200_VM, "topology_gpu_source": "sysfs", "topology_write_artifacts": False}
    (tmp_path / "vars.json").write_text(json.dumps(variables))
    (tmp_path / "bin").mkdir(exist_ok=True)
    (tmp_path / "bin" / "systemctl").write_text(SYSTEMCTL)
    (tmp_path / "bin" / "systemctl").chmod(0o755)
    argv = [os.path.join(ansible_run.BIN, "ansible-playbook"), "-i", str(tmp_path / "hosts.ini"),
            os.path.join(ansible_run.REPO, "playbooks", "rollback.yml"), "-e", "@%s" % (tmp_path / "vars.json")]
    env = dict(ansible_run.environment_without_api_settings(tmp_path), PATH="%s:%s" % (tmp_path / "bin", os.environ.get("PATH", "")))
    done = subprocess.run(argv, cwd=str(tmp_path), env=env, capture_output=True, text=True, timeout=240, check=False)
    return done, json.loads(done.stdout[done.stdout.index("{"):])


def outcomes(result, name):
    return [outcome for play in result["plays"] for task in play["tasks"] if task["task"]["name"] == name
            for host, outcome in task["hosts"].items() if host == HOST]


def failures(result):
    return [(task["task"]["name"], outcome.get("msg"))
            for play in result["plays"] for task in play["tasks"] for outcome in task["hosts"].values() if outcome.get("failed")]


def test_a_not_ready_node_at_its_baseline_is_left_alone_and_the_run_says_why(double, tmp_path):
    double.add_node(NODE, ready=False)
    done, result = rollback(tmp_path, double.write_kubeconfig(tmp_path / "kubeconfig"))
    assert (done.returncode, failures(result)) == (0, [])
    # No cordon, no drain, no restart: nothing but reads in the request log.
    assert [(method, path) for method, path in double.requests if method != "GET"] == []
    [said] = outcomes(result, SAY)
    assert said["msg"].startswith("%s: the node is not Ready (verify %s: not Ready and healthy for 0s in a row within 15s; last seen: "
                                  "Ready=False (" % (HOST, NODE))
    assert said["msg"].endswith("), for a reason the transition did not cause: its files are at the target, so it is left alone (no cordon, "
                                "no drain, no kubelet restart)")
    [kept] = outcomes(result, "gpusmith.numa_gate.kubelet_transition : Keep the decision")
    exported = kept["ansible_facts"]["kubelet_transition_result"]
    assert (exported["converged"], exported["reasons"], exported["transition"]) == (True, [], None)
    assert exported["notes"] == [said["msg"][len(HOST) + 2:]]
    assert not (tmp_path / "state" / "transitions").exists() or not os.listdir(tmp_path / "state" / "transitions")


def test_an_api_that_cannot_be_reached_is_cannot_decide(tmp_path):
    gone = server.ApiServerDouble().start()
    kubeconfig = gone.write_kubeconfig(tmp_path / "kubeconfig")
    url = gone.url
    gone.stop()
    done, result = rollback(tmp_path, kubeconfig)
    assert done.returncode == 2
    [(task, message)] = failures(result)
    assert task == REFUSE
    prefix = ("%s: cannot decide whether the node is at its rollback target: its files are, but the API gave no answer about the node "
              "(cannot reach the API server at %s (GET /api/v1/nodes/%s): " % (HOST, url, NODE))
    assert message.startswith(prefix)
    assert message.endswith(" (4 attempts within the 30s deadline)); nothing was changed")
    assert [said.get("skipped") for said in outcomes(result, SAY)] == [True]
    assert not (tmp_path / "state" / "transitions").exists() or not os.listdir(tmp_path / "state" / "transitions")
