"""Property: valid service inputs with parts swapped for wrong values give a result or a named refusal (issue 16, rule 7).

Valid runs (`service_runs.interleaved`), objectives, settings, scrapes and a comparison result for the verdict have one to
three of their parts (any key or list item, at any depth) replaced by a hostile value or removed; every call either returns
or raises the collection's own error (a NumaGateError), never a TypeError, KeyError, AttributeError or ZeroDivisionError.
Then the exact messages of a handful of cases.
"""

import copy
import math

import pytest
from hypothesis import given, settings, strategies as st

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base.errors import NumaGateError
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._service_comparison.errors import ServiceComparisonError
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._service_comparison import compare as service_compare, window as service_window
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._record import verdict
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._record.errors import RecordError
from ansible_collections.gpusmith.numa_gate.tests.unit.plugins.module_utils._service_comparison import runs_cases as service_runs

OBJECTIVES = [{"metric": "ttft", "quantile": 0.95, "at_most": 0.5}, {"metric": "itl", "quantile": 0.95, "relative": 0.05},
              {"metric": "error_ratio", "at_most": 0.01}, {"metric": "throughput", "relative": 0.05}, {"metric": "throughput", "at_least": 1}]
SETTINGS = {"min_repetitions": 3, "min_observations": 100, "max_rate_difference": 0.1, "max_hit_ratio_difference": 0.05, "vary": ["seed"],
            "error_reasons": ["error", "abort"], "quantiles": [0.5, 0.95]}
TEXT = ('# TYPE vllm:request_success_total counter\nvllm:request_success_total{finished_reason="stop"} %d\n'
        '# TYPE vllm:time_to_first_token_seconds histogram\nvllm:time_to_first_token_seconds_bucket{le="0.5"} %d\n'
        'vllm:time_to_first_token_seconds_bucket{le="+Inf"} %d\nvllm:time_to_first_token_seconds_count %d\n'
        'vllm:time_to_first_token_seconds_sum 1.5\n')
SCRAPE_ARGS = {"first": {"text": TEXT % (3, 1, 2, 2), "timestamp": 10}, "second": {"text": TEXT % (9, 4, 6, 6), "timestamp": 70},
               "mapping": {"ttft": "vllm:time_to_first_token_seconds"}, "match": {"finished_reason": "stop"}}
COMPARE_ARGS = {"runs": service_runs.interleaved(), "objectives": OBJECTIVES, "settings": SETTINGS}
SERVICE = service_compare.compare(service_runs.interleaved(), OBJECTIVES[:1])
VERDICT_ARGS = {"service_objectives": {key: SERVICE[key] for key in ("state", "reasons", "repetitions", "refusals")}}
HOSTILE = st.sampled_from([None, True, False, 0, -1, 2**70, 0.5, -0.0, math.nan, math.inf, -math.inf, 1e308, "", "x", "+Inf", "NaN", "0.5",
                           [], [1, 2, 3], ["0.5"], [["0.5", "x"]], [None], {}, {"a": 1}, {1: 2}, {"type": "histogram"}, {"type": "counter"},
                           {"type": "summary"}, "baseline", "canary", "histogram", "counter"])


def paths(value, prefix=()):
    """Every key and list item of ``value``, as the path of keys and indexes that reaches it."""
    found = []
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, item in items:
        found.append(prefix + (key,))
        found.extend(paths(item, prefix + (key,)))
    return found


def mutated(base, changes):
    """A deep copy of ``base`` with each (path, value) of ``changes`` applied; a value "<del>" removes the part."""
    value = copy.deepcopy(base)
    for path, new in changes:
        where = value
        try:
            for key in path[:-1]:
                where = where[key]
            if new == "<del>":
                del where[path[-1]]
            else:
                where[path[-1]] = new
        except (KeyError, IndexError, TypeError):
            continue  # an earlier change removed or replaced this part
    return value


def changes_of(base):
    return st.lists(st.tuples(st.sampled_from(paths(base)), HOSTILE | st.just("<del>")), min_size=1, max_size=3)


def returns_or_refuses(call, *errors):
    try:
        call()
    except NumaGateError as exc:
        assert isinstance(exc, errors), exc
        assert not str(exc).startswith("unexpected")


@settings(max_examples=400, deadline=None)
@given(changes_of(COMPARE_ARGS))
def test_any_swapped_part_of_a_comparison_is_a_result_or_a_refusal(changes):
    args = mutated(COMPARE_ARGS, changes)
    returns_or_refuses(lambda: service_compare.compare(args.get("runs"), args.get("objectives"), args.get("settings")), ServiceComparisonError)


@settings(max_examples=200, deadline=None)
@given(changes_of(SCRAPE_ARGS), st.sampled_from([None, "", "x", "# TYPE a histogram\na_bucket{le=\"x\"} 1\n", "a{b=\"c\"} 1 2 3\n", "a 1\na 2\n",
                                                 "# TYPE a summary\na{quantile=\"0.5\"} 1\n", "a{le=} 1\n", "\x00"]))
def test_any_swapped_part_of_two_scrapes_is_a_window_or_a_refusal(changes, text):
    args = mutated(SCRAPE_ARGS, changes)
    if text is not None and isinstance(args.get("second"), dict):
        args["second"]["text"] = text
    returns_or_refuses(lambda: service_window.scrape_window(args.get("first"), args.get("second"), args.get("mapping"), args.get("match")),
                       ServiceComparisonError)


@settings(max_examples=200, deadline=None)
@given(changes_of(VERDICT_ARGS))
def test_any_swapped_part_of_a_comparison_result_is_a_verdict_or_a_refusal(changes):
    args = mutated(VERDICT_ARGS, changes)
    returns_or_refuses(lambda: verdict.decide(dict(args, placement={"findings": []})), RecordError)


def _run(index, *path_and_value):
    runs = service_runs.interleaved()
    where = runs[index]
    for key in path_and_value[:-2]:
        where = where[key]
    where[path_and_value[-2]] = path_and_value[-1]
    return runs


@pytest.mark.parametrize("call, message", [
    (lambda: service_compare.compare(_run(1, "window", "metrics", "ttft", "buckets", 3, 0.5), OBJECTIVES),
     "runs[1].window.metrics.ttft.buckets[3] is not a [bound, count] pair: got the number 0.5"),
    (lambda: service_compare.compare(_run(2, "window", "metrics", "itl", "buckets", 0, [0.01, 3.0]), OBJECTIVES),
     "runs[2].window.metrics.itl.buckets[0] is not a [bound, count] pair: its bound must be an le label such as '0.5' or '+Inf', got the number 0.01"),
    (lambda: service_compare.compare(_run(1, "window", "metrics", "ttft", "buckets", 1, ["0.005", "7"]), OBJECTIVES),
     "runs[1].window.metrics.ttft.buckets[1] is not a [bound, count] pair: its count must be a finite number, got the string '7'"),
    (lambda: service_compare.compare(_run(3, "window", "duration", 0), OBJECTIVES),
     "runs[3].window.duration must be a finite number above 0, got the number 0"),
    (lambda: service_compare.compare(_run(1, "window", "metrics", "requests", "by", "stop"), OBJECTIVES),
     "runs[1].window.metrics.requests.by must be a list, got the string 'stop'"),
    (lambda: service_compare.compare(_run(1, "window", "metrics", "ttft", {"type": "counter", "total": 1, "by": []}), OBJECTIVES),
     "runs[1].window.metrics.ttft.type must be histogram, summary or null (a latency metric is no counter), got the string 'counter'"),
    (lambda: service_compare.compare(_run(4, "identity", "images", ["a@sha256:1"]), OBJECTIVES),
     "runs[4].identity.images must be a mapping, got a list"),
    (lambda: service_compare.compare(service_runs.interleaved(), OBJECTIVES, {"error_reasons": "error"}),
     "settings.error_reasons must be a list, got the string 'error'"),
    (lambda: service_compare.compare(service_runs.interleaved(), {"metric": "ttft"}),
     "objectives must be a list, got a mapping"),
    (lambda: service_compare.compare(service_runs.interleaved(), [{"metric": "ttft", "quantile": 0.95, "at_most": math.nan}]),
     "objectives[0] at_most must be a number >= 0, got nan"),
    (lambda: service_window.scrape_window({"text": ""}, {"text": "", "timestamp": 1}),
     "first has no timestamp: a scrape of /metrics (text, timestamp) has text, timestamp"),
    (lambda: service_window.scrape_window({"text": "", "timestamp": 0}, {"text": "", "timestamp": 1}, match={"model": [["m"]]}),
     "match.model must be a string, number, boolean or null, or a list of those (any of them), got a list"),
])
def test_wrong_shapes_are_named_by_their_path(call, message):
    with pytest.raises(ServiceComparisonError) as caught:
        call()
    assert str(caught.value) == message


@pytest.mark.parametrize("service, message", [
    (dict(VERDICT_ARGS["service_objectives"], reasons="held"), "evidence.service_objectives.reasons must be a list, got the string 'held'"),
    (dict(VERDICT_ARGS["service_objectives"], reasons=[1]), "evidence.service_objectives.reasons[0] must be a string, got the number 1"),
    (dict(VERDICT_ARGS["service_objectives"], repetitions=[3, 3]),
     "evidence.service_objectives.repetitions must be repetitions per side (a mapping), got a list"),
])
def test_a_comparison_result_of_the_wrong_shape_is_named(service, message):
    with pytest.raises(RecordError) as caught:
        verdict.decide({"placement": {"findings": []}, "service_objectives": service})
    assert str(caught.value) == message
