# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Fixtures for the API client's and the transition's tests (_kube_api, _transition): the API server double, a client for it, a fake kubelet, a fake clock.

The double's modules import each other as the top-level package ``apiserver`` (tests/doubles on
sys.path, as its own tests run), so that folder is put on sys.path here.
"""

import http.server
import json
import os
import sys
import threading

import pytest

DOUBLES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "doubles")
if os.path.abspath(DOUBLES) not in sys.path:
    sys.path.insert(0, os.path.abspath(DOUBLES))

from apiserver import server  # noqa: E402 pylint: disable=wrong-import-position,import-error

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kube_api import api as kube_api  # noqa: E402


@pytest.fixture(name="double")
def fixture_double():
    """A running API server double."""
    started = server.ApiServerDouble().start()
    try:
        yield started
    finally:
        started.stop()


@pytest.fixture(name="kube")
def fixture_kube(double, tmp_path):
    """An api.Api connected to the double through a real kubeconfig file."""
    return kube_api.connect(double.write_kubeconfig(tmp_path / "kubeconfig"))


class FakeClock:
    """``clock()`` returns the fake time; ``sleep(s)`` advances it and runs the hooks queued for that sleep."""

    def __init__(self):
        self.now = 1000.0
        self.sleeps = []
        self.hooks = []

    def __call__(self):
        return self.now

    def sleep(self, seconds):
        """Advance the fake time; run the next queued hook (if any)."""
        self.sleeps.append(seconds)
        self.now += seconds
        if self.hooks:
            self.hooks.pop(0)()


@pytest.fixture(name="clock")
def fixture_clock():
    """A FakeClock."""
    return FakeClock()


class _KubeletHandler(http.server.BaseHTTPRequestHandler):
    def log_message(self, format, *args):  # pylint: disable=redefined-builtin
        """Quiet."""

    def do_GET(self):  # pylint: disable=invalid-name
        """/configz and /healthz from the server's state; /healthz answers the queued codes first."""
        state = self.server.state
        state["seen"].append(self.path)
        if self.path == "/configz":
            self._answer(200, "application/json", json.dumps({"kubeletconfig": state["configz"]}).encode())
        elif self.path == "/healthz":
            code = state["healthz"].pop(0) if state["healthz"] else 200
            self._answer(code, "text/plain; charset=utf-8", b"ok" if code == 200 else b"[-]syncloop failed\nhealthz check failed")
        else:
            self._answer(404, "text/plain; charset=utf-8", b"404 page not found\n")

    def _answer(self, code, content_type, body):
        self.send_response(code)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture(name="kubelet")
def fixture_kubelet():
    """A fake kubelet: ``.state["configz"]`` (the kubeletconfig dict), ``.state["healthz"]`` (codes to answer next), ``.url``."""
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _KubeletHandler)
    httpd.state = {"configz": {}, "healthz": [], "seen": []}
    httpd.url = "http://127.0.0.1:%d" % httpd.server_address[1]
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield httpd
    finally:
        httpd.shutdown()
        httpd.server_close()
