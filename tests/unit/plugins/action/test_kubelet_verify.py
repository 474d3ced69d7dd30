# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The kubelet_verify action plugin in-process (through the real ``ansible``: tests/playbooks/test_kubelet_verify_adhoc.py)."""

from __future__ import annotations

import http.server
import json
import os
import re
import subprocess
import threading

import pytest

from ansible_collections.gpusmith.numa_gate.tests.unit import ansible_run
from ansible_collections.gpusmith.numa_gate.tests.unit.plugins.action import in_process
from ansible_collections.gpusmith.numa_gate.plugins.action import kubelet_verify as action_file
from ansible_collections.gpusmith.numa_gate.plugins.modules import kubelet_verify as module_file


CONFIGZ = {"kind": "KubeletConfiguration", "apiVersion": "kubelet.config.k8s.io/v1beta1", "cpuManagerPolicy": "static",
           "topologyManagerPolicy": "single-numa-node", "reservedMemory": [{"numaNode": 0, "limits": {"memory": "1024Mi"}}],
           "staticPodURL": "https://pods.example/list?token=s3cr3t-token-value",
           "staticPodURLHeader": {"Authorization": ["Bearer abcdefghijklmnop"]}}


class _Kubelet(http.server.BaseHTTPRequestHandler):
    def log_message(self, format, *args):  # pylint: disable=redefined-builtin
        """Quiet."""

    def do_GET(self):  # pylint: disable=invalid-name
        """/configz and /healthz."""
        body = json.dumps({"kubeletconfig": CONFIGZ}).encode() if self.path == "/configz" else b"ok"
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture(name="double")
def fixture_double():
    kubelet = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Kubelet)
    threading.Thread(target=kubelet.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    try:
        with in_process.api_double() as started:
            started.add_node("n1", kubelet_url="http://127.0.0.1:%d" % kubelet.server_address[1])
            yield started
    finally:
        kubelet.shutdown()
        kubelet.server_close()


@pytest.fixture(name="kubeconfig")
def fixture_kubeconfig(double, tmp_path):
    return double.write_kubeconfig(tmp_path / "kubeconfig")


def run_in_process(args, check_mode=False):
    return in_process.run(action_file, args, check_mode)


def test_mismatches_are_a_failed_result_with_credentials_masked(kubeconfig):
    expect = {"cpuManagerPolicy": "none", "topologyManagerPolicy": "single-numa-node",
              "staticPodURLHeader": {"Authorization": ["Bearer other-token-0123"]}}
    result = run_in_process({"kubeconfig": kubeconfig, "node": "n1", "expect": expect, "stable_s": 0, "poll": 0.1}, check_mode=True)
    assert result["failed"] is True
    assert result["changed"] is False
    assert result["msg"] == (
        'verify n1: Ready and healthy, but the kubelet runs with other settings than expected: cpuManagerPolicy: expected "none", '
        '/configz shows "static"; staticPodURLHeader: expected {"Authorization": ["********"]}, /configz shows {"Authorization": ["********"]}')
    assert result["mismatches"] == [
        {"field": "cpuManagerPolicy", "expected": "none", "actual": "static"},
        {"field": "staticPodURLHeader", "expected": {"Authorization": ["********"]}, "actual": {"Authorization": ["********"]}}]
    assert "abcdefghijklmnop" not in json.dumps(result)
    assert "other-token-0123" not in json.dumps(result)


def test_a_node_not_ready_is_a_failed_result_naming_its_state(double, kubeconfig):
    double.set_node_ready("n1", "Unknown")
    since = double.node("n1")["status"]["conditions"][0]["lastTransitionTime"]
    result = run_in_process({"kubeconfig": kubeconfig, "node": "n1", "timeout": 0, "stable_s": 5})
    assert result["failed"] is True
    assert result["msg"] == ("verify n1: not Ready and healthy for 5s in a row within 0s; last seen: Ready=Unknown (NodeStatusUnknown: "
                             "Kubelet stopped posting node status.) since %s, healthz ok" % since)
    assert (result["ready"], result["node_state"]["status"]) == (False, "Unknown")


def test_with_stayed_waited_s_is_the_whole_wait_not_the_pods_check_alone(kubeconfig):
    result = run_in_process({"kubeconfig": kubeconfig, "node": "n1", "expect": {"cpuManagerPolicy": "static"}, "stable_s": 1, "poll": 0.2,
                             "stayed": {"extended_resources": {}, "failed_before": [], "gpu_pods": []}})
    assert result.get("failed") is not True, result
    assert (result["rejected_pods"], result["lost_resources"]) == ([], [])
    # The stable window alone is 1 s; the pods' check, with nothing to wait for, adds about nothing to it.
    assert 1.0 <= result["waited_s"] < 5


def test_bad_values_are_failed_results(kubeconfig):
    result = run_in_process({"kubeconfig": kubeconfig, "node": "n1", "poll": 0})
    assert result["msg"] == "timeout and stable_s must be 0 or more seconds and poll more than 0, not 180, 20 and 0.0"


def test_the_module_file_documents_the_action_and_refuses_to_run_on_a_host(tmp_path):
    assert module_file.ARGUMENT_SPEC == action_file.ARGUMENT_SPEC
    args = tmp_path / "args.json"
    args.write_text(json.dumps({"ANSIBLE_MODULE_ARGS": {"node": "n1"}}))
    # As AnsiballZ would, the module file finds the collection's module_utils (connection_spec) on its path.
    env = dict(os.environ, PYTHONPATH=ansible_run.COLLECTIONS)
    done = subprocess.run([ansible_run.PYTHON, module_file.__file__, str(args)], capture_output=True, text=True, timeout=60, check=False, env=env)
    assert json.loads(done.stdout)["msg"] == ("gpusmith.numa_gate.kubelet_verify runs as an action plugin on the controller; "
                                              "this module file only holds its documentation")


DROPIN = "/etc/kubernetes/kubelet.conf.d/50-numa-gate.conf"
CONFIG_DIR = "/etc/kubernetes/kubelet.conf.d"
KEPT = {"intact": True, "problems": [], "open_transition": None, "drift": [],
        "manifest": {"facts": {"flags": {"config": "/var/lib/kubelet/config.yaml", "config_dir": CONFIG_DIR}, "flags_source": "process"}}}
CLEAN = {"would_refuse": False, "refusals": {"cpu": None, "memory": None}}


def deciding(kubeconfig, render, expect, allow_disruption=True):
    """kubelet_verify with decide, in process."""
    decide = {"target": "enable", "render": render, "checkpoints": CLEAN, "baseline": KEPT, "host": "gpu-7",
              "allow_disruption": allow_disruption, "config_dir": CONFIG_DIR, "mode": "dropin"}
    return run_in_process({"kubeconfig": kubeconfig, "node": "n1", "expect": expect, "timeout": 0, "stable_s": 0, "poll": 0.1, "decide": decide})


def test_with_decide_files_that_differ_decide_without_asking_the_api(kubeconfig, tmp_path):
    # A kubeconfig naming a server nobody listens on: any request would be a failed decision, not this one.
    dead = tmp_path / "dead-kubeconfig"
    dead.write_text(re.sub(r"127\.0\.0\.1:\d+", "127.0.0.1:1", open(kubeconfig, encoding="utf-8").read()))
    result = run_in_process({"kubeconfig": str(dead), "node": "n1", "expect": {"cpuManagerPolicy": "static"},
                             "decide": {"target": "enable", "render": {"changed": True, "path": DROPIN}, "checkpoints": CLEAN, "baseline": KEPT,
                                        "host": "gpu-7", "allow_disruption": True, "config_dir": CONFIG_DIR}})
    assert result == {"changed": False, "node": "n1", "asked_api": False, "decision": {
        "converged": False, "target_in_place": False, "ask_api": False, "reasons": ["the configuration differs (%s)" % DROPIN], "notes": [],
        "refusal": None}}


def test_with_decide_a_node_at_its_target_is_converged_after_the_api_says_so(kubeconfig):
    result = deciding(kubeconfig, {"changed": False, "path": DROPIN}, {"cpuManagerPolicy": "static"})
    assert (result["changed"], result["asked_api"], result.get("failed")) == (False, True, None)
    assert result["decision"] == {"converged": True, "target_in_place": True, "ask_api": True, "reasons": [], "notes": [], "refusal": None}
    assert (result["now"]["ready"], result["now"]["mismatches"]) == (True, [])
    assert result["now"]["configz"]["staticPodURLHeader"] == {"Authorization": ["********"]}


def test_with_decide_a_mismatch_is_a_reason_and_a_node_not_ready_at_its_target_is_left_alone(double, kubeconfig):
    result = deciding(kubeconfig, {"changed": False, "path": DROPIN}, {"cpuManagerPolicy": "none"})
    assert result.get("failed") is None and result["now"]["failed"] is True
    assert result["decision"] == {"converged": False, "target_in_place": True, "ask_api": True, "reasons": [
        '/configz does not show the target (cpuManagerPolicy: expected "none", /configz shows "static")'], "notes": [], "refusal": None}
    # Files at the target: NotReady is not the transition's doing, and a restart would not change the files (issue 31, defect 2).
    double.set_node_ready("n1", "Unknown")
    result = deciding(kubeconfig, {"changed": False, "path": DROPIN}, {}, allow_disruption=False)
    assert result.get("failed") is None
    assert result["now"]["node_state"]["status"] == "Unknown"
    assert result["decision"] == {"converged": True, "target_in_place": True, "ask_api": True, "reasons": [], "refusal": None, "notes": [
        "the node is not Ready (%s), for a reason the transition did not cause: its files are at the target, so it is left alone (no "
        "cordon, no drain, no kubelet restart)" % result["now"]["msg"]]}


def test_with_decide_an_api_that_cannot_be_reached_decides_nothing(kubeconfig, tmp_path):
    dead = tmp_path / "dead-kubeconfig"
    dead.write_text(re.sub(r"127\.0\.0\.1:\d+", "127.0.0.1:1", open(kubeconfig, encoding="utf-8").read()))
    result = deciding(str(dead), {"changed": False, "path": DROPIN}, {})
    assert result.get("failed") is None and result["asked_api"] is True
    error = result["now"]["msg"]
    assert error.startswith("cannot reach the API server at http://127.0.0.1:1 (GET /api/v1/nodes/n1): ")
    assert result["decision"] == {"converged": False, "target_in_place": True, "ask_api": True, "notes": [],
                                  "reasons": ["the API could not be read (%s)" % error],
                                  "refusal": "gpu-7: cannot decide whether the node is at its enable target: its files are, but the API gave no "
                                             "answer about the node (%s); nothing was changed" % error}


def test_with_decide_input_the_decision_refuses_fails_the_task(kubeconfig):
    result = run_in_process({"kubeconfig": kubeconfig, "node": "n1",
                             "decide": {"target": "enable", "render": {"changed": "yes"}, "checkpoints": CLEAN, "baseline": KEPT}})
    assert (result["failed"], result["msg"], result["asked_api"]) == (True, "render.changed must be true or false, not 'yes'", False)
