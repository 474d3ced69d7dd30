"""The service comparison in the record (_record/service_table, service_svg; _evidence/service_compare.metric_outcome): exact rows and lines.

The comparison is the worked example of docs/service-comparison.md (three interleaved repetitions per side from the test service), the one
the record shows; the drawing's geometry is checked on small hand-counted windows.
"""

import pathlib
from xml.etree import ElementTree

import pytest

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._service_comparison import compare as service_compare
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._record.pages import html
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._record.pages import markdown
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._record import record
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._service_comparison.pages import svg as service_svg
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._service_comparison.pages import table as service_table
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._record.errors import RecordError
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._service_comparison.errors import ServiceComparisonError
from ansible_collections.gpusmith.numa_gate.tests.unit.plugins.module_utils._service_comparison import runs_cases as service_runs
from ansible_collections.gpusmith.numa_gate.tests.unit.plugins.module_utils._service_comparison import test_compare_worked_example as worked
from ansible_collections.gpusmith.numa_gate.tests.unit.plugins.module_utils._record import record_inputs as ri

SVG = "{http://www.w3.org/2000/svg}"
DOC = pathlib.Path(__file__).resolve().parents[5] / "docs" / "service-comparison.md"
HEADERS = ["row", "baseline", "canary", "finding"]


@pytest.fixture(name="example", scope="module")
def fixture_example():
    return service_compare.compare(worked.runs(), worked.OBJECTIVES)


def held(example):
    return {"attestations": {"service_objectives": example}}


def test_each_metric_has_its_outcome_from_the_objectives_written_for_it(example):
    latency = example["table"]["latency"]
    assert latency["ttft"]["outcome"] == {"state": "held", "reasons": [
        "p95 ttft <= 1 s: canary held: worst repetition 0.892857 (median 0.75)",
        "no measurable difference at p50, p90, p95, p99: every quantile's ranges overlap"]}
    assert latency["itl"]["outcome"] == {"state": "held", "reasons": [
        "p95 itl not worse than baseline by more than 5% beyond the spread: canary lower by 0.00241217 s (3.4% of the baseline median) beyond "
        "the run-to-run spread; allowed 0.00354221 beyond the spread",
        "p50: canary lower by 0.00314211 s (9.8% of the baseline median) beyond the run-to-run spread",
        "p90: canary lower by 0.00514153 s (8.4% of the baseline median) beyond the run-to-run spread",
        "p95: canary lower by 0.00241217 s (3.4% of the baseline median) beyond the run-to-run spread",
        "p99: canary lower by 0.000851393 s (0.9% of the baseline median) beyond the run-to-run spread"]}


def test_a_metric_without_objective_is_no_measurable_difference_or_shown_unjudged():
    result = service_compare.compare(worked.runs(), [{"metric": "error_ratio", "at_most": 0.01}])
    assert result["table"]["latency"]["ttft"]["outcome"] == {"state": "no measurable difference", "reasons": [
        "no objective was written for vllm:time_to_first_token_seconds",
        "no measurable difference at p50, p90, p95, p99: every quantile's ranges overlap"]}
    assert result["table"]["latency"]["itl"]["outcome"]["state"] == "no objective"
    assert result["table"]["latency"]["itl"]["outcome"]["reasons"][:2] == [
        "no objective was written for vllm:inter_token_latency_seconds",
        "p50: canary lower by 0.00314211 s (9.8% of the baseline median) beyond the run-to-run spread"]


def test_a_failed_objective_is_not_held_on_its_metric_only():
    result = service_compare.compare(worked.runs(), [{"metric": "itl", "quantile": 0.95, "at_most": 0.068}])
    assert result["state"] == "not held"
    assert result["table"]["latency"]["itl"]["outcome"]["state"] == "not held"
    assert result["table"]["latency"]["itl"]["outcome"]["reasons"][0] == "p95 itl <= 0.068 s: canary did not hold: worst repetition 0.0683979 (median 0.067432)"
    assert result["table"]["latency"]["ttft"]["outcome"]["state"] == "no measurable difference"


def test_metric_outcome_incomparable_when_its_objective_was_not_measured(example):
    entry = example["table"]["latency"]["ttft"]
    objective = {"metric": "ttft", "quantile": 0.999, "at_most": 2.0}
    unmeasured = {"objective": "p99.9 ttft <= 2 s", "held": None, "detail": "p99.9 ttft <= 2 s was not measured on both sides"}
    other = {"metric": "itl", "quantile": 0.5, "at_most": 1.0}
    checked = [{"objective": "p50 itl <= 1 s", "held": True, "detail": "x"}, unmeasured]
    assert service_compare.metric_outcome("ttft", entry, [other, objective], checked) == {
        "state": "incomparable", "reasons": ["p99.9 ttft <= 2 s was not measured on both sides",
                                             "no measurable difference at p50, p90, p95, p99: every quantile's ranges overlap"]}
    unknown = dict(entry, quantiles={"p50": dict(entry["quantiles"]["p50"], beyond_spread=None, finding="unknown: a repetition has no value")})
    assert service_compare.metric_outcome("ttft", unknown, [], []) == {"state": "incomparable", "reasons": ["p50: unknown: a repetition has no value"]}


def test_the_metric_table_is_the_comparisons_numbers(example):
    found = service_table.sections(held(example))
    assert [title for title, _headers, _rows in found] == [
        "Service comparison", "Service metric ttft: vllm:time_to_first_token_seconds", "Service metric itl: vllm:inter_token_latency_seconds",
        "Service runs"]
    title, headers, rows = found[1]
    assert headers == HEADERS
    assert rows == [
        ["p50 (s): min / median / max", "0.207308 / 0.208394 / 0.228378", "0.205814 / 0.206015 / 0.222619",
         "no measurable difference (the ranges 0.207308-0.228378 and 0.205814-0.222619 overlap)"],
        ["p90 (s): min / median / max", "0.558824 / 0.571429 / 0.663462", "0.511364 / 0.529412 / 0.64",
         "no measurable difference (the ranges 0.558824-0.663462 and 0.511364-0.64 overlap)"],
        ["p95 (s): min / median / max", "0.75 / 0.805556 / 0.85", "0.681818 / 0.75 / 0.892857",
         "no measurable difference (the ranges 0.75-0.85 and 0.681818-0.892857 overlap)"],
        ["p99 (s): min / median / max", "1.75 / 1.9375 / 1.9375", "1.75 / 2.07143 / 2.125",
         "no measurable difference (the ranges 1.75-1.9375 and 1.75-2.125 overlap)"],
        ["observations per repetition", "300, 300, 300", "300, 300, 300", ""],
        ["window duration per repetition (s)", "60, 60, 60", "60, 60, 60", ""],
        ["bucket upper bounds (s)", "0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0, 20.0, 40.0, 80.0, "
         "160.0, 640.0, 2560.0, +Inf (23 buckets)", "the same", "the same in every window (the comparison refuses different buckets)"],
        ["outcome", "", "", "held"],
        ["why", "", "", "p95 ttft <= 1 s: canary held: worst repetition 0.892857 (median 0.75)"],
        ["why", "", "", "no measurable difference at p50, p90, p95, p99: every quantile's ranges overlap"]]
    assert title == service_table.metric_title("ttft", example["table"]["latency"]["ttft"])
    # The finding's range is the min and max shown beside it (one format, no recomputation).
    p95 = example["table"]["latency"]["ttft"]["quantiles"]["p95"]
    assert "%s-%s" % (service_table.number(p95["canary"]["min"]), service_table.number(p95["canary"]["max"])) in p95["finding"]


def test_the_summary_says_each_objective_once(example):
    _title, headers, rows = service_table.sections(held(example))[0]
    assert headers == ["item", "baseline", "canary", "finding"]
    assert rows == [
        ["state", "", "", "held"],
        ["warning", "", "", "no prefix cache hit and query counters on both sides: prompt-prefix reuse is not shown to be controlled"],
        ["repetitions", "3", "3", "warmups excluded: 2"],
        ["objective: held", "", "", "p95 ttft <= 1 s: canary held: worst repetition 0.892857 (median 0.75)"],
        ["objective: held", "", "", "p95 itl not worse than baseline by more than 5% beyond the spread: canary lower by 0.00241217 s (3.4% of the "
         "baseline median) beyond the run-to-run spread; allowed 0.00354221 beyond the spread"],
        ["objective: held", "", "", "error ratio <= 0.01: canary held: worst repetition 0.00333333 (median 0.00333333)"],
        ["objective: held", "", "", "throughput not lower than baseline by more than 5% beyond the spread: no measurable difference (the ranges "
         "4.98333-4.98333 and 4.98333-4.98333 overlap); allowed 0.249167 beyond the spread"],
        ["completed throughput (req/s): min / median / max", "4.98333 / 4.98333 / 4.98333", "4.98333 / 4.98333 / 4.98333",
         "no measurable difference (the ranges 4.98333-4.98333 and 4.98333-4.98333 overlap)"],
        ["error ratio: min / median / max", "0.00333333 / 0.00333333 / 0.00333333", "0.00333333 / 0.00333333 / 0.00333333",
         "no measurable difference (the ranges 0.00333333-0.00333333 and 0.00333333-0.00333333 overlap)"],
        ["measured request rate (req/s): min / median / max", "5 / 5 / 5", "5 / 5 / 5", "no measurable difference (the ranges 5-5 and 5-5 overlap)"],
        ["prefix cache hit ratio", "unknown", "unknown", ""]]


def test_a_refused_comparison_shows_its_refusals_and_no_table():
    runs = service_runs.interleaved(canary={"images": {"server": "docker.io/vllm/vllm-openai@sha256:" + "b" * 64}})
    refused = service_compare.compare(runs, [{"metric": "ttft", "quantile": 0.95, "at_most": 0.5}])
    found = service_table.sections(held(refused))
    assert [title for title, _headers, _rows in found] == ["Service comparison", "Service runs"]
    rows = found[0][2]
    assert rows[0] == ["state", "", "", "incomparable"]
    assert rows[1] == ["reason", "", "", "image digests differ for container server: baseline repetition 1 runs sha256:%s, canary repetition 1 runs "
                                         "sha256:%s" % ("a" * 64, "b" * 64)]
    assert rows[-1] == ["table", "", "", "none: the comparison was refused, so no quantile is compared"]
    assert service_svg.drawings(held(refused)) == []


def test_a_result_without_table_and_no_result_at_all():
    trimmed = {"state": "held", "repetitions": {"baseline": 3, "canary": 3}, "reasons": ["p95 ttft <= 0.5 s: canary held: worst repetition 0.48"]}
    assert service_table.sections(held(trimmed)) == [("Service comparison", ["item", "baseline", "canary", "finding"], [
        ["state", "", "", "held"], ["reason", "", "", "p95 ttft <= 0.5 s: canary held: worst repetition 0.48"], ["repetitions", "3", "3", ""]])]
    assert service_svg.drawings(held(trimmed)) == []
    assert service_table.sections({"attestations": {"service_objectives": None}}) == [("Service comparison", None, None)]


def test_a_table_of_the_wrong_shape_is_named_by_its_path(example):
    broken = dict(example, table=dict(example["table"], latency={"ttft": dict(example["table"]["latency"]["ttft"], cumulative={
        "baseline": [[["0.1", 1.0], ["nan", 2.0]]], "canary": []})}))
    with pytest.raises(ServiceComparisonError) as caught:
        service_table.sections(held(broken))
    assert str(caught.value) == ("record.attestations.service_objectives.table.latency.ttft.cumulative.baseline[0][1] must be a bucket "
                                 "[le (a string such as \"0.5\" or \"+Inf\"), count (a number)], got ['nan', 2.0]")
    with pytest.raises(RecordError) as in_the_record:  # the record's pages name their own error
        service_table.sections(held(broken), RecordError)
    assert str(in_the_record.value) == str(caught.value)
    with pytest.raises(ServiceComparisonError) as caught:
        service_svg.drawings(held(dict(example, table={"latency": {"ttft": {"buckets": []}}})))
    assert str(caught.value) == ("record.attestations.service_objectives.table.latency.ttft has no quantiles: a latency metric of the "
                                 "comparison's table has buckets, cumulative, observations, quantiles")


def entry(canary_counts, bounds=("0.1", "0.2", "0.3", "0.4"), name="vllm:time_to_first_token_seconds"):
    def buckets(counts):
        return [[le, float(count)] for le, count in zip(bounds + ("+Inf",), counts)]
    spread = {"min": 0.2, "median": 0.2, "max": 0.2, "values": [0.2]}
    return {"name": name, "buckets": list(bounds) + ["+Inf"], "observations": {"baseline": [10.0], "canary": [10.0]},
            "quantiles": {"p50": {"baseline": spread, "canary": dict(spread, values=[0.25]), "finding": "f", "beyond_spread": 0.0}},
            "cumulative": {"baseline": [buckets((0, 5, 10, 10, 10))], "canary": [buckets(canary_counts)]}}


def test_scale_is_log_for_exponential_buckets_only():
    assert service_svg.scale(list(map(repr, service_runs.TTFT)) + ["+Inf"]) == "log"
    assert service_svg.scale(["0.1", "0.2", "0.3", "0.4", "+Inf"]) == "linear"
    assert service_svg.scale(["0", "0.1", "100", "+Inf"]) == "linear"
    assert service_svg.scale(["1", "99.9"]) == "linear" and service_svg.scale(["1", "100"]) == "log"


def test_points_trim_the_flat_ends_and_keep_the_inf_bucket():
    assert service_svg.points(entry((0, 2, 8, 10, 10))) == {"scale": "linear", "bounds": [0.1, 0.2, 0.3, 0.4], "inf": False, "lines": [
        ("baseline", 1, [0.0, 0.5, 1.0, 1.0]), ("canary", 1, [0.0, 0.2, 0.8, 1.0])]}
    assert service_svg.points(entry((0, 2, 8, 9, 10))) == {"scale": "linear", "bounds": [0.1, 0.2, 0.3, 0.4], "inf": True, "lines": [
        ("baseline", 1, [0.0, 0.5, 1.0, 1.0]), ("canary", 1, [0.0, 0.2, 0.8, 0.9])]}
    wide = entry((0, 0, 0, 4, 10, 10, 10), bounds=("0.01", "0.1", "1", "10", "100", "1000"))
    wide["cumulative"]["baseline"] = [[[le, count] for le, count in zip(wide["buckets"], (0.0, 0.0, 5.0, 10.0, 10.0, 10.0, 10.0))]]
    assert service_svg.points(wide) == {"scale": "log", "bounds": [0.1, 1.0, 10.0, 100.0], "inf": False, "lines": [
        ("baseline", 1, [0.0, 0.5, 1.0, 1.0]), ("canary", 1, [0.0, 0.0, 0.4, 1.0])]}


def polylines(svg_text):
    root = ElementTree.fromstring(svg_text)
    return root, [(p.get("data-side"), p.get("data-repetition"), p.get("class"), p.get("points"), p.find(SVG + "title").text)
                  for p in root.iter(SVG + "polyline")]


def test_drawing_exact_lines_on_a_linear_axis():
    root, lines = polylines(service_svg.drawing("ttft", entry((0, 2, 8, 9, 10)), "d0"))
    assert lines == [
        ("baseline", "1", "service-line side-baseline", "56.0,254.0 224.0,147.0 392.0,40.0 560.0,40.0 578.0,40.0",
         "ttft baseline repetition 1: 10 observations; p50 0.2 s"),
        ("canary", "1", "service-line side-canary", "56.0,254.0 224.0,211.2 392.0,82.8 560.0,61.4 578.0,40.0",
         "ttft canary repetition 1: 10 observations; p50 0.25 s")]
    assert root.get("aria-labelledby") == "d0-title d0-desc" and root.get("data-scale") == "linear" and root.get("role") == "img"
    assert root.find(SVG + "title").get("id") == "d0-title"
    assert root.find(SVG + "desc").text == ("One line per repetition: 1 baseline (solid), 1 canary (dashed); x the bucket upper bound in seconds, "
                                            "linear scale; y the cumulative fraction of the window's observations.")
    texts = [t.text for t in root.iter(SVG + "text")]
    assert texts[:2] == ["baseline (1 repetition)", "canary (1 repetition)"]
    assert "+Inf" in texts and "bucket upper bound (s), linear scale" in texts


def test_the_example_draws_one_line_per_repetition_and_side(example):
    found = service_svg.drawings(held(example))
    assert [title for title, _svg in found] == ["Service metric ttft: vllm:time_to_first_token_seconds",
                                                "Service metric itl: vllm:inter_token_latency_seconds"]
    for index, (_title, svg_text) in enumerate(found):
        root, lines = polylines(svg_text)
        assert (root.get("data-kind"), root.get("data-scale"), root.get("aria-labelledby")) == (
            "service-drawing", "log", "service-drawing-%d-title service-drawing-%d-desc" % (index, index))
        assert [(side, number) for side, number, _cls, _points, _title in lines] == [
            ("baseline", "1"), ("baseline", "2"), ("baseline", "3"), ("canary", "1"), ("canary", "2"), ("canary", "3")]
        assert all(len(points.split()) >= 3 for _side, _number, _cls, points, _title in lines)
    _root, lines = polylines(found[0][1])
    assert lines[0][4] == "ttft baseline repetition 1: 300 observations; p50 0.208394 s, p90 0.558824 s, p95 0.805556 s, p99 1.9375 s"


def test_hostile_metric_names_are_text():
    hostile = '<script>alert("x")</script> & \'q\''
    svg_text = service_svg.drawing('tt"ft', entry((0, 2, 8, 10, 10), name=hostile), "d1")
    assert "<script>" not in svg_text
    root = ElementTree.fromstring(svg_text)
    assert root.get("data-metric") == 'tt"ft'
    assert root.find(SVG + "title").text == "Cumulative distributions of %s (tt\"ft), baseline and canary" % hostile


def test_the_page_and_the_markdown_show_the_comparison(tmp_path, example):
    facts = ri.h200_facts()
    inputs = dict(ri.full_inputs(str(tmp_path), facts), service_objectives=example)
    built = record.build(facts, "h200-vm", inputs)
    page = html.page(built)
    assert page.count('data-kind="service-drawing"') == 2 and page.count('data-kind="service-line"') == 12
    assert page.count('data-side="baseline"') == 6 and page.count('data-side="canary"') == 6
    text = markdown.render(built)
    assert "| service_objectives | held (measured: see Service comparison) |" in text
    assert "| p95 (s): min / median / max | 0.75 / 0.805556 / 0.85 | 0.681818 / 0.75 / 0.892857 | no measurable difference" in text


def metric_section(text, key):
    start = text.index("## Service metric %s:" % key)
    return text[start:text.index("\n## ", start)].rstrip()


def test_the_worked_example_in_the_docs_is_the_records_markdown(tmp_path, example):
    facts = ri.h200_facts()
    built = record.build(facts, "h200-vm", dict(ri.full_inputs(str(tmp_path), facts), service_objectives=example))
    text = markdown.render(built)
    doc = DOC.read_text()
    for key in ("ttft", "itl"):
        assert metric_section(text, key).replace("## ", "#### ", 1) in doc, metric_section(text, key)
