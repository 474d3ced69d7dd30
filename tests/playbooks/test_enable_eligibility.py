# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""enable.yml's eligibility before the first change (issue 32), through the real ansible-playbook against the API server double.

Each refusal names what is missing, stops the play before any node is contacted (the inventory's node is an ssh host
on a loopback port nothing listens on: a refusal shows no unreachable host), and the double's request log shows no
write: only GETs. An eligible node goes on to the enable, where the unreachable host stops it (rc 4).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from ansible_collections.gpusmith.numa_gate.tests.unit import ansible_run

if os.path.join(ansible_run.REPO, "tests", "doubles") not in sys.path:
    sys.path.insert(0, os.path.join(ansible_run.REPO, "tests", "doubles"))

from apiserver import server  # noqa: E402 pylint: disable=wrong-import-position,import-error

INVENTORY = "[gpu_canary]\ngpu-1 ansible_host=127.0.0.1 ansible_port=9 ansible_user=nobody\n"
CANARY = {"example.com/pod-managers": "canary"}
TASK = "gpusmith.numa_gate.numa_gate : Refuse a node that is not eligible"
TAIL = "; nothing was changed on any node"


@pytest.fixture(name="double")
def fixture_double():
    started = server.ApiServerDouble().start()
    try:
        yield started
    finally:
        started.stop()


def enable(double, tmp_path, *flags):
    (tmp_path / "hosts.ini").write_text(INVENTORY)
    kubeconfig = double.write_kubeconfig(tmp_path / "kubeconfig")
    argv = [os.path.join(ansible_run.BIN, "ansible-playbook"), "-i", str(tmp_path / "hosts.ini"),
            os.path.join(ansible_run.REPO, "playbooks", "enable.yml"), "-e", "ansible_python_interpreter=%s" % ansible_run.PYTHON,
            "-e", "numa_gate_hosts=gpu_canary", "-e", "numa_gate_kubeconfig=%s" % kubeconfig] + list(flags)
    done = subprocess.run(argv, cwd=str(tmp_path), env=ansible_run.environment(tmp_path, ANSIBLE_TIMEOUT="2"),
                          capture_output=True, text=True, timeout=180, check=False)
    return done, json.loads(done.stdout[done.stdout.index("{"):])


def failures(result):
    return [(task["task"]["name"], host, outcome.get("msg"))
            for play in result["plays"] for task in play["tasks"] for host, outcome in task["hosts"].items() if outcome.get("failed")]


def writes(double):
    return [(method, path) for method, path in double.requests if method != "GET"]


def refused(double, tmp_path, message, *flags):
    done, result = enable(double, tmp_path, *flags)
    assert failures(result) == [(TASK, "gpu-1", "enable.yml refuses node gpu-1 before any change: %s%s" % (message, TAIL))]
    assert done.returncode == 2
    assert result["stats"]["gpu-1"]["unreachable"] == 0
    assert writes(double) == []
    assert sorted(set(path.split("?")[0] for _method, path in double.requests)) == ["/api/v1/nodes/gpu-1", "/metrics", "/version"]


def went_on(double, tmp_path, *flags):
    done, result = enable(double, tmp_path, *flags)
    assert failures(result) == []
    assert done.returncode == 4  # the eligible node goes on to the enable, where its host is unreachable
    assert result["stats"]["gpu-1"]["unreachable"] == 1
    assert writes(double) == []


def test_an_eligible_node_goes_on_to_the_enable(double, tmp_path):
    double.add_node("gpu-1", labels=dict(CANARY, other="x"))
    went_on(double, tmp_path)


@pytest.mark.parametrize("version", ["v1.35.4", "v1.32.0-eks-1234"])
def test_a_kubelet_older_than_1_36_is_refused(double, tmp_path, version):
    double.add_node("gpu-1", labels=CANARY, kubelet_version=version)
    refused(double, tmp_path, "the kubelet is %s, older than 1.37: the pod-level resource managers (PodLevelResourceManagers, KEP-5526) "
            "are beta from 1.37 (alpha in 1.36); upgrade the kubelet first" % version)


def test_a_1_36_kubelet_is_refused_unless_the_operator_says_so(double, tmp_path):
    double.add_node("gpu-1", labels=CANARY, kubelet_version="v1.36.3")
    refused(double, tmp_path, "the kubelet is v1.36.3: the pod-level resource managers are alpha in 1.36, and with the gate on a 1.36 "
            "kubelet writes checkpoints an older kubelet cannot parse (a downgrade loses the pod-level assignments); upgrade the kubelet to "
            "1.37, or set numa_gate_allow_kubelet_1_36=true to go on with 1.36 on purpose")
    del double.requests[:]
    went_on(double, tmp_path, "-e", "numa_gate_allow_kubelet_1_36=true")


def test_a_control_plane_with_pod_level_resources_off_is_refused(double, tmp_path):
    double.add_node("gpu-1", labels=CANARY)
    double.feature_gates["PodLevelResources"] = ("BETA", False)
    refused(double, tmp_path, 'kube-apiserver reports PodLevelResources off (kubernetes_feature_enabled{name="PodLevelResources"} 0 on its '
            "/metrics, control plane v1.37.1): it drops a pod's .spec.resources on create, so no pod would carry a pod-level budget; turn "
            "the gate on for the control plane first")


@pytest.mark.parametrize("labels, has", [({"example.com/pod-managers": "general"}, '{"example.com/pod-managers": "general"}'), (None, "{}")])
def test_a_node_outside_the_pool_is_refused_unless_the_operator_names_the_pool(double, tmp_path, labels, has):
    double.add_node("gpu-1", labels=labels)
    refused(double, tmp_path, 'node gpu-1 is not in the pool: it lacks {"example.com/pod-managers": "canary"} of the pool\'s labels '
            '{"example.com/pod-managers": "canary"} (numa_gate_pool_selector; it has %s); label it, or name another pool in '
            "numa_gate_pool_selector on purpose ({} for every node)" % has)
    del double.requests[:]
    went_on(double, tmp_path, "-e", json.dumps({"numa_gate_pool_selector": {}}))


def test_an_unknown_node_is_refused(double, tmp_path):
    done, result = enable(double, tmp_path)
    assert done.returncode == 2
    [(task, host, message)] = failures(result)
    assert (task, host) == (TASK, "gpu-1")
    assert message.startswith("enable.yml refuses node gpu-1 before any change: node gpu-1 could not be read from the API (")
    assert message.endswith("): its kubelet version and labels are unknown, and unknown is never agreement" + TAIL)
    assert writes(double) == []


def test_every_refusal_is_named_at_once(double, tmp_path):
    double.add_node("gpu-1", kubelet_version="v1.35.0")
    double.feature_gates["PodLevelResources"] = ("BETA", False)
    refused(double, tmp_path, "; ".join([
        "the kubelet is v1.35.0, older than 1.37: the pod-level resource managers (PodLevelResourceManagers, KEP-5526) are beta from 1.37 "
        "(alpha in 1.36); upgrade the kubelet first",
        'kube-apiserver reports PodLevelResources off (kubernetes_feature_enabled{name="PodLevelResources"} 0 on its /metrics, control '
        "plane v1.37.1): it drops a pod's .spec.resources on create, so no pod would carry a pod-level budget; turn the gate on for the "
        "control plane first",
        'node gpu-1 is not in the pool: it lacks {"example.com/pod-managers": "canary"} of the pool\'s labels {"example.com/pod-managers": '
        '"canary"} (numa_gate_pool_selector; it has {}); label it, or name another pool in numa_gate_pool_selector on purpose ({} for '
        "every node)"]))
