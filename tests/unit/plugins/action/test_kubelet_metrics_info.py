"""The kubelet_metrics_info action through the real kubernetes client, against the API server TEST DOUBLE
(tests/doubles/apiserver) whose node proxy forwards to a small kubelet /metrics endpoint served here."""

import http.server
import threading

import pytest

from ansible_collections.gpusmith.numa_gate.plugins.action import kubelet_metrics_info
from ansible_collections.gpusmith.numa_gate.tests.unit.plugins.action import in_process

TEXT = {"body": ""}


def metrics_text(pod, errors):
    return ("# HELP resource_manager_allocations_total Allocations.\n# TYPE resource_manager_allocations_total counter\n"
            "resource_manager_allocations_total{resource_name=\"cpu\",source=\"pod\"} %d\n"
            "# HELP resource_manager_allocation_errors_total Errors.\n# TYPE resource_manager_allocation_errors_total counter\n"
            "resource_manager_allocation_errors_total{resource_name=\"cpu\",source=\"pod\"} %d\n"
            "# HELP kubelet_http_requests_total Other.\n# TYPE kubelet_http_requests_total counter\nkubelet_http_requests_total 9\n" % (pod, errors))


class _Kubelet(http.server.BaseHTTPRequestHandler):
    def do_GET(self):  # pylint: disable=invalid-name
        body = TEXT["body"].encode() if self.path == "/metrics" else b"404"
        self.send_response(200 if self.path == "/metrics" else 404)
        self.send_header("Content-Type", "text/plain; version=0.0.4")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.fixture
def cluster(tmp_path):
    kubelet = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Kubelet)
    threading.Thread(target=kubelet.serve_forever, daemon=True).start()
    try:
        with in_process.api_double() as api:
            api.add_node("gpu-1", kubelet_url="http://127.0.0.1:%d" % kubelet.server_address[1])
            kubeconfig = str(tmp_path / "kubeconfig")
            api.write_kubeconfig(kubeconfig)
            yield kubeconfig
    finally:
        kubelet.shutdown()
        kubelet.server_close()


def run(args):
    return in_process.run(kubelet_metrics_info, args)


def test_two_scrapes_with_a_reset_between(cluster):
    TEXT["body"] = metrics_text(40, 1)
    first = run({"node": "gpu-1", "kubeconfig": cluster})
    assert first.get("failed") is not True, first
    assert [s["name"] for s in first["scrape"]["samples"]] == ["resource_manager_allocations_total", "resource_manager_allocation_errors_total"]
    TEXT["body"] = metrics_text(4, 1)
    previous = dict(first["scrape"], timestamp=first["scrape"]["timestamp"])
    second = run({"node": "gpu-1", "kubeconfig": cluster, "previous": previous})
    allocations, errors = second["rates"]
    assert (allocations["first"], allocations["second"], allocations["reset"], allocations["increase"]) == (40.0, 4.0, True, 4.0)
    assert (errors["reset"], errors["increase"], errors["rate_per_second"]) == (False, 0.0, 0.0)


def test_unknown_node_is_a_failed_result_not_a_traceback(cluster):
    result = run({"node": "nope", "kubeconfig": cluster})
    assert result["failed"] is True
    assert result["msg"] == "nodes \"nope\" not found"
