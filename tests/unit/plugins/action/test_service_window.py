"""The service_window action's body: a scrape (trimmed), the window against an earlier scrape, and its refusals (real servers on 127.0.0.1)."""

import time

import pytest

from ansible_collections.gpusmith.numa_gate.plugins.action import service_window as action
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._service_comparison.errors import ServiceComparisonError
from ansible_collections.gpusmith.numa_gate.tests.unit.plugins.module_utils._service_comparison import http_servers

TEXT = ('# HELP vllm:request_success_total done\n# TYPE vllm:request_success_total counter\n'
        'vllm:request_success_total{finished_reason="stop"} %d\n# TYPE process_cpu_seconds_total counter\nprocess_cpu_seconds_total 5\n')
PROXY_VARIABLES = ("http_proxy", "https_proxy", "all_proxy", "no_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY")


@pytest.fixture(name="serve")
def fixture_serve(monkeypatch):
    """``serve(behaviour)``: a started http_servers.Served, stopped after the test; no proxy from the environment."""
    for variable in PROXY_VARIABLES:
        monkeypatch.delenv(variable, raising=False)
    started = []

    def serve(behaviour, interval=2.0):
        server = http_servers.Served(behaviour, interval)
        started.append(server)
        return server

    yield serve
    for server in started:
        server.stop()


def args(**changes):
    value = {key: spec.get("default") for key, spec in action.ARGUMENT_SPEC.items()}
    value.update(changes)
    return value


def test_scrape_then_window(serve):
    counts = iter([3, 9])
    server = serve(http_servers.metrics(lambda: TEXT % next(counts)))
    url = server.url + "/metrics"
    first = action.read_window(args(metrics_url=url), clock=lambda: 100.0)
    assert first == {"changed": False, "scrape": {"url": url, "timestamp": 100.0, "text": (
        '# HELP vllm:request_success_total done\n# TYPE vllm:request_success_total counter\nvllm:request_success_total{finished_reason="stop"} 3\n')}}
    second = action.read_window(args(metrics_url=url, previous=first["scrape"]), clock=lambda: 160.0)
    assert second["window"]["duration"] == 60.0
    assert second["window"]["metrics"]["requests"]["total"] == 6.0
    assert [path for path, unused_headers in server.seen] == ["/metrics", "/metrics"]


def test_a_scrapes_url_is_returned_masked(serve):
    server = serve(http_servers.metrics(TEXT % 1))
    result = action.read_window(args(metrics_url=server.url.replace("http://", "http://reader:s3cret-pass@") + "/metrics"), clock=lambda: 1.0)
    assert result["scrape"]["url"] == server.url.replace("http://", "http://********@") + "/metrics"


def test_a_window_from_prometheus(serve):
    server = serve(http_servers.prometheus({"increase(vllm:request_success_total[60000ms])": [
        {"metric": {"finished_reason": "stop"}, "value": [160.0, "6"]}]}))
    result = action.read_window(args(prometheus_url=server.url, start=100.0, end=160.0))
    assert result["changed"] is False
    assert result["window"]["metrics"]["requests"] == {"name": "vllm:request_success_total", "type": "counter", "total": 6.0, "series": 1,
                                                       "reset": False, "created_restart": False,
                                                       "by": [{"labels": {"finished_reason": "stop"}, "increase": 6.0}]}


EXACTLY_ONE = ("service_window needs exactly one of metrics_url (a scrape of the service), prometheus_url (a query) and pods "
               "(the workload's pods through the API's pod proxy)")


@pytest.mark.parametrize("given, message", [
    ({}, EXACTLY_ONE),
    ({"metrics_url": "http://a", "prometheus_url": "http://b"}, EXACTLY_ONE),
    ({"metrics_url": "http://a", "pods": [{"pod": "serving/server-0", "uid": "u"}], "metrics_port": 8000}, EXACTLY_ONE),
    ({"pods": [{"pod": "serving/server-0", "uid": "u"}]}, "metrics_port None is not a TCP port (an integer from 1 to 65535)"),
    ({"prometheus_url": "http://b", "start": 1.0}, "service_window with prometheus_url needs start and end (seconds since the epoch)"),
])
def test_refusals(given, message):
    with pytest.raises(ServiceComparisonError) as caught:
        action.read_window(args(**given))
    assert str(caught.value) == message


def test_a_too_large_scrape_is_refused(serve):
    server = serve(http_servers.body(b"x" * 11))
    with pytest.raises(ServiceComparisonError) as caught:
        action.read_window(args(metrics_url=server.url + "/metrics", max_bytes=10))
    assert str(caught.value) == "the service's metrics at %s/metrics is larger than 10 bytes" % server.url


def test_the_timeout_is_one_deadline_for_the_whole_read(serve):
    server = serve(http_servers.trickle, interval=0.6)
    started = time.monotonic()
    with pytest.raises(ServiceComparisonError) as caught:
        action.read_window(args(metrics_url=server.url + "/metrics", timeout=2.0))
    took = time.monotonic() - started
    assert str(caught.value) == ("the service's metrics at %s/metrics: no whole answer within the 2s deadline (HTTP 200, 3 bytes of the body received)"
                                 % server.url)
    assert 1.9 <= took <= 3.0
