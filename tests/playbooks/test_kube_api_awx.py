# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The API-facing actions connected the way AWX and kubernetes.core do it, through real ansible-playbook runs.

The API server TEST DOUBLE (tests/doubles/apiserver) serves HTTPS with a test CA and takes one bearer
token (tls.py). There is no kubeconfig anywhere: HOME is an empty folder and KUBECONFIG is unset, so
what connects is either the K8S_AUTH_* variables an AWX "Kubernetes bearer token" credential exports,
or ``module_defaults`` with the collection's action group ``group/gpusmith.numa_gate.kube_api``.
"""

from __future__ import annotations

import http.server
import json
import os
import subprocess
import sys
import threading

import pytest

from ansible_collections.gpusmith.numa_gate.tests.unit import ansible_run

REPO = ansible_run.REPO
if os.path.join(REPO, "tests", "doubles") not in sys.path:
    sys.path.insert(0, os.path.join(REPO, "tests", "doubles"))

from apiserver import server, tls  # noqa: E402 pylint: disable=wrong-import-position,import-error

TOKEN = "awx-job-token-7f3a9c"
USER = "awx-job"
CONFIGZ = {"kind": "KubeletConfiguration", "apiVersion": "kubelet.config.k8s.io/v1beta1", "cpuManagerPolicy": "static"}
METRICS = ("# HELP resource_manager_allocations_total Allocations.\n# TYPE resource_manager_allocations_total counter\n"
           "resource_manager_allocations_total{resource_name=\"cpu\",source=\"pod\"} 3\n")


class _Kubelet(http.server.BaseHTTPRequestHandler):
    """/healthz, /configz and /metrics of a kubelet, behind the double's node proxy."""

    def log_message(self, format, *args):  # pylint: disable=redefined-builtin
        """Quiet."""

    def do_GET(self):  # pylint: disable=invalid-name
        """The three endpoints the actions read."""
        body = {"/configz": json.dumps({"kubeletconfig": CONFIGZ}), "/metrics": METRICS}.get(self.path, "ok").encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture(name="pki")
def fixture_pki(tmp_path):
    return tls.Pki(tmp_path / "pki")


@pytest.fixture(name="cluster")
def fixture_cluster(pki, tmp_path):
    """The HTTPS double with node n1 (a ReplicaSet pod and a DaemonSet pod on it), its audit log, a kubelet behind the proxy."""
    kubelet = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Kubelet)
    threading.Thread(target=kubelet.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    double = server.ApiServerDouble(tls=pki, tokens={TOKEN: USER}, audit_log=str(tmp_path / "audit.log")).start()
    double.add_node("n1", kubelet_url="http://127.0.0.1:%d" % kubelet.server_address[1])
    double.add_pod("web-1", "n1", owner_kind="ReplicaSet", owner_name="web", labels={"app": "web"}, grace=0)
    double.add_pod("agent-n1", "n1", namespace="kube-system", owner_kind="DaemonSet", owner_name="agent", labels={"app": "agent"})
    try:
        yield double
    finally:
        double.stop()
        kubelet.shutdown()
        kubelet.server_close()


def playbook(tmp_path, tasks, variables=None, play_extra=""):
    """Run one play on localhost with only ``variables`` (plus Ansible's own settings) in the environment: (rc, results, stdout)."""
    env = ansible_run.environment_without_api_settings(tmp_path)
    env.update(variables or {})
    path = tmp_path / "play.yml"
    path.write_text("- name: API through %s\n  hosts: localhost\n  gather_facts: false\n%s  tasks:\n%s" % (
        "AWX" if variables else "module_defaults", play_extra, tasks), encoding="utf-8")
    done = subprocess.run([os.path.join(ansible_run.BIN, "ansible-playbook"), "-i", "localhost,", "-c", "local", str(path)],
                          cwd=str(tmp_path), env=env, capture_output=True, text=True, timeout=300, check=False)
    start = 0 if done.stdout.startswith("{") else done.stdout.index("\n{") + 1  # progress lines come before the JSON
    document = json.loads(done.stdout[start:])
    results = [task["hosts"]["localhost"] for task in document["plays"][0]["tasks"]]
    home = tmp_path / "home"
    assert os.listdir(home) in ([], [".ansible"])  # nothing but Ansible's own folder: no kubeconfig was ever there
    assert not os.path.exists(home / ".kube")
    return done.returncode, results, done.stdout + done.stderr


def audit(tmp_path):
    with open(tmp_path / "audit.log", encoding="utf-8") as stream:
        return [json.loads(line) for line in stream]


def writes(tmp_path):
    return [(e["method"], e["requestURI"], (e.get("user") or {}).get("username")) for e in audit(tmp_path) if e["method"] != "GET"]


def strip(result):
    return {k: v for k, v in result.items() if k not in ("waited_s", "_ansible_no_log")}


DRAIN_TASKS = """    - name: Cordon
      gpusmith.numa_gate.kube_node: {node: n1, state: cordoned}
    - name: Drain
      gpusmith.numa_gate.kube_node: {node: n1, state: drained, timeout: 30, poll: 1}
    - name: Uncordon
      gpusmith.numa_gate.kube_node: {node: n1, state: uncordoned}
"""


def test_awx_bearer_token_variables_alone_cordon_drain_and_uncordon(cluster, pki, tmp_path):
    awx = {"K8S_AUTH_HOST": cluster.url, "K8S_AUTH_API_KEY": TOKEN, "K8S_AUTH_SSL_CA_CERT": pki.ca_cert}
    rc, results, output = playbook(tmp_path, DRAIN_TASKS, awx)
    assert rc == 0, output
    assert [strip(r) for r in results] == [
        {"action": "gpusmith.numa_gate.kube_node", "changed": True, "node": "n1", "state": "cordoned", "was_unschedulable": False,
         "cordoned": True},
        {"action": "gpusmith.numa_gate.kube_node", "changed": True, "node": "n1", "state": "drained", "was_unschedulable": True,
         "cordoned": False, "evicted": ["default/web-1"], "skipped_pods": [{"pod": "kube-system/agent-n1", "reason": "DaemonSet-managed"}],
         "pod_warnings": []},
        {"action": "gpusmith.numa_gate.kube_node", "changed": True, "node": "n1", "state": "uncordoned", "was_unschedulable": True,
         "uncordoned": True}]
    assert cluster.node("n1")["spec"] == {}
    assert cluster.pod_names("n1") == ["kube-system/agent-n1"]
    assert writes(tmp_path) == [("PATCH", "/api/v1/nodes/n1", USER),
                                ("POST", "/api/v1/namespaces/default/pods/web-1/eviction", USER),
                                ("PATCH", "/api/v1/nodes/n1", USER)]
    assert {(e.get("user") or {}).get("username") for e in audit(tmp_path)} == {USER}
    assert TOKEN not in output
    assert TOKEN not in (tmp_path / "audit.log").read_text(encoding="utf-8")


def test_module_defaults_with_the_action_group_set_the_connection_once(cluster, pki, tmp_path):
    defaults = ("  module_defaults:\n    group/gpusmith.numa_gate.kube_api:\n      host: %s\n      api_key: %s\n      ca_cert: %s\n"
                % (cluster.url, TOKEN, pki.ca_cert))
    tasks = """    - name: Cordon
      gpusmith.numa_gate.kube_node: {node: n1, state: cordoned}
    - name: Scrape the kubelet's metrics
      gpusmith.numa_gate.kubelet_metrics_info: {node: n1}
    - name: Verify the kubelet
      gpusmith.numa_gate.kubelet_verify: {node: n1, stable_s: 0, timeout: 10, poll: 1, expect: {cpuManagerPolicy: static}}
    - name: A task's own value wins over the default
      gpusmith.numa_gate.kube_node: {node: n1, state: uncordoned, api_key: not-the-token}
      ignore_errors: true
    - name: Uncordon
      gpusmith.numa_gate.kube_node: {node: n1, state: uncordoned}
"""
    rc, results, output = playbook(tmp_path, tasks, play_extra=defaults)
    assert rc == 0, output
    assert strip(results[0])["cordoned"] is True
    assert results[1]["scrape"]["samples"] == [{"name": "resource_manager_allocations_total", "labels": {"resource_name": "cpu", "source": "pod"},
                                                "value": 3.0, "type": "counter"}]
    assert (results[2].get("failed", False), results[2]["mismatches"], results[2]["healthz"]) == (False, [], "ok")
    refused = "GET %s/api/v1/nodes/n1: HTTP 401 Unauthorized: the API server did not accept the bearer token in api_key" % cluster.url
    assert (results[3]["failed"], results[3]["msg"]) == (True, refused)
    assert (results[4]["changed"], results[4]["uncordoned"]) == (True, True)
    assert cluster.node("n1")["spec"] == {}
    assert writes(tmp_path) == [("PATCH", "/api/v1/nodes/n1", USER), ("PATCH", "/api/v1/nodes/n1", USER)]
    users = [(e["requestURI"], (e.get("user") or {}).get("username")) for e in audit(tmp_path)]
    assert ("/api/v1/nodes/n1/proxy/metrics", USER) in users and ("/api/v1/nodes/n1/proxy/configz", USER) in users
    assert [u for u in users if u[1] is None] == [("/api/v1/nodes/n1", None)]  # the refused task's one request
    assert TOKEN not in output


def test_a_wrong_token_and_a_wrong_ca_fail_naming_what_was_refused(cluster, pki, tmp_path):
    other = tls.Pki(tmp_path / "other", name="other-ca")
    tasks = """    - name: The variables' token is not the cluster's
      gpusmith.numa_gate.kube_node: {node: n1, state: cordoned}
      ignore_errors: true
    - name: The right token, a CA that did not sign the server's certificate
      gpusmith.numa_gate.kube_node: {node: n1, state: cordoned, api_key: %s, ca_cert: %s}
      ignore_errors: true
    - name: A host that is not a URL
      gpusmith.numa_gate.kube_node: {node: n1, state: cordoned, host: "127.0.0.1:6443"}
      ignore_errors: true
    - name: A client certificate without its key
      gpusmith.numa_gate.kube_node: {node: n1, state: cordoned, client_cert: %s}
      ignore_errors: true
""" % (TOKEN, other.ca_cert, pki.ca_cert)
    awx = {"K8S_AUTH_HOST": cluster.url, "K8S_AUTH_API_KEY": "not-the-token-1234", "K8S_AUTH_SSL_CA_CERT": pki.ca_cert, "K8S_AUTH_VERIFY_SSL": "True"}
    rc, results, output = playbook(tmp_path, tasks, awx)
    assert rc == 0, output
    assert [r["failed"] for r in results] == [True, True, True, True]
    assert results[0]["msg"] == ("GET %s/api/v1/nodes/n1: HTTP 401 Unauthorized: the API server did not accept the bearer token in "
                                 "api_key (from K8S_AUTH_API_KEY)" % cluster.url)
    assert results[1]["msg"] == (
        "cannot reach the API server at %s (GET /api/v1/nodes/n1): its TLS certificate was not accepted: [SSL: CERTIFICATE_VERIFY_FAILED] "
        "certificate verify failed: unable to get local issuer certificate (_ssl.c:1006); nothing was sent (the CA that signed it is "
        "ca_cert, K8S_AUTH_SSL_CA_CERT, or the kubeconfig's certificate-authority)" % cluster.url)
    assert results[2]["msg"] == ("host '127.0.0.1:6443' is not the API server's URL: http:// or https://<host>[:<port>][/<path>], "
                                 "without a query or fragment")
    assert results[3]["msg"] == ("client_cert is set but client_key is not: a client certificate and its key go together "
                                 "(client_key or K8S_AUTH_CLIENT_KEY or K8S_AUTH_KEY_FILE)")
    assert cluster.node("n1")["spec"] == {}
    assert writes(tmp_path) == []
    assert [e["requestURI"] for e in audit(tmp_path)] == ["/api/v1/nodes/n1"]  # the wrong CA's request never got past the handshake
    assert "not-the-token-1234" not in output and TOKEN not in output
