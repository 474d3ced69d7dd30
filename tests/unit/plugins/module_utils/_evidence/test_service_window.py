"""Service windows: two scrapes of /metrics (per-series deltas, resets, summaries) and a Prometheus server's HTTP API (a fake opener)."""

import io
import json
import urllib.error
import urllib.parse

import pytest

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence import nodefs, service_query, service_window

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
                                         "series": 2, "reset": False}
    assert result["metrics"]["requests"] == {"name": "vllm:request_success_total", "type": "counter", "total": 7.0, "series": 2, "reset": False,
                                             "by": [{"labels": {"finished_reason": "error"}, "increase": 1.0},
                                                    {"labels": {"finished_reason": "stop"}, "increase": 6.0}]}
    assert result["metrics"]["itl"] == {"name": "vllm:inter_token_latency_seconds", "type": None}


def test_a_series_that_went_down_is_a_reset_counted_from_zero():
    # pod a restarted: its le=0.5 bucket rose (2 -> 3) but le=0.1 and the count fell, so the whole series counts from zero.
    result = window(histogram({"a": (2, 2, 9, 3.0), "b": (0, 2, 2, 0.5)}) + COUNTER % (10, 1),
                    histogram({"a": (1, 3, 4, 1.0), "b": (1, 3, 4, 1.5)}) + COUNTER % (4, 1))
    ttft = result["metrics"]["ttft"]
    assert ttft["reset"] is True
    assert ttft["buckets"] == [["0.1", 2.0], ["0.5", 4.0], ["+Inf", 6.0]]
    assert ttft["count"] == 6.0 and ttft["sum"] == 2.0
    assert result["metrics"]["requests"]["total"] == 4.0 and result["metrics"]["requests"]["reset"] is True


def test_a_new_series_counts_from_zero_and_match_selects_series():
    result = window(histogram({"a": (1, 1, 1, 0.1)}), histogram({"a": (2, 2, 2, 0.2), "b": (1, 1, 1, 0.05)}), match={"pod": "b"})
    assert result["metrics"]["ttft"]["buckets"] == [["0.1", 1.0], ["0.5", 1.0], ["+Inf", 1.0]]
    assert result["metrics"]["ttft"]["series"] == 1


def test_bounds_are_spelled_one_way():
    text = HEAD + 'vllm:time_to_first_token_seconds_bucket{le="1"} 1\nvllm:time_to_first_token_seconds_bucket{le="+Inf"} 1\n'
    other = HEAD + 'vllm:time_to_first_token_seconds_bucket{le="1.0"} 3\nvllm:time_to_first_token_seconds_bucket{le="+Inf"} 4\n'
    assert window(text, other)["metrics"]["ttft"]["buckets"] == [["1.0", 2.0], ["+Inf", 3.0]]


def test_series_with_different_buckets_are_not_summed():
    text = histogram({"a": (1, 1, 1, 0.1)}) + 'vllm:time_to_first_token_seconds_bucket{le="0.2",pod="b"} 1\n' \
        'vllm:time_to_first_token_seconds_bucket{le="+Inf",pod="b"} 1\n'
    with pytest.raises(nodefs.EvidenceError) as caught:
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
    with pytest.raises(nodefs.EvidenceError, match="^metric mapping ttft must name a metric, got ''$"):
        service_window.metric_names({"ttft": ""})


def test_bad_scrapes():
    with pytest.raises(nodefs.EvidenceError, match=r"^the end scrape \(100.0\) is not later than the start scrape \(100.0\)$"):
        service_window.scrape_window({"text": "", "timestamp": 100}, {"text": "", "timestamp": 100})
    with pytest.raises(nodefs.EvidenceError, match="^the service's metrics are not in the Prometheus text format: "):
        window("a b c d e\n", "")


class FakePrometheus:
    """An opener answering /api/v1/query from a table of query -> result (vectors), recording what it was asked."""

    def __init__(self, answers, status="success"):
        self.answers, self.status, self.asked = answers, status, []

    def __call__(self, request, timeout):
        query = urllib.parse.parse_qs(urllib.parse.urlparse(request.full_url).query)
        self.asked.append((query["query"][0], query["time"][0], timeout))
        body = {"status": self.status, "data": {"resultType": "vector", "result": self.answers.get(query["query"][0], [])}}
        if self.status != "success":
            body = {"status": "error", "errorType": "bad_data", "error": "parse error"}
        return io.BytesIO(json.dumps(body).encode())


def vector(*items):
    return [{"metric": metric, "value": [160.0, str(value)]} for metric, value in items]


def test_query_window_reads_increases_over_the_exact_range():
    name = "vllm:time_to_first_token_seconds"
    answers = {
        "increase(%s_bucket{model_name=\"m\"}[60000ms])" % name: vector(
            ({"le": "0.1", "pod": "a"}, 3), ({"le": "0.5", "pod": "a"}, 6), ({"le": "+Inf", "pod": "a"}, 8)),
        "increase(%s_count{model_name=\"m\"}[60000ms])" % name: vector(({"pod": "a"}, 8)),
        "increase(%s_sum{model_name=\"m\"}[60000ms])" % name: vector(({"pod": "a"}, 4.0)),
        "resets(%s_bucket{model_name=\"m\"}[60000ms])" % name: vector(({"le": "0.1", "pod": "a"}, 1)),
        "vllm:request_success_total{model_name=\"m\"}": vector(({"finished_reason": "stop"}, 16)),
        "increase(vllm:request_success_total{model_name=\"m\"}[60000ms])": vector(({"finished_reason": "stop"}, 6)),
        "vllm:prefix_cache_hits_total{model_name=\"m\"}": vector(({"quantile": "0.5"}, 1)),
    }
    fake = FakePrometheus(answers)
    result = service_query.query_window("http://prom:9090/", 100.0, 160.0, match={"model_name": "m"}, opener=fake, timeout=3)
    assert result["range"] == "60000ms" and result["source"] == "prometheus"
    assert result["metrics"]["ttft"] == {"name": name, "type": "histogram", "buckets": [["0.1", 3.0], ["0.5", 6.0], ["+Inf", 8.0]],
                                         "count": 8.0, "sum": 4.0, "series": 1, "reset": True}
    assert result["metrics"]["requests"]["total"] == 6.0
    assert result["metrics"]["prefix_cache_hits"]["type"] == "summary"
    assert result["metrics"]["itl"]["type"] is None
    assert {(asked[1], asked[2]) for asked in fake.asked} == {("160.000", 3)}


def test_query_errors_name_the_query():
    fake = FakePrometheus({}, status="error")
    with pytest.raises(nodefs.EvidenceError, match=r"^Prometheus refused the query up: bad_data: parse error$"):
        service_query.instant_query("http://prom", "up", 1.0, opener=fake)

    def big(_request, timeout):
        del timeout
        return io.BytesIO(b"x" * 11)
    with pytest.raises(nodefs.EvidenceError, match=r"^Prometheus' answer to up is larger than 10 bytes: narrow the query \(match labels\)$"):
        service_query.instant_query("http://prom", "up", 1.0, opener=big, max_bytes=10)

    def down(request, timeout):
        raise urllib.error.URLError("connection refused")
    with pytest.raises(nodefs.EvidenceError, match=r"^Prometheus at http://prom did not answer the query up: connection refused$"):
        service_query.instant_query("http://prom", "up", 1.0, opener=down)
    with pytest.raises(nodefs.EvidenceError, match=r"^the window's end \(1.0\) is not later than its start \(2.0\)$"):
        service_query.query_window("http://prom", 2.0, 1.0, opener=down)
