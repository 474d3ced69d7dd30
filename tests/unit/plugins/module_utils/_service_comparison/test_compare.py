"""The service comparison: each refusal and warning with its exact message, the spread rule, objectives and the three states."""

import pytest

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._service_comparison.errors import ServiceComparisonError
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._service_comparison import compare as sc, stats
from ansible_collections.gpusmith.numa_gate.tests.unit.plugins.module_utils._service_comparison import runs_cases as sr

P95_TTFT = {"metric": "ttft", "quantile": 0.95, "at_most": 0.5}
P95_ITL = {"metric": "itl", "quantile": 0.95, "relative": 0.05}
OBJECTIVES = [P95_TTFT, P95_ITL, {"metric": "error_ratio", "at_most": 0.01}, {"metric": "throughput", "relative": 0.05}]


def refusals(runs, **settings):
    result = sc.compare(runs, OBJECTIVES, settings or None)
    assert result["state"] == "incomparable"
    assert result["reasons"] == result["refusals"]
    return result["refusals"]


def test_same_work_holds_with_no_measurable_difference():
    result = sc.compare(sr.interleaved(), OBJECTIVES)
    assert result["state"] == "held"
    assert not result["refusals"] and not result["warnings"]
    assert result["warmups_excluded"] == 1
    assert result["repetitions"] == {"baseline": 3, "canary": 3}
    assert [(run["side"], run["number"]) for run in result["runs"]] == [
        ("baseline", 1), ("baseline", 2), ("baseline", 3), ("canary", 1), ("canary", 2), ("canary", 3)]
    ttft = result["table"]["latency"]["ttft"]
    assert ttft["observations"] == {"baseline": [240.0] * 3, "canary": [240.0] * 3}
    assert ttft["buckets"][-1] == "+Inf" and len(ttft["buckets"]) == 23
    assert set(ttft["quantiles"]) == {"p50", "p90", "p95", "p99"}
    p95 = ttft["quantiles"]["p95"]
    assert p95["baseline"]["median"] == sorted(p95["baseline"]["values"])[1]
    assert p95["finding"].startswith("no measurable difference (the ranges ")
    assert [entry["held"] for entry in result["objectives"]] == [True, True, True, True]
    assert result["reasons"][1] == ("p95 itl not worse than baseline by more than 5% beyond the spread: no measurable difference "
                                    "(the ranges 0.0615057-0.0655858 and 0.0631188-0.0645161 overlap); allowed 0.00316071 beyond the spread")
    assert result["table"]["throughput"]["baseline"] == {"min": 4.0, "median": 4.0, "max": 4.0, "values": [4.0, 4.0, 4.0]}
    assert result["table"]["prefix_cache_hit_ratio"] == {"baseline": 0.1, "canary": 0.1}
    assert result["table"]["duration"] == {"baseline": [60.0] * 3, "canary": [60.0] * 3}


def test_a_slower_canary_beyond_the_spread_does_not_hold():
    result = sc.compare(sr.interleaved(canary={"itl_scale": 0.04}), [P95_ITL])
    assert result["state"] == "not held"
    assert result["reasons"] == ["p95 itl not worse than baseline by more than 5% beyond the spread: canary higher by 0.00967196 s "
                                 "(15.3% of the baseline median) beyond the run-to-run spread; allowed 0.00316071 beyond the spread"]


def test_a_faster_canary_is_reported_lower_not_as_a_verdict_of_gain():
    result = sc.compare(sr.interleaved(canary={"ttft_scale": 0.1}), [P95_TTFT])
    assert result["state"] == "held"
    assert result["table"]["latency"]["ttft"]["quantiles"]["p95"]["finding"].startswith("canary lower by ")


def test_absolute_objective_uses_the_worst_canary_repetition():
    result = sc.compare(sr.interleaved(), [{"metric": "ttft", "quantile": 0.95, "at_most": 0.49}])
    assert result["state"] == "not held"
    assert result["reasons"] == ["p95 ttft <= 0.49 s: canary did not hold: worst repetition 0.496032 (median 0.477273)"]


def test_error_ratio_and_throughput():
    result = sc.compare(sr.interleaved(canary={"errors": 24}), [{"metric": "error_ratio", "at_most": 0.01}, {"metric": "throughput", "at_least": 3.9}])
    assert result["state"] == "not held"
    assert result["reasons"] == ["error ratio <= 0.01: canary did not hold: worst repetition 0.1 (median 0.1)",
                                 "throughput >= 3.9 req/s: canary did not hold: worst repetition 3.6 (median 3.6)"]


def test_fewer_than_three_repetitions():
    assert refusals(sr.interleaved()[:5]) == [
        "3 repetitions per side are needed to show run-to-run variation: baseline has 2, canary has 2 (warmups excluded)"]


def test_not_interleaved():
    runs = sr.interleaved()
    for index, start in zip(range(1, 7), (100, 200, 300, 400, 500, 600)):
        window = runs[index]["window"]
        window["start"] = start if runs[index]["side"] == "baseline" else start + 1000
        window["end"] = window["start"] + window["duration"]  # a window's ends move together (its duration is end - start)
    assert refusals(runs) == ["the repetitions are not interleaved (A B A B): by start time they ran baseline, baseline, baseline, canary, canary, "
                              "canary, so drift between runs does not cancel"]


def test_image_digests_differ():
    other = {"server": "docker.io/vllm/vllm-openai@sha256:" + "b" * 64}
    runs = sr.interleaved(canary={"images": other})
    assert refusals(runs)[0] == "image digests differ for container server: baseline repetition 1 runs sha256:%s, canary repetition 1 runs sha256:%s" % (
        "a" * 64, "b" * 64)
    assert len(refusals(runs)) == 3


def test_an_image_without_a_digest():
    runs = sr.interleaved(canary={"images": {"server": "docker.io/vllm/vllm-openai:latest"}})
    assert refusals(runs)[0] == ("the image of container server in canary repetition 1 has no digest (docker.io/vllm/vllm-openai:latest): "
                                 "the application identity cannot be established")


def test_offered_load_differs_but_the_seed_may_vary():
    load = dict(sr.LOAD, max_concurrency=32, seed=7)
    assert refusals(sr.interleaved(canary={"load": load})) == [
        "offered load differs: max_concurrency is 16 in baseline repetition 1 and 32 in canary repetition %d" % number for number in (1, 2, 3)]


def test_bucket_boundaries_differ():
    bounds = tuple(0.35 if bound == 0.25 else bound for bound in sr.TTFT)
    found = refusals(sr.interleaved(canary={"ttft_bounds": bounds}))
    assert found[0] == ("vllm:time_to_first_token_seconds: bucket boundaries differ between baseline repetition 1 and canary repetition 1 "
                        "(only in baseline repetition 1: 0.25; only in canary repetition 1: 0.35): histograms with different buckets cannot be compared")
    assert len(found) == 3


def test_a_summary_is_refused():
    runs = sr.interleaved()
    runs[2]["window"]["metrics"]["ttft"] = {"name": "vllm:time_to_first_token_seconds", "type": "summary"}
    assert refusals(runs) == ["vllm:time_to_first_token_seconds is a summary in canary repetition 1: summary quantiles cannot be aggregated "
                              "or compared; expose a histogram"]


def test_a_metric_missing_from_some_runs():
    runs = sr.interleaved()
    runs[3]["window"]["metrics"]["itl"] = {"name": "vllm:inter_token_latency_seconds", "type": None}
    assert refusals(runs) == ["vllm:inter_token_latency_seconds is missing from baseline repetition 2"]


def test_too_few_observations():
    assert refusals(sr.interleaved(), min_observations=241) == [
        "vllm:time_to_first_token_seconds: %s repetition %d has 240 observations, fewer than the bound 241" % (side, number)
        for side in ("baseline", "canary") for number in (1, 2, 3)]


def test_measured_request_rates_differ():
    found = refusals(sr.interleaved(canary={"requests": 300}))
    assert found == ["measured request rate differs: canary repetition %d served 5.000 req/s, the baseline median is 4.000 req/s "
                     "(25.0%% apart, bound 10.0%%): the offered load was not the same" % number for number in (1, 2, 3)]


def test_no_request_counter():
    runs = sr.interleaved()
    for run in runs:
        run["window"]["metrics"]["requests"] = {"name": "vllm:request_success_total", "type": None}
    assert refusals(runs) == ["no completed-request counter (vllm:request_success_total) in baseline repetition 1, baseline repetition 2, "
                              "baseline repetition 3, canary repetition 1, canary repetition 2, canary repetition 3: the measured request "
                              "rate cannot be compared"]


def test_prefix_cache_hit_ratios_differ_is_a_warning():
    result = sc.compare(sr.interleaved(canary={"hits": 410.0}), OBJECTIVES)
    assert result["state"] == "held"
    assert result["warnings"] == ["prefix cache hit ratio differs: baseline 0.100, canary 0.410 (more than 0.05 apart): reused prompts inflate "
                                  "throughput; vary the seed, reset the prefix cache or restart the server between runs"]


def test_missing_prefix_cache_counters_and_resets_are_warnings():
    runs = sr.interleaved()
    for run in runs:
        run["window"]["metrics"]["prefix_cache_hits"] = {"name": "vllm:prefix_cache_hits_total", "type": None}
    runs[4]["window"]["metrics"]["ttft"]["reset"] = True
    assert sc.compare(runs, OBJECTIVES)["warnings"] == [
        "no prefix cache hit and query counters on both sides: prompt-prefix reuse is not shown to be controlled",
        "vllm:time_to_first_token_seconds: a counter reset inside canary repetition 2 (the server restarted): a two-scrape window counts "
        "only what followed the restart"]


def test_no_objectives_and_unmeasured_objectives_are_incomparable():
    assert sc.compare(sr.interleaved(), [])["reasons"] == ["no service objectives were written: a comparison without objectives holds nothing"]
    result = sc.compare(sr.interleaved(), [{"metric": "tpot", "quantile": 0.99, "at_most": 0.1}])
    assert result["state"] == "incomparable"
    assert result["reasons"] == ["p99 tpot <= 0.1 s was not measured on both sides"]


@pytest.mark.parametrize("objective, message", [
    ({"metric": "ttft", "at_most": 1}, r"^objectives\[0\] quantile must be a number between 0 and 1 \(0.95 for p95\), got None$"),
    ({"metric": "ttfb", "quantile": 0.9, "at_most": 1}, r"^objectives\[0\] metric must be one of ttft, itl, tpot, e2e, error_ratio, throughput, got 'ttfb'$"),
    ({"metric": "ttft", "quantile": 0.9}, r"^objectives\[0\] needs exactly one of at_most, at_least, relative, got none$"),
    ({"metric": "ttft", "quantile": 0.9, "at_most": True}, r"^objectives\[0\] at_most must be a number >= 0, got True$"),
    ({"metric": "error_ratio", "relative": 0.1}, r"^objectives\[0\]: error_ratio takes at_most$"),
    ({"metric": "throughput", "quantile": 0.5, "at_least": 1}, r"^objectives\[0\]: throughput has no quantile$"),
    ({"metric": "ttft", "quantile": 0.5, "at_most": 1, "held": True}, r"^objectives\[0\] has unknown keys held "),
    ("p95 < 1", r"^objectives\[0\] must be a mapping such as "),
])
def test_bad_objectives(objective, message):
    with pytest.raises(ServiceComparisonError, match=message):
        sc.compare(sr.interleaved(), [objective])


def test_bad_runs_and_settings():
    with pytest.raises(ServiceComparisonError, match=r"^runs\[0\] must be a mapping with side \(baseline or canary\) and window, got \{'side': 'b'\}$"):
        sc.compare([{"side": "b"}], OBJECTIVES)
    with pytest.raises(ServiceComparisonError, match=r"^comparison settings have unknown keys min_reps \(known: "):
        sc.compare(sr.interleaved(), OBJECTIVES, {"min_reps": 2})


def test_client_results_are_kept_apart():
    runs = sr.interleaved()
    runs[1]["client"] = {"duration": 60.1, "completed": 240, "failed": 0, "request_throughput": 3.99, "p99_ttft_ms": 512.5, "median_itl_ms": 30.2,
                         "ttfts": [0.1] * 240, "date": "20261201"}
    result = sc.compare(runs, OBJECTIVES)
    assert result["runs"][0]["client"] == {"completed": 240, "duration": 60.1, "failed": 0, "median_itl_ms": 30.2, "p99_ttft_ms": 512.5,
                                           "request_throughput": 3.99}
    assert result["runs"][1]["client"] is None
    assert result["runs"][0]["command"] == ["vllm", "bench", "serve", "--seed", "1"]


@pytest.mark.parametrize("q, label", [(0.5, "p50"), (0.95, "p95"), (0.999, "p99.9")])
def test_quantile_labels(q, label):
    assert stats.quantile_label(q) == label


def test_difference_rule():
    base = stats.spread([1.0, 1.2, 1.1])
    assert base == {"min": 1.0, "median": 1.1, "max": 1.2, "values": [1.0, 1.2, 1.1]}
    assert stats.difference(base, stats.spread([1.15, 1.3, 1.25]))["finding"] == "no measurable difference (the ranges 1-1.2 and 1.15-1.3 overlap)"
    higher = stats.difference(base, stats.spread([1.5, 1.6, 1.7]))
    assert higher["beyond_spread"] == pytest.approx(0.3)
    assert higher["finding"] == "canary higher by 0.3 (27.3% of the baseline median) beyond the run-to-run spread"
    assert stats.difference(base, stats.spread([1.0, None, 1.0]))["finding"] == "unknown: a repetition has no value"
