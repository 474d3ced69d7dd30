# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""pod_metrics: the workload's own pods read through the API double's pod proxy (two prometheus-client services on 127.0.0.1
standing in for two pods' servers), the window across both pods, and each refusal with its exact message."""

import pytest

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base.errors import NumaGateError
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._service_comparison import pod_metrics
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._service_comparison import window as service_window
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._service_comparison.errors import ServiceComparisonError
from ansible_collections.gpusmith.numa_gate.tests.prometheus.vllm_like_service import Service


@pytest.fixture(name="pods")
def fixture_pods(double):
    """Two pods of the workload on node-1, each pod proxy (port 8000) sent to its own test service; [(subject, service)]."""
    double.add_node("node-1")
    found = []
    for index, seed in enumerate((19, 20)):
        pod = double.add_pod("server-%d" % index, "node-1", namespace="serving")
        service = Service(seed=seed)
        double.register_pod_endpoint("serving", "server-%d" % index, 8000, "http://127.0.0.1:%d" % service.port)
        found.append(({"pod": "serving/server-%d" % index, "uid": pod["metadata"]["uid"], "node": "node-1"}, service))
    yield found
    for unused_subject, service in found:
        service.close()


def test_the_window_of_two_pods_read_through_the_pod_proxy(double, kube, pods):
    subjects = [subject for subject, unused_service in pods]
    first = pod_metrics.read_pods(kube, subjects, 8000, clock=lambda: 100.0)
    pods[0][1].observe(30)
    pods[1][1].observe(20, errors=2)
    second = pod_metrics.read_pods(kube, subjects, 8000, clock=lambda: 160.0)
    assert [entry["pod"] for entry in second["pods"]] == ["serving/server-0", "serving/server-1"]
    assert (second["timestamp"], second["via"]) == (160.0, "pod proxy :8000/metrics")
    window = service_window.pods_window(first, second)
    assert (window["source"], window["start"], window["end"], window["duration"]) == ("scrape", 100.0, 160.0, 60.0)
    assert window["pods"] == [{"pod": subject["pod"], "uid": subject["uid"]} for subject in sorted(subjects, key=lambda s: s["uid"])]
    # 30 + 20 requests, 10 inter-token gaps each: every pod's series counted once, summed over the two pods.
    assert (window["metrics"]["ttft"]["count"], window["metrics"]["itl"]["count"], window["metrics"]["ttft"]["series"]) == (50.0, 500.0, 2)
    assert window["metrics"]["requests"]["total"] == 50.0
    assert sorted((entry["labels"]["__pod__"], entry["labels"]["finished_reason"], entry["increase"])
                  for entry in window["metrics"]["requests"]["by"] if entry["increase"]) == [
        ("serving/server-0", "stop", 30.0), ("serving/server-1", "error", 2.0), ("serving/server-1", "stop", 18.0)]
    paths = [path for unused_method, path in double.requests if "/proxy/" in path]
    assert paths == ["/api/v1/namespaces/serving/pods/server-0:8000/proxy/metrics", "/api/v1/namespaces/serving/pods/server-1:8000/proxy/metrics"] * 2


def test_a_pod_recreated_under_its_name_or_gone_is_not_read(double, kube, pods):
    subject = dict(pods[0][0])
    with pytest.raises(ServiceComparisonError) as caught:
        pod_metrics.read_pods(kube, [dict(subject, uid="0000-old")], 8000)
    assert str(caught.value) == ("pod serving/server-0 is now uid %s, not 0000-old: another pod under the same name; its metrics are not read"
                                 % subject["uid"])
    with pytest.raises(ServiceComparisonError) as caught:
        pod_metrics.read_pods(kube, [dict(subject, pod="serving/server-9")], 8000)
    assert str(caught.value) == "pod serving/server-9 (uid %s) is gone: the workload's pod whose service is compared is no longer there" % subject["uid"]
    assert not [path for unused_method, path in double.requests if "/proxy/" in path]


def test_pods_read_at_one_end_only_make_no_window(kube, pods):
    subjects = [subject for subject, unused_service in pods]
    first = pod_metrics.read_pods(kube, subjects[:1], 8000, clock=lambda: 100.0)
    second = pod_metrics.read_pods(kube, subjects, 8000, clock=lambda: 160.0)
    with pytest.raises(ServiceComparisonError) as caught:
        service_window.pods_window(first, second)
    assert str(caught.value) == ("the pods read at the start and at the end differ (only at the start: none; only at the end: serving/server-1 "
                                 "(uid %s)): a window is the same pods' counters at both ends" % subjects[1]["uid"])


@pytest.mark.parametrize("pods, port, path, message", [
    ([{"pod": "serving/server-0", "uid": "u"}], 0, "metrics", "metrics_port 0 is not a TCP port (an integer from 1 to 65535)"),
    ([{"pod": "serving/server-0", "uid": "u"}], 8000, "../nodes/x", "metrics_path '../nodes/x' is not a relative path of plain segments (such as metrics)"),
    ([{"pod": "serving/server-0", "uid": "u"}], 8000, "metrics?x=1", "metrics_path 'metrics?x=1' is not a relative path of plain segments (such as metrics)"),
    ([], 8000, "metrics", "pods must be a non-empty list of the workload's pods ({pod: <namespace>/<name>, uid}), got []"),
    (["http://10.0.0.5:8000/metrics"], 8000, "metrics", "pods[0] must be a mapping with pod (<namespace>/<name>) and uid, got 'http://10.0.0.5:8000/metrics'"),
    ([{"pod": "serving/server-0"}], 8000, "metrics", "pods[0] (serving/server-0) has no uid: the pod is named by its uid, so that a pod recreated "
                                                     "under its name is not read as it"),
    ([{"pod": "serving/server-0", "uid": "u"}, {"pod": "serving/server-1", "uid": "u"}], 8000, "metrics",
     "pods[1]: the pod of uid u is given twice: its counters would be counted twice"),
])
def test_bad_pods_are_refused_before_any_read(pods, port, path, message):
    with pytest.raises(ServiceComparisonError) as caught:
        pod_metrics.check_pods(pods, port, path)
    assert str(caught.value) == message


def test_a_pod_name_that_is_no_name_is_refused():
    with pytest.raises(NumaGateError, match="pods\\[0\\] name"):
        pod_metrics.check_pods([{"pod": "serving/Server_0", "uid": "u"}], 8000, "metrics")


def test_the_proxy_path_quotes_each_segment():
    assert pod_metrics.proxy_path("serving", "server-0", 8000, "metrics") == "/api/v1/namespaces/serving/pods/server-0:8000/proxy/metrics"
