"""Evidence that cannot be true is refused, naming it (issue 29, class 5): counters below zero, a window whose duration is
not end - start, a series given twice in one scrape, ``match`` keys that are no label names; values escaped as PromQL strings.

Through the real functions: `scrape_window` on exposition text, `compare` on windows, `query_window` against a Prometheus
stand-in on 127.0.0.1 (http_servers) whose received queries are read back.
"""

import urllib.parse

import pytest

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._service_comparison.errors import ServiceComparisonError
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._service_comparison import compare as service_compare
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._service_comparison import query as service_query, window as service_window
from ansible_collections.gpusmith.numa_gate.tests.unit.plugins.module_utils._service_comparison import http_servers
from ansible_collections.gpusmith.numa_gate.tests.unit.plugins.module_utils._service_comparison import runs_cases as service_runs

COUNTER = '# TYPE vllm:request_success_total counter\nvllm:request_success_total{finished_reason="stop"} %s\n'
HISTOGRAM = ('# TYPE vllm:time_to_first_token_seconds histogram\n'
             'vllm:time_to_first_token_seconds_bucket{le="0.5",pod="a"} %s\nvllm:time_to_first_token_seconds_bucket{le="+Inf",pod="a"} %s\n'
             'vllm:time_to_first_token_seconds_count{pod="a"} %s\nvllm:time_to_first_token_seconds_sum{pod="a"} %s\n')
OBJECTIVES = [{"metric": "ttft", "quantile": 0.95, "at_most": 0.5}]


def window(first, second, **kwargs):
    return service_window.scrape_window({"text": first, "timestamp": 100.0}, {"text": second, "timestamp": 160.0}, **kwargs)


def refused(call):
    with pytest.raises(ServiceComparisonError) as caught:
        call()
    return str(caught.value)


def test_a_counter_below_zero_in_a_scrape_is_refused_naming_series_and_value():
    # Counted from -5 the window would say 8 requests; a counter is never below zero, so there is no window.
    assert refused(lambda: window(COUNTER % -5, COUNTER % 3)) == (
        'the start scrape gives the counter vllm:request_success_total{finished_reason="stop"} as -5.0: a counter is never below zero; '
        'not a window')
    assert refused(lambda: window(HISTOGRAM % (1, 2, 2, 0.5), HISTOGRAM % (-1, 4, 4, 1.0))) == (
        'the end scrape gives the counter vllm:time_to_first_token_seconds_bucket{le="0.5",pod="a"} as -1.0: a counter is never below '
        'zero; not a window')
    assert refused(lambda: window(HISTOGRAM % (1, 2, 2, 0.5), HISTOGRAM % (3, 4, -4, 1.0))) == (
        'the end scrape gives the counter vllm:time_to_first_token_seconds_count{pod="a"} as -4.0: a counter is never below zero; '
        'not a window')


def test_a_sum_that_goes_down_is_no_counter_and_still_reads():
    # Negative observations make _sum go down; only the buckets and the count are counters.
    result = window(HISTOGRAM % (1, 2, 2, 0.5), HISTOGRAM % (3, 4, 4, -1.5))
    assert result["metrics"]["ttft"]["buckets"] == [["0.5", 2.0], ["+Inf", 2.0]]
    assert result["metrics"]["ttft"]["count"] == 2.0 and result["metrics"]["ttft"]["sum"] == -1.5


def test_an_increase_below_zero_from_anyone_is_refused():
    # The query path's increases come from Prometheus: an answer of -2 is not believed.
    key = (("finished_reason", "stop"),)
    assert refused(lambda: service_window.aggregate("vllm:request_success_total", "counter", {key: {"value": -2.0}})) == (
        'vllm:request_success_total {finished_reason="stop"}: its increase over the window is -2.0, below zero (an increase is never '
        'negative); not a window')
    assert refused(lambda: service_window.aggregate("h", "histogram", {(("pod", "a"),): {"buckets": {"+Inf": 1.0}, "count": -1.0}})) == (
        'h_count {pod="a"}: its increase over the window is -1.0, below zero (an increase is never negative); not a window')


def _runs_with(index, *path_and_value):
    runs = service_runs.interleaved()
    where = runs[index]
    for key in path_and_value[:-2]:
        where = where[key]
    where[path_and_value[-2]] = path_and_value[-1]
    return runs


@pytest.mark.parametrize("runs, message", [
    (_runs_with(1, "window", "metrics", "requests", "total", -240),
     "runs[1].window.metrics.requests.total must be a finite number of 0 or more, got the number -240"),
    (_runs_with(2, "window", "metrics", "ttft", "count", -1),
     "runs[2].window.metrics.ttft.count must be a finite number of 0 or more, got the number -1"),
    (_runs_with(0, "window", "metrics", "ttft", "buckets", 0, ["0.005", -3]),
     "runs[0].window.metrics.ttft.buckets[0] is not a [bound, count] pair: its count -3 is below zero (a bucket's increase counts "
     "observations: never negative)"),
    (_runs_with(3, "window", "duration", 600.0),
     "runs[3].window.duration 600.0 is not its end - start (360.0 - 300.0 = 60.0): a window whose length is not the time between its "
     "ends is not a measurement"),
])
def test_a_window_given_to_the_comparison_that_cannot_be_true_is_refused(runs, message):
    assert refused(lambda: service_compare.compare(runs, OBJECTIVES)) == message


def test_a_window_whose_duration_is_end_minus_start_within_float_noise_is_compared():
    runs = service_runs.interleaved()
    runs[0]["window"].update(start=1000.1, end=1000.1 + 60.0, duration=60.0)
    assert service_compare.compare(runs, OBJECTIVES)["state"] in ("held", "broken", "refused")


def test_a_series_given_twice_in_one_scrape_is_refused_naming_both_values():
    twice = COUNTER % 4 + 'vllm:request_success_total{finished_reason="stop"} 9\n'
    assert refused(lambda: window(COUNTER % 1, twice)) == (
        'the end scrape gives the series vllm:request_success_total{finished_reason="stop"} twice (4.0, then 9.0): a series is one '
        'sample per scrape (Prometheus drops the second as a duplicate sample for its timestamp); not a window')
    # The same label set in another order is the same series.
    reordered = HISTOGRAM % (1, 2, 2, 0.5) + 'vllm:time_to_first_token_seconds_bucket{pod="a",le="0.5"} 1\n'
    assert refused(lambda: window(reordered, HISTOGRAM % (1, 2, 2, 0.5))).startswith(
        'the start scrape gives the series vllm:time_to_first_token_seconds_bucket{le="0.5",pod="a"} twice (1.0, then 1.0)')


def test_two_spellings_of_one_bound_are_two_series_added_as_before():
    # 0.5 and 5e-1 are two label sets: Prometheus keeps both, sum by (le) adds them (window.py's decision for le spellings).
    first = HISTOGRAM % (1, 2, 2, 0.5) + 'vllm:time_to_first_token_seconds_bucket{le="5e-1",pod="a"} 1\n'
    second = HISTOGRAM % (3, 4, 4, 1.0) + 'vllm:time_to_first_token_seconds_bucket{le="5e-1",pod="a"} 2\n'
    assert window(first, second)["metrics"]["ttft"]["buckets"] == [["0.5", 3.0], ["+Inf", 2.0]]


@pytest.mark.parametrize("match, message", [
    ({'model"} or vector(1) #': "m"}, "match key 'model\"} or vector(1) #' is not a Prometheus label name ([a-zA-Z_][a-zA-Z0-9_]*); "
                                      "not queried, not matched"),
    ({"model name": "m"}, "match key 'model name' is not a Prometheus label name ([a-zA-Z_][a-zA-Z0-9_]*); not queried, not matched"),
    ({"9model": "m"}, "match key '9model' is not a Prometheus label name ([a-zA-Z_][a-zA-Z0-9_]*); not queried, not matched"),
    ({"model": "a\ud800b"}, "match.model has a lone UTF-16 surrogate '\\ud800' at offset 1: no label value holds one; not queried, not matched"),
    ({"pod": ["a", "b\ud800"]}, "match.pod has a lone UTF-16 surrogate '\\ud800' at offset 1: no label value holds one; not queried, not matched"),
    ({"pod": []}, "match.pod is an empty list: no series carries none of no values; not queried, not matched"),
    ({"pod": {"a": 1}}, "match.pod must be a string, number, boolean or null, or a list of those (any of them), got a mapping"),
    ({"pod": [["a"]]}, "match.pod must be a string, number, boolean or null, or a list of those (any of them), got a list"),
])
def test_a_match_key_that_is_no_label_name_is_refused_before_any_query(match, message):
    # 127.0.0.1:9 (discard) is never reached: the refusal comes first.
    assert refused(lambda: service_query.query_window("http://127.0.0.1:9", 100.0, 160.0, match=match, timeout=1)) == message
    assert refused(lambda: window(COUNTER % 1, COUNTER % 2, match=match)) == message


@pytest.mark.parametrize("value, literal", [
    ("m", '"m"'),
    ('a"} or vector(1) #', '"a\\"} or vector(1) #"'),
    ("back\\slash", '"back\\\\slash"'),
    ("two\nlines\r\ttab", '"two\\nlines\\r\\ttab"'),
    ("bell\x07del\x7f", '"bell\\x07del\\x7f"'),
    ("ünï", '"ünï"'),
    (7, '"7"'),
])
def test_match_values_are_promql_string_literals(value, literal):
    assert service_query.promql_string(value) == literal


def test_the_query_sent_holds_the_escaped_value(monkeypatch):
    for variable in ("http_proxy", "HTTP_PROXY", "all_proxy", "ALL_PROXY", "no_proxy", "NO_PROXY"):
        monkeypatch.delenv(variable, raising=False)
    server = http_servers.Served(http_servers.prometheus({}), 2.0)
    try:
        service_query.query_window(server.url, 100.0, 160.0, mapping={"ttft": "x"}, match={"model": 'a"}\nb'}, timeout=3)
    finally:
        server.stop()
    queries = [urllib.parse.parse_qs(urllib.parse.urlsplit(path).query)["query"][0] for path, unused in server.seen
               if urllib.parse.urlsplit(path).path == "/api/v1/query"]
    assert queries[0] == 'increase(vllm:e2e_request_latency_seconds_bucket{model="a\\"}\\nb"}[60000ms])'


def test_a_list_of_values_is_an_anchored_regex_of_each_value_escaped(monkeypatch):
    for variable in ("http_proxy", "HTTP_PROXY", "all_proxy", "ALL_PROXY", "no_proxy", "NO_PROXY"):
        monkeypatch.delenv(variable, raising=False)
    server = http_servers.Served(http_servers.prometheus({}), 2.0)
    try:
        service_query.query_window(server.url, 100.0, 160.0, mapping={"ttft": "x"}, match={"pod": ["server-0", "a.b"], "ns": "c"}, timeout=3)
    finally:
        server.stop()
    queries = [urllib.parse.parse_qs(urllib.parse.urlsplit(path).query)["query"][0] for path, unused in server.seen
               if urllib.parse.urlsplit(path).path == "/api/v1/query"]
    # The PromQL literal escapes each backslash, so Prometheus reads the regex server\-0|a\.b (RE2 takes an escaped punctuation mark).
    assert queries[0] == r'increase(vllm:e2e_request_latency_seconds_bucket{ns="c",pod=~"server\\-0|a\\.b"}[60000ms])'
