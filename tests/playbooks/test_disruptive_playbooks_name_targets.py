# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""enable.yml and rollback.yml through the real ansible-playbook: with no host pattern they refuse before any node is contacted.

The inventory's node is an ssh host on a loopback port nothing listens on, so any attempt to reach it would show as an
unreachable host in the result: the refusal must come first, from localhost alone, and change nothing.
"""

import json
import os
import subprocess

import pytest

from ansible_collections.gpusmith.numa_gate.tests.unit import ansible_run

INVENTORY = "[gpu_canary]\ngpu-1 ansible_host=127.0.0.1 ansible_port=9 ansible_user=nobody\n"


def playbook(tmp_path, name, *flags):
    (tmp_path / "hosts.ini").write_text(INVENTORY)
    argv = [os.path.join(ansible_run.BIN, "ansible-playbook"), "-i", str(tmp_path / "hosts.ini"),
            os.path.join(ansible_run.REPO, "playbooks", name), "-e", "ansible_python_interpreter=%s" % ansible_run.PYTHON,
            "-e", "numa_gate_artifacts_dir=%s" % (tmp_path / "artifacts")] + list(flags)
    done = subprocess.run(argv, cwd=str(tmp_path), env=ansible_run.environment(tmp_path, ANSIBLE_TIMEOUT="2"),
                          capture_output=True, text=True, timeout=120, check=False)
    return done, json.loads(done.stdout[done.stdout.index("{"):])


def task_results(result):
    return [(task["task"]["name"], host, outcome.get("msg"))
            for play in result["plays"] for task in play["tasks"] for host, outcome in task["hosts"].items()]


@pytest.mark.parametrize("name", ["enable.yml", "rollback.yml"])
def test_no_host_pattern_refuses_before_any_node_is_contacted(tmp_path, name):
    done, result = playbook(tmp_path, name)
    assert done.returncode == 2
    assert task_results(result) == [(
        "Refuse unless numa_gate_hosts or --limit names the nodes", "localhost",
        "%s cordons, drains and restarts the kubelet of every node it targets, and no target was named: set numa_gate_hosts to a host"
        " pattern (for example -e numa_gate_hosts=gpu_canary, or -e numa_gate_hosts=all on purpose) or pass --limit; nothing was"
        " changed" % name)]
    assert sorted(result["stats"]) == ["localhost"]
    assert result["stats"]["localhost"]["failures"] == 1
    assert not (tmp_path / "artifacts").exists()


@pytest.mark.parametrize("flags", [["-e", "numa_gate_hosts=   "], ["-e", "numa_gate_hosts="]])
def test_an_empty_pattern_is_no_pattern(tmp_path, flags):
    done, result = playbook(tmp_path, "enable.yml", *flags)
    assert done.returncode == 2
    assert [entry[:2] for entry in task_results(result)] == [("Refuse unless numa_gate_hosts or --limit names the nodes", "localhost")]


@pytest.mark.parametrize("flags", [["-e", "numa_gate_hosts=gpu_canary"], ["--limit", "gpu_canary"]])
def test_a_named_pattern_goes_on_to_the_nodes(tmp_path, flags):
    """With a pattern the guard passes (or is not run under --limit) and the play goes on to the node's eligibility, read through
    the API from the controller (issue 32): with no API settings here that first API call fails naming them, before the node is
    contacted."""
    done, result = playbook(tmp_path, "enable.yml", *flags)
    assert done.returncode == 2
    assert [entry for entry in task_results(result) if entry[0].endswith("from the API")] == [(
        "gpusmith.numa_gate.numa_gate : Read the node, the control plane's version and its feature gates from the API", "gpu-1",
        "no API server to talk to: set host and api_key (K8S_AUTH_HOST, K8S_AUTH_API_KEY), or host, client_cert and client_key, or "
        "kubeconfig (K8S_AUTH_KUBECONFIG); $KUBECONFIG and ~/.kube/config are unset or absent")]
    assert result["stats"]["gpu-1"]["unreachable"] == 0
    assert result["stats"].get("localhost", {}).get("failures", 0) == 0
