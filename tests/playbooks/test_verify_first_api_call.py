# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""verify.yml through the real ansible-playbook when the API cannot be reached (issue 31, defect 1), and without named targets.

With no kubeconfig (HOME empty, no KUBECONFIG or K8S_AUTH_*) or a kubeconfig whose API server is gone (the API server TEST DOUBLE,
tests/doubles/apiserver, started and stopped: its port refuses), the run stops at its first API call with the connection error,
naming numa_gate_kubeconfig and the K8S_AUTH_* variables it tried, in --check too, and no later task runs (no canary, no record).
Before this, the run went on under failed_when: false and crashed in the canary's wait ("object of type 'dict' has no attribute
'resources'"), and --check exited 0. The topology is the real H200 VM fixture; the kubelet's files lie in a temporary folder.
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

HOST = "gpu-inventory-1"
STOP = "gpusmith.numa_gate.evidence : Stop when the API did not answer about the node (nothing created)"
FIRST = "gpusmith.numa_gate.evidence : Check the kubelet is Ready, healthy and runs the planned settings"
TRIED_ENV = ("then the controller's K8S_AUTH_* variables (none set: K8S_AUTH_KUBECONFIG, K8S_AUTH_HOST, K8S_AUTH_API_KEY, "
             "K8S_AUTH_CONTEXT nor the others), then $KUBECONFIG (unset) and ~/.kube/config (absent). Set numa_gate_kubeconfig to a "
             "kubeconfig that reaches the cluster (or K8S_AUTH_HOST with K8S_AUTH_API_KEY, as an AWX credential does), and "
             "numa_gate_node_name to the Node's name when it is not the inventory name; nothing was created")


def verify(tmp_path, *flags, environ=None, **variables):
    """ansible-playbook playbooks/verify.yml on one local inventory host with no API settings but what ``variables`` (and the
    controller's environment additions ``environ``) give."""
    (tmp_path / "conf.d").mkdir(exist_ok=True)
    (tmp_path / "config.yaml").write_text("apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n")
    (tmp_path / "hosts.ini").write_text("[gpu_canary]\n%s ansible_connection=local ansible_python_interpreter=%s\n" % (HOST, ansible_run.PYTHON))
    settings = {
        "numa_gate_kubelet_layout": {"path": str(tmp_path / "config.yaml"), "config_dir": str(tmp_path / "conf.d"),
                                     "dropin_name": "50-numa-gate.conf", "kubelet_root_dir": str(tmp_path / "kubelet"), "mode": "main"},
        "numa_gate_state_dir": str(tmp_path / "state"), "numa_gate_artifacts_dir": str(tmp_path / "artifacts"),
        "topology_root": shared_paths.H200_VM, "topology_gpu_source": "sysfs", "topology_write_artifacts": False,
        "podresources_client_manage_packages": False, "podresources_client_python": ansible_run.PYTHON}
    settings.update(variables)
    (tmp_path / "vars.json").write_text(json.dumps(settings))
    argv = [os.path.join(ansible_run.BIN, "ansible-playbook"), "-i", str(tmp_path / "hosts.ini"),
            os.path.join(ansible_run.REPO, "playbooks", "verify.yml"), "-e", "@%s" % (tmp_path / "vars.json")] + list(flags)
    env = dict(ansible_run.environment_without_api_settings(tmp_path), **(environ or {}))
    done = subprocess.run(argv, cwd=str(tmp_path), env=env, capture_output=True, text=True, timeout=240, check=False)
    return done, json.loads(done.stdout[done.stdout.index("{"):])


def tasks(result):
    """(task, host, failed, msg) of every task that ran, in order."""
    return [(task["task"]["name"], host, bool(outcome.get("failed")), outcome.get("msg"))
            for play in result["plays"] for task in play["tasks"] for host, outcome in task["hosts"].items()]


def stopped_at_the_first_api_call(done, result, message):
    ran = tasks(result)
    assert done.returncode == 2
    assert [entry for entry in ran if entry[2]] == [(STOP, HOST, True, message)]
    # The stop is the last task that ran, right after the first API call: no later read, no canary, no record, no set_stats.
    assert [entry[0] for entry in ran[-2:]] == [FIRST, STOP]
    assert result["stats"][HOST]["failures"] == 1


@pytest.mark.parametrize("flags", [[], ["--check"]])
def test_no_kubeconfig_stops_at_the_first_api_call_naming_what_it_tried(tmp_path, flags):
    done, result = verify(tmp_path, "-e", "numa_gate_hosts=gpu_canary", *flags)
    stopped_at_the_first_api_call(done, result, (
        "verify.yml cannot read node %s through the Kubernetes API: no API server to talk to: set host and api_key (K8S_AUTH_HOST, "
        "K8S_AUTH_API_KEY), or host, client_cert and client_key, or kubeconfig (K8S_AUTH_KUBECONFIG); $KUBECONFIG and ~/.kube/config are "
        "unset or absent. It tried numa_gate_kubeconfig (unset), %s" % (HOST, TRIED_ENV)))
    assert not (tmp_path / "artifacts" / HOST / "acceptance.json").exists()


@pytest.mark.parametrize("flags", [[], ["--check"]])
def test_a_dead_api_server_stops_at_the_first_api_call_naming_the_kubeconfig(tmp_path, flags):
    gone = server.ApiServerDouble().start()
    kubeconfig = gone.write_kubeconfig(tmp_path / "kubeconfig")
    url = gone.url
    gone.stop()
    done, result = verify(tmp_path, "-e", "numa_gate_hosts=gpu_canary", *flags, numa_gate_kubeconfig=kubeconfig)
    port = url.rsplit(":", 1)[1]
    stopped_at_the_first_api_call(done, result, (
        "verify.yml cannot read node %s through the Kubernetes API: cannot reach the API server at %s (GET /api/v1/nodes/%s): "
        "HTTPConnection(host='127.0.0.1', port=%s): Failed to establish a new connection: [Errno 111] Connection refused (4 attempts within "
        "the 30s deadline). It tried numa_gate_kubeconfig (%s), %s" % (HOST, url, HOST, port, kubeconfig, TRIED_ENV)))


def test_the_k8s_auth_variables_that_are_set_are_named_never_their_values(tmp_path):
    done, result = verify(tmp_path, "-e", "numa_gate_hosts=gpu_canary", environ={"K8S_AUTH_API_KEY": "s3cret-token"})
    stopped = [entry for entry in tasks(result) if entry[2]]
    assert done.returncode == 2
    assert [entry[:3] for entry in stopped] == [(STOP, HOST, True)]
    assert stopped[0][3].startswith(
        "verify.yml cannot read node %s through the Kubernetes API: api_key (from K8S_AUTH_API_KEY) is set but host is not" % HOST)
    assert "then the controller's K8S_AUTH_* variables (K8S_AUTH_API_KEY set), then $KUBECONFIG (unset)" in stopped[0][3]
    assert "s3cret-token" not in done.stdout + done.stderr


def test_verify_refuses_without_named_targets_before_any_node_is_contacted(tmp_path):
    done, result = verify(tmp_path)
    assert done.returncode == 2
    assert tasks(result) == [(
        "Refuse unless numa_gate_hosts or --limit names the nodes", "localhost", True,
        "verify.yml sends an allocation canary pod to every node it targets, and no target was named: set numa_gate_hosts to a host "
        "pattern (for example -e numa_gate_hosts=gpu_canary, or -e numa_gate_hosts=all on purpose) or pass --limit; nothing was created")]
    assert sorted(result["stats"]) == ["localhost"]
