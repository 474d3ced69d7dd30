"""The service comparison's load runs (_evidence/service_runs.py): the interleaved plan, the rendered argv and Job, the refusals
with their exact messages, and the record joined with the comparison."""

import re

import pytest

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._service_comparison.errors import ServiceComparisonError
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._service_comparison import runs as service_runs
from ansible_collections.gpusmith.numa_gate.tests.unit.plugins.module_utils._service_comparison import runs_cases as sr

IDENTITY = {"images": sr.IMAGES, "model": "m", "runtime": "vllm 0.12.0"}
JOB = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "bench"},
       "spec": {"template": {"spec": {"restartPolicy": "Never", "containers": [
           {"name": "bench", "image": "docker.io/vllm/vllm-openai@sha256:" + "b" * 64,
            "args": ["bench", "serve", "--base-url", "{target_url}", "--request-rate", "{request_rate}"]}]}}}}


def settings(**changes):
    given = {"repetitions": 3, "command": ["vllm", "bench", "serve", "--base-url", "{target_url}", "--request-rate", "{request_rate}",
                                           "--max-concurrency", "{max_concurrency}", "--seed", "{repetition}", "--save-result",
                                           "--result-filename", "{result_file}"],
             "load": {"request_rate": 4.0, "max_concurrency": 16, "burstiness": 0.5}, "result_dir": "/var/tmp/bench/",
             "baseline": {"target_url": "http://user:s3cret@10.0.0.5:8000", "metrics_url": "http://10.0.0.5:8000/metrics", "identity": IDENTITY},
             "canary": {"target_url": "http://10.0.0.6:8000", "prometheus_url": "http://prometheus:9090", "match": {"namespace": "canary"},
                        "identity": IDENTITY}}
    given.update(changes)
    return given


def test_the_plan_interleaves_the_sides_and_renders_each_run():
    windows = service_runs.plan(settings(warmup_seconds=30))
    assert [(entry["window"], entry["side"], entry["repetition"]) for entry in windows] == [
        (1, "baseline", 1), (2, "canary", 1), (3, "baseline", 2), (4, "canary", 2), (5, "baseline", 3), (6, "canary", 3)]
    first, second = windows[0], windows[1]
    assert first["measure"] == {"phase": "measure", "stop_after": None, "result_file": "/var/tmp/bench/01-baseline-1-measure.json",
                                "argv": ["vllm", "bench", "serve", "--base-url", "http://user:s3cret@10.0.0.5:8000", "--request-rate", "4",
                                         "--max-concurrency", "16", "--seed", "1", "--save-result", "--result-filename",
                                         "/var/tmp/bench/01-baseline-1-measure.json"]}
    # The warmup is the same command with phase warmup, stopped after its duration; its result file is its own.
    assert first["warmup"]["stop_after"] == 30.0
    assert first["warmup"]["argv"][-1] == "/var/tmp/bench/01-baseline-1-warmup.json"
    assert (first["target_url"], first["read"]) == ("http://********@10.0.0.5:8000", {"metrics_url": "http://10.0.0.5:8000/metrics"})
    assert second["read"] == {"prometheus_url": "http://prometheus:9090", "match": {"namespace": "canary"}}
    assert (second["identity"], second["load"]) == (IDENTITY, {"request_rate": 4.0, "max_concurrency": 16, "burstiness": 0.5})
    assert windows[5]["measure"]["argv"][4:6] == ["http://10.0.0.6:8000", "--request-rate"]


def test_a_warmup_run_and_no_warmup():
    windows = service_runs.plan(settings(warmup_command=["warm", "{target_url}", "{phase}", "{window}"]))
    assert windows[3]["warmup"] == {"phase": "warmup", "stop_after": None, "result_file": "/var/tmp/bench/04-canary-2-warmup.json",
                                    "argv": ["warm", "http://10.0.0.6:8000", "warmup", "4"]}
    assert service_runs.plan(settings())[0]["warmup"] is None


def test_a_job_per_run_named_and_labelled_after_it():
    windows = service_runs.plan(settings(command=[], job=JOB, warmup_seconds=10))
    job = windows[1]["measure"]["job"]
    assert job["metadata"] == {"name": "bench-canary-1", "namespace": "default",
                               "labels": {"numa-gate/side": "canary", "numa-gate/repetition": "1", "numa-gate/phase": "measure"}}
    assert job["spec"]["template"]["spec"]["containers"][0]["args"] == ["bench", "serve", "--base-url", "http://10.0.0.6:8000",
                                                                        "--request-rate", "4"]
    assert windows[1]["warmup"]["job"]["metadata"]["name"] == "bench-canary-1-warmup"
    assert JOB["metadata"] == {"name": "bench"}


@pytest.mark.parametrize("changes, message", [
    ({"repetitions": 2}, "service_comparison_repetitions must be a whole number of at least 3 (repetitions per side, interleaved A B A B), got 2"),
    ({"repetitions": True}, "service_comparison_repetitions must be a whole number of at least 3 (repetitions per side, interleaved A B A B), got True"),
    ({"repetitions": 1001}, "service_comparison_repetitions 1001 is above the limit of 1000 (each repetition is two load runs, "
                            "one per side); not planned"),
    ({"job": JOB}, "give exactly one load generator: service_comparison_command (an argv run on the controller) or service_comparison_job "
                   "(a Job manifest created through the API), got both"),
    ({"command": []}, "give exactly one load generator: service_comparison_command (an argv run on the controller) or service_comparison_job "
                      "(a Job manifest created through the API), got neither"),
    ({"command": "vllm bench serve"}, "service_comparison_command must be a list of strings (an argv, run without a shell), got 'vllm bench serve'"),
    ({"command": ["load", "--rate={rate}"]}, "service_comparison_command[1] names {rate}, which is no placeholder (known: {request_rate}, "
                                             "{max_concurrency}, {burstiness}, {target_url}, {side}, {repetition}, {window}, {phase}, {result_file})"),
    ({"warmup_job": JOB}, "the warmup runs the same kind of load generator as the measured part: service_comparison_warmup_command goes with "
                          "service_comparison_command, service_comparison_warmup_job with service_comparison_job"),
    ({"warmup_seconds": -1}, "service_comparison_warmup_seconds must be a finite number of 0 or more, got -1"),
    ({"load": {"side": "a"}}, "service_comparison_load key 'side' cannot be a placeholder: keys are names of letters, digits and '_', none of "
                              "target_url, side, repetition, window, phase, result_file"),
    ({"baseline": {"target_url": "http://b", "metrics_url": "http://b/metrics", "prometheus_url": "http://p"}},
     "service_comparison_baseline needs exactly one of metrics_url (two scrapes of the service), metrics_port (with pods: two reads of the "
     "workload's pods through the API's pod proxy) and prometheus_url (a query), got metrics_url, prometheus_url"),
    ({"baseline": {"target_url": "http://b", "metrics_port": 8000}},
     "service_comparison_baseline.metrics_port needs pods (the workload's pods, {pod: <namespace>/<name>, uid}): the pod proxy reads pods, "
     "not a URL"),
    ({"canary": {"metrics_url": "http://c/metrics"}}, "service_comparison_canary.target_url must be the URL the load generator drives (a string), "
                                                      "got None"),
    ({"canary": None}, "service_comparison_canary must be a mapping (target_url, metrics_url, metrics_port with pods or prometheus_url, identity), "
                       "got None"),
    ({"command": [], "job": dict(JOB, kind="Pod")}, "service_comparison_job must be a batch/v1 Job, got apiVersion 'batch/v1' kind 'Pod'"),
    ({"command": [], "job": dict(JOB, metadata={"name": "b" * 60})},
     "service_comparison_job.metadata.name '%s' gives the Job name '%s-baseline-1': a Job's name must be a DNS label (lower case letters, "
     "digits and '-', at most 63 characters)" % ("b" * 60, "b" * 60)),
    ({"result_dir": ""}, "the result folder must be a path, got ''"),
])
def test_refusals_name_the_value_and_the_rule(changes, message):
    with pytest.raises(ServiceComparisonError, match="^%s$" % re.escape(message)):
        service_runs.plan(settings(**changes))


def test_a_brace_that_is_no_placeholder_name_is_left_alone():
    assert service_runs.render('{"temperature": 0} {side}', {"side": "canary"}, "argv[0]") == '{"temperature": 0} canary'


def _done(windows, warmup=True):
    """Each planned window run: synthetic windows (tests' service_runs helper) 100 s apart, the load inside the measured part."""
    done = []
    for entry in windows:
        start = 1000.0 + 100 * entry["window"]
        window = sr.run(entry["side"], start, entry["window"])["window"]
        item = {"plan": entry, "window": window, "load": {"start": start + 1, "end": start + 59, "exit_status": 0, "outcome": "exit status 0",
                                                          "stopped": False, "result_file": None, "client": {"completed": 240, "backend": "x"}}}
        if warmup:
            item["warmup_window"] = sr.run(entry["side"], start - 40, 50 + entry["window"], duration=30.0)["window"]
            item["warmup_load"] = {"start": start - 39, "end": start - 11, "exit_status": -15, "outcome": "stopped after 30 s", "stopped": True}
        done.append(item)
    return done


def test_the_record_joins_what_ran_with_the_comparison():
    windows = service_runs.plan(settings(warmup_seconds=30, canary=dict(settings()["canary"], prometheus_url=None,
                                                                        metrics_url="http://10.0.0.6:8000/metrics")))
    result = service_runs.compare(_done(windows), [{"metric": "error_ratio", "at_most": 0.01}])
    assert (result["state"], result["warmups_excluded"], result["repetitions"]) == ("held", 6, {"baseline": 3, "canary": 3})
    assert [(run["window"], run["side"], run["repetition"], run["number"]) for run in result["runs"]] == [
        (1, "baseline", 1, 1), (2, "canary", 1, 1), (3, "baseline", 2, 2), (4, "canary", 2, 2), (5, "baseline", 3, 3), (6, "canary", 3, 3)]
    first = result["runs"][0]
    assert first == {
        "window": 1, "side": "baseline", "repetition": 1, "number": 1, "target_url": "http://********@10.0.0.5:8000",
        "load": {"request_rate": 4.0, "max_concurrency": 16, "burstiness": 0.5}, "identity": IDENTITY, "source": "scrape",
        "client": {"completed": 240}, "pods": None, "cpu": None,
        "argv": ["vllm", "bench", "serve", "--base-url", "http://********@10.0.0.5:8000", "--request-rate", "4", "--max-concurrency", "16",
                 "--seed", "1", "--save-result", "--result-filename", "/var/tmp/bench/01-baseline-1-measure.json"],
        "start": 1100.0, "end": 1160.0, "load_start": 1101.0, "load_end": 1159.0, "exit_status": 0, "outcome": "exit status 0",
        "stopped": False, "result_file": None,
        "warmup": {"argv": ["vllm", "bench", "serve", "--base-url", "http://********@10.0.0.5:8000", "--request-rate", "4",
                            "--max-concurrency", "16", "--seed", "1", "--save-result", "--result-filename",
                            "/var/tmp/bench/01-baseline-1-warmup.json"],
                   "start": 1060.0, "end": 1090.0, "load_start": 1061.0, "load_end": 1089.0, "exit_status": -15,
                   "outcome": "stopped after 30 s", "stopped": True, "result_file": None}}
    # The comparison saw the warmups as warmups, in the order they ran, and the masked argv as each run's command.
    runs = service_runs.comparison_runs(_done(windows))
    assert [(run["side"], run["warmup"]) for run in runs[:4]] == [("baseline", True), ("baseline", False), ("canary", True), ("canary", False)]
    assert runs[1]["command"] == first["argv"] and runs[1]["client"] == {"completed": 240, "backend": "x"}


def test_a_window_without_its_parts_is_refused():
    windows = service_runs.plan(settings(warmup_seconds=30))
    with pytest.raises(ServiceComparisonError, match=r"^windows\[0\] planned a warmup but has no warmup_window \(service_window's window of the warmup\)$"):
        service_runs.compare(_done(windows, warmup=False), [])
    wrong = (r"^windows\[1\] must be a mapping with plan, load \(service_load's result\) and window "
             r"\(service_window's\), got \['plan'\]$")
    with pytest.raises(ServiceComparisonError, match=wrong):
        service_runs.compare([_done(windows)[0], {"plan": {}}], [])


def _canary_with_pods(**changes):
    return dict(dict(settings()["canary"], pods=[{"pod": "canary/server-0", "uid": "u-1", "node": "gpu-1"}]), **changes)


def test_prometheus_with_the_canary_pod_reads_that_pod_by_its_labels():
    windows = service_runs.plan(settings(canary=_canary_with_pods()))
    assert [entry["read"]["match"] for entry in windows if entry["side"] == "canary"] == [{"namespace": "canary", "pod": "server-0"}] * 3
    assert [entry["read"].get("match") for entry in windows if entry["side"] == "baseline"] == [None] * 3
    # Other label names (a scrape config's relabelling), with the operator's own match kept beside them.
    labels = {"namespace": "kubernetes_namespace", "pod": "kubernetes_pod_name"}
    windows = service_runs.plan(settings(canary=_canary_with_pods(match={"model_name": "m"}, pod_labels=labels)))
    assert windows[1]["read"]["match"] == {"model_name": "m", "kubernetes_namespace": "canary", "kubernetes_pod_name": "server-0"}


def test_prometheus_with_several_pods_reads_any_of_them_by_their_labels():
    pods = [{"pod": "canary/server-1", "uid": "u-2"}, {"pod": "canary/server-0", "uid": "u-1"}]
    windows = service_runs.plan(settings(canary=_canary_with_pods(pods=pods)))
    assert windows[1]["read"]["match"] == {"namespace": "canary", "pod": ["server-0", "server-1"]}
    pods.append({"pod": "other/server-0", "uid": "u-3"})
    windows = service_runs.plan(settings(canary=_canary_with_pods(pods=pods, match={})))
    assert windows[1]["read"]["match"] == {"namespace": ["canary", "other"], "pod": ["server-0", "server-1"]}


@pytest.mark.parametrize("canary, message", [
    (_canary_with_pods(pods=[{"pod": "server-0", "uid": "u-1"}]),
     "service_comparison_canary: prometheus_url with pods reads the pods ({pod: <namespace>/<name>, uid} each) by their labels, got "
     "[{'pod': 'server-0', 'uid': 'u-1'}]"),
    (_canary_with_pods(match={"pod": "other-0"}),
     "service_comparison_canary.match pod='other-0' is not the pods' 'server-0': the query would read other pods' series"),
    (_canary_with_pods(pod_labels=["pod"]), "service_comparison_canary.pod_labels must map namespace and/or pod to label names, got ['pod']"),
])
def test_prometheus_with_pods_refusals(canary, message):
    with pytest.raises(ServiceComparisonError) as caught:
        service_runs.plan(settings(canary=canary))
    assert str(caught.value) == message
