"""The service_window action's body: a scrape (trimmed), the window against an earlier scrape, and its refusals."""

import io

import pytest

from ansible_collections.gpusmith.numa_gate.plugins.action import service_window as action
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence import nodefs

TEXT = ('# HELP vllm:request_success_total done\n# TYPE vllm:request_success_total counter\n'
        'vllm:request_success_total{finished_reason="stop"} %d\n# TYPE process_cpu_seconds_total counter\nprocess_cpu_seconds_total 5\n')


def args(**changes):
    value = {key: spec.get("default") for key, spec in action.ARGUMENT_SPEC.items()}
    value.update(changes)
    return value


def opener_for(count):
    def opener(request, timeout):
        assert request.full_url == "http://svc:8000/metrics" and timeout == 10.0
        return io.BytesIO((TEXT % count).encode())
    return opener


def test_scrape_then_window():
    first = action.read_window(args(metrics_url="http://svc:8000/metrics"), clock=lambda: 100.0, opener=opener_for(3))
    assert first == {"changed": False, "scrape": {"url": "http://svc:8000/metrics", "timestamp": 100.0, "text": (
        '# HELP vllm:request_success_total done\n# TYPE vllm:request_success_total counter\nvllm:request_success_total{finished_reason="stop"} 3\n')}}
    second = action.read_window(args(metrics_url="http://svc:8000/metrics", previous=first["scrape"]), clock=lambda: 160.0, opener=opener_for(9))
    assert second["window"]["duration"] == 60.0
    assert second["window"]["metrics"]["requests"]["total"] == 6.0


@pytest.mark.parametrize("given, message", [
    ({}, "service_window needs exactly one of metrics_url (a scrape of the service) and prometheus_url (a query)"),
    ({"metrics_url": "http://a", "prometheus_url": "http://b"}, "service_window needs exactly one of metrics_url"),
    ({"prometheus_url": "http://b", "start": 1.0}, "service_window with prometheus_url needs start and end (seconds since the epoch)"),
])
def test_refusals(given, message):
    with pytest.raises(nodefs.EvidenceError) as caught:
        action.read_window(args(**given))
    assert str(caught.value).startswith(message)


def test_a_too_large_scrape_is_refused():
    with pytest.raises(nodefs.EvidenceError) as caught:
        action.read_window(args(metrics_url="http://svc:8000/metrics", max_bytes=10), opener=lambda request, timeout: io.BytesIO(b"x" * 11))
    assert str(caught.value) == "the service's metrics at http://svc:8000/metrics is larger than 10 bytes"
