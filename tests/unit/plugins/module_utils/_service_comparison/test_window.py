"""Service windows: two scrapes of /metrics (per-series deltas, resets, summaries) and a Prometheus server's HTTP API.

The reads run against real HTTP servers on 127.0.0.1 (http_servers.py): a Prometheus-like
``/api/v1/query`` answering from a table, a ``/metrics`` body, a server that trickles a byte every
2 s, one that never answers, one whose body is over the bound; each read is timed and must end
within its deadline plus a second, with the exact message.
"""

import base64
import socket
import time
import urllib.parse

import pytest

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._service_comparison.errors import ServiceComparisonError
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._service_comparison import query as service_query, window as service_window
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kube_api import transport
from ansible_collections.gpusmith.numa_gate.tests.unit import tree_state
from ansible_collections.gpusmith.numa_gate.tests.unit.plugins.module_utils._service_comparison import http_servers

DEADLINE = 3
SLACK = 1.0
PROXY_VARIABLES = ("http_proxy", "https_proxy", "all_proxy", "no_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY")

HEAD = "# TYPE vllm:time_to_first_token_seconds histogram\n"


def histogram(series, name="vllm:time_to_first_token_seconds"):
    """Exposition text: series = {pod label: (bucket counts for le 0.1, 0.5, +Inf, sum)}."""
    lines = ["# TYPE %s histogram" % name]
    for pod, (b1, b2, inf, total) in series.items():
        for le, value in (("0.1", b1), ("0.5", b2), ("+Inf", inf)):
            lines.append('%s_bucket{le="%s",pod="%s"} %s' % (name, le, pod, value))
        lines.append('%s_count{pod="%s"} %s' % (name, pod, inf))
        lines.append('%s_sum{pod="%s"} %s' % (name, pod, total))
    return "\n".join(lines) + "\n"


COUNTER = ('# TYPE vllm:request_success_total counter\nvllm:request_success_total{finished_reason="stop"} %s\n'
           'vllm:request_success_total{finished_reason="error"} %s\n')


def window(first, second, **kwargs):
    return service_window.scrape_window({"text": first, "timestamp": 100.0}, {"text": second, "timestamp": 160.0}, **kwargs)


def test_deltas_per_series_then_summed():
    result = window(histogram({"a": (1, 4, 5, 2.0), "b": (0, 2, 2, 0.5)}) + COUNTER % (10, 1),
                    histogram({"a": (3, 9, 11, 5.0), "b": (1, 3, 4, 1.5)}) + COUNTER % (16, 2))
    assert result["duration"] == 60.0 and result["source"] == "scrape"
    assert result["metrics"]["ttft"] == {"name": "vllm:time_to_first_token_seconds", "type": "histogram",
                                         "buckets": [["0.1", 3.0], ["0.5", 6.0], ["+Inf", 8.0]], "count": 8.0, "sum": 4.0,
                                         "rates": [["0.1", 2.0 * (1.0 / 60.0) + 1.0 * (1.0 / 60.0)], ["0.5", 5.0 * (1.0 / 60.0) + 1.0 * (1.0 / 60.0)],
                                                   ["+Inf", 6.0 * (1.0 / 60.0) + 2.0 * (1.0 / 60.0)]],
                                         "series": 2, "reset": False, "created_restart": False}
    assert result["metrics"]["requests"] == {"name": "vllm:request_success_total", "type": "counter", "total": 7.0, "series": 2, "reset": False,
                                             "created_restart": False,
                                             "by": [{"labels": {"finished_reason": "error"}, "increase": 1.0},
                                                    {"labels": {"finished_reason": "stop"}, "increase": 6.0}]}
    assert result["metrics"]["itl"] == {"name": "vllm:inter_token_latency_seconds", "type": None}


def test_a_series_that_went_down_is_a_reset_counted_from_zero():
    # pod a restarted: le=0.1 and the count fell and count from zero; its le=0.5 bucket rose (2 -> 3) and counts 1, as
    # Prometheus' rate() decides each bucket series alone.
    result = window(histogram({"a": (2, 2, 9, 3.0), "b": (0, 2, 2, 0.5)}) + COUNTER % (10, 1),
                    histogram({"a": (1, 3, 4, 1.0), "b": (1, 3, 4, 1.5)}) + COUNTER % (4, 1))
    ttft = result["metrics"]["ttft"]
    assert ttft["reset"] is True
    assert ttft["buckets"] == [["0.1", 2.0], ["0.5", 2.0], ["+Inf", 6.0]]
    assert ttft["count"] == 6.0 and ttft["sum"] == 2.0
    assert result["metrics"]["requests"]["total"] == 4.0 and result["metrics"]["requests"]["reset"] is True


def test_a_new_series_counts_from_zero_and_match_selects_series():
    result = window(histogram({"a": (1, 1, 1, 0.1)}), histogram({"a": (2, 2, 2, 0.2), "b": (1, 1, 1, 0.05)}), match={"pod": "b"})
    assert result["metrics"]["ttft"]["buckets"] == [["0.1", 1.0], ["0.5", 1.0], ["+Inf", 1.0]]
    assert result["metrics"]["ttft"]["series"] == 1


def test_a_list_of_match_values_selects_the_series_carrying_any_of_them():
    first = histogram({"a": (1, 1, 1, 0.1), "b": (1, 1, 1, 0.1), "a.b": (5, 5, 5, 1.0)})
    second = histogram({"a": (2, 2, 2, 0.2), "b": (1, 2, 3, 0.6), "a.b": (9, 9, 9, 2.0)})
    result = window(first, second, match={"pod": ["a", "b"]})
    assert result["metrics"]["ttft"]["buckets"] == [["0.1", 1.0], ["0.5", 2.0], ["+Inf", 3.0]]
    assert result["metrics"]["ttft"]["series"] == 2


def test_bounds_are_spelled_one_way():
    text = HEAD + 'vllm:time_to_first_token_seconds_bucket{le="1"} 1\nvllm:time_to_first_token_seconds_bucket{le="+Inf"} 1\n'
    other = HEAD + 'vllm:time_to_first_token_seconds_bucket{le="1.0"} 3\nvllm:time_to_first_token_seconds_bucket{le="+Inf"} 4\n'
    # Two spellings are two series (as in Prometheus): "1" only at the start is gone, "1.0" only at the end counts from zero.
    assert window(text, other)["metrics"]["ttft"]["buckets"] == [["1.0", 3.0], ["+Inf", 3.0]]


def test_series_with_different_buckets_are_not_summed():
    text = histogram({"a": (1, 1, 1, 0.1)}) + 'vllm:time_to_first_token_seconds_bucket{le="0.2",pod="b"} 1\n' \
        'vllm:time_to_first_token_seconds_bucket{le="+Inf",pod="b"} 1\n'
    with pytest.raises(ServiceComparisonError) as caught:
        window(text, text)
    assert str(caught.value) == ('vllm:time_to_first_token_seconds: series {pod="a"} and {pod="b"} have different bucket boundaries '
                                 '(0.1, 0.5, +Inf; 0.2, +Inf): they cannot be summed')


def test_a_summary_is_kept_as_a_summary():
    text = ('# TYPE vllm:time_to_first_token_seconds summary\nvllm:time_to_first_token_seconds{quantile="0.95"} 0.3\n'
            'vllm:time_to_first_token_seconds_count 10\nvllm:time_to_first_token_seconds_sum 2\n')
    assert window(text, text)["metrics"]["ttft"] == {"name": "vllm:time_to_first_token_seconds", "type": "summary"}


def test_a_mapping_names_another_servers_metrics():
    text = histogram({"a": (1, 1, 1, 0.1)}, name="sglang:time_to_first_token_seconds")
    result = window(text, histogram({"a": (2, 3, 3, 0.3)}, name="sglang:time_to_first_token_seconds"),
                    mapping={"ttft": "sglang:time_to_first_token_seconds"})
    assert result["metrics"]["ttft"]["name"] == "sglang:time_to_first_token_seconds"
    assert result["metrics"]["ttft"]["count"] == 2.0
    with pytest.raises(ServiceComparisonError, match="^metric mapping ttft must name a metric, got ''$"):
        service_window.metric_names({"ttft": ""})


def test_bad_scrapes():
    with pytest.raises(ServiceComparisonError, match=r"^the end scrape \(100.0\) is not later than the start scrape \(100.0\)$"):
        service_window.scrape_window({"text": "", "timestamp": 100}, {"text": "", "timestamp": 100})
    with pytest.raises(ServiceComparisonError, match="^the service's metrics are not in the Prometheus text format: "):
        window("a b c d e\n", "")


@pytest.fixture(name="serve")
def fixture_serve(monkeypatch):
    """``serve(behaviour, interval=2.0)``: a started http_servers.Served, stopped after the test; no proxy from the environment."""
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


def timed_refusal(call, deadline=DEADLINE):
    """(message, seconds) of ``call()``, which must raise a ServiceComparisonError (and return well before deadline + 10 s)."""
    started = time.monotonic()
    with pytest.raises(ServiceComparisonError) as caught:
        tree_state.bounded(call, deadline + 10)
    return str(caught.value), time.monotonic() - started


def closed_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def vector(*items):
    return [{"metric": metric, "value": [160.0, str(value)]} for metric, value in items]


def asked(server):
    """The (query, time) of each request the server saw, in order."""
    found = []
    for path, unused_headers in server.seen:
        if urllib.parse.urlsplit(path).path != "/api/v1/query":
            continue
        query = urllib.parse.parse_qs(urllib.parse.urlsplit(path).query)
        found.append((query["query"][0], query["time"][0]))
    return found


NAME = "vllm:time_to_first_token_seconds"
TABLE = {
    "increase(%s_bucket{model_name=\"m\"}[60000ms])" % NAME: vector(
        ({"le": "0.1", "pod": "a"}, 3), ({"le": "0.5", "pod": "a"}, 6), ({"le": "+Inf", "pod": "a"}, 8)),
    "increase(%s_count{model_name=\"m\"}[60000ms])" % NAME: vector(({"pod": "a"}, 8)),
    "increase(%s_sum{model_name=\"m\"}[60000ms])" % NAME: vector(({"pod": "a"}, 4.0)),
    "resets(%s_bucket{model_name=\"m\"}[60000ms])" % NAME: vector(({"le": "0.1", "pod": "a"}, 1)),
    "vllm:request_success_total{model_name=\"m\"}": vector(({"finished_reason": "stop"}, 16)),
    "increase(vllm:request_success_total{model_name=\"m\"}[60000ms])": vector(({"finished_reason": "stop"}, 6)),
    "vllm:prefix_cache_hits_total{model_name=\"m\"}": vector(({"quantile": "0.5"}, 1)),
}


def test_query_window_reads_increases_over_the_exact_range(serve):
    server = serve(http_servers.prometheus(TABLE))
    result = service_query.query_window(server.url + "/", 100.0, 160.0, match={"model_name": "m"}, timeout=3)
    assert result["range"] == "60000ms" and result["source"] == "prometheus"
    assert result["start"] == 100.0 and result["end"] == 160.0 and result["duration"] == 60.0
    assert result["metrics"]["ttft"] == {"name": NAME, "type": "histogram", "buckets": [["0.1", 3.0], ["0.5", 6.0], ["+Inf", 8.0]],
                                         "count": 8.0, "sum": 4.0, "series": 1, "reset": True, "created_restart": False,
                                         "prometheus_rules": "unknown", "quantile_rule": None}
    assert result["metrics"]["requests"] == {"name": "vllm:request_success_total", "type": "counter", "total": 6.0, "series": 1, "reset": False,
                                             "created_restart": False, "by": [{"labels": {"finished_reason": "stop"}, "increase": 6.0}]}
    assert result["prometheus_version"] is None and result["prometheus_rules"] == "unknown"
    assert result["rules"] == {"version": None, "checked": False, "major": "unknown", "quantile": None, "sum": None, "range": None,
                               "le": None, "extrapolation": None}
    assert result["metrics"]["prefix_cache_hits"] == {"name": "vllm:prefix_cache_hits_total", "type": "summary"}
    assert result["metrics"]["itl"] == {"name": "vllm:inter_token_latency_seconds", "type": None}
    queries = asked(server)
    assert {at for unused_query, at in queries} == {"160.000"}
    assert queries[:5] == [("increase(vllm:e2e_request_latency_seconds_bucket{model_name=\"m\"}[60000ms])", "160.000"),
                           ("vllm:e2e_request_latency_seconds{model_name=\"m\"}", "160.000"),
                           ("increase(vllm:e2e_request_latency_seconds{model_name=\"m\"}[60000ms])", "160.000"),
                           ("vllm:e2e_request_latency_seconds_bucket{model_name=\"m\"}", "160.000"),
                           ("increase(vllm:inter_token_latency_seconds_bucket{model_name=\"m\"}[60000ms])", "160.000")]
    assert all(headers["Accept"] == "application/json" and headers["Accept-Encoding"] == "identity" for unused_path, headers in server.seen)


def test_a_metrics_body_is_read_whole_with_the_headers_given(serve):
    text = histogram({"a": (1, 4, 5, 2.0)})
    server = serve(http_servers.metrics(text))
    assert service_query.fetch_metrics_text(server.url + "/metrics", headers={"Authorization": "Bearer t0ken"}) == text
    (path, headers), = server.seen
    assert path == "/metrics"
    assert headers["Authorization"] == "Bearer t0ken" and headers["Accept"] == "text/plain; version=0.0.4"


def test_a_urls_user_and_password_are_basic_authentication_and_masked_in_messages(serve):
    server = serve(http_servers.metrics("up 1\n"))
    url = server.url.replace("http://", "http://reader:s3cret-pass@") + "/metrics"
    assert service_query.fetch_metrics_text(url) == "up 1\n"
    assert server.seen[0][1]["Authorization"] == "Basic " + base64.b64encode(b"reader:s3cret-pass").decode()
    message, unused_took = timed_refusal(lambda: service_query.fetch_metrics_text(url.replace("/metrics", "/other")))
    assert message == "the service's metrics at %s/other answered HTTP 404: 404 page not found" % server.url.replace("http://", "http://********@")
    port = closed_port()
    message, unused_took = timed_refusal(lambda: service_query.instant_query("http://reader:s3cret-pass@127.0.0.1:%d" % port, "up", 1.0))
    assert message == ("Prometheus at http://********@127.0.0.1:%d did not answer the query up: HTTPConnection(host='127.0.0.1', port=%d): "
                       "Failed to establish a new connection: [Errno 111] Connection refused" % (port, port))


def test_a_proxy_from_the_environment_is_used(serve, monkeypatch):
    proxy = serve(http_servers.metrics("up 1\n"))
    monkeypatch.setenv("http_proxy", proxy.url)
    assert service_query.fetch_metrics_text("http://service.invalid:8000/metrics") == "up 1\n"
    assert proxy.seen[0][0] == "http://service.invalid:8000/metrics"


def test_headers_then_a_byte_every_two_seconds_end_at_the_deadline(serve):
    server = serve(http_servers.trickle, interval=2.0)
    message, took = timed_refusal(lambda: service_query.instant_query(server.url, "up", 1.0, timeout=DEADLINE))
    assert message == "Prometheus at %s: no whole answer to the query up within the 3s deadline (HTTP 200, 1 byte of the body received)" % server.url
    assert DEADLINE - 0.1 <= took <= DEADLINE + SLACK
    message, took = timed_refusal(lambda: service_query.fetch_metrics_text(server.url + "/metrics", timeout=DEADLINE))
    assert message == "the service's metrics at %s/metrics: no whole answer within the 3s deadline (HTTP 200, 1 byte of the body received)" % server.url
    assert DEADLINE - 0.1 <= took <= DEADLINE + SLACK


def test_a_server_that_never_answers_ends_at_the_deadline_after_one_try(serve):
    server = serve(http_servers.silent)
    message, took = timed_refusal(lambda: service_query.query_window(server.url, 100.0, 160.0, timeout=2.5), deadline=2.5)
    # The first exchange asks the server's version (its rules); a silent server ends there.
    assert message == ("Prometheus at %s: no whole build information within the 2.5s deadline (%s)" % (server.url, transport.NO_ANSWER))
    assert 2.5 - 0.1 <= took <= 2.5 + SLACK
    assert len(server.seen) == 1
    message, took = timed_refusal(lambda: service_query.fetch_metrics_text(server.url + "/metrics", timeout=DEADLINE))
    assert message == "the service's metrics at %s/metrics: no whole answer within the 3s deadline (%s)" % (server.url, transport.NO_ANSWER)
    assert DEADLINE - 0.1 <= took <= DEADLINE + SLACK
    assert len(server.seen) == 2


@pytest.mark.parametrize("length", [True, False], ids=["content-length", "until-close"])
def test_a_body_over_the_bound_is_refused(serve, length):
    server = serve(http_servers.body(b"x" * 70000, length=length))
    message, took = timed_refusal(lambda: service_query.fetch_metrics_text(server.url + "/metrics", max_bytes=65536, timeout=DEADLINE))
    assert message == "the service's metrics at %s/metrics is larger than 65536 bytes" % server.url
    assert took <= DEADLINE + SLACK
    message, took = timed_refusal(lambda: service_query.instant_query(server.url, "up", 1.0, max_bytes=10, timeout=DEADLINE))
    assert message == "Prometheus' answer to up is larger than 10 bytes: narrow the query (match labels)"
    assert took <= DEADLINE + SLACK


def test_query_errors_name_the_query(serve):
    server = serve(http_servers.prometheus({"up[": 400}))
    with pytest.raises(ServiceComparisonError) as caught:
        service_query.instant_query(server.url, "up[", 1.0)
    assert str(caught.value) == "Prometheus refused the query up[: bad_data: 1:1: parse error: unexpected character"
    text = serve(http_servers.body(b"<html>bad gateway</html>"))
    with pytest.raises(ServiceComparisonError) as caught:
        service_query.instant_query(text.url, "up", 1.0)
    assert str(caught.value) == ("Prometheus at %s answered up with something that is not JSON: Expecting value: line 1 column 1 (char 0)"
                                 % text.url)
    port = closed_port()
    message, took = timed_refusal(lambda: service_query.instant_query("http://127.0.0.1:%d" % port, "up", 1.0, timeout=DEADLINE))
    assert message == ("Prometheus at http://127.0.0.1:%d did not answer the query up: HTTPConnection(host='127.0.0.1', port=%d): "
                       "Failed to establish a new connection: [Errno 111] Connection refused" % (port, port))
    assert took <= DEADLINE + SLACK
    with pytest.raises(ServiceComparisonError) as caught:
        service_query.query_window(server.url, 2.0, 1.0)
    assert str(caught.value) == "the window's end (1.0) is not later than its start (2.0)"
