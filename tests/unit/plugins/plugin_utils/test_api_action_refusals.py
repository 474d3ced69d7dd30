# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The three API actions refuse bad names, hostile answers and slow servers as failed results, never "unexpected ...".

Against the API server TEST DOUBLE (tests/doubles/apiserver; its request log shows what reached it)
and the hostile servers of the _transition tests (hostile.py, real sockets on 127.0.0.1).
"""

from __future__ import annotations

import time

import pytest

from ansible_collections.gpusmith.numa_gate.plugins.action import kube_node, kubelet_metrics_info, kubelet_verify
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kube_api import transport
from ansible_collections.gpusmith.numa_gate.tests.unit import tree_state
from ansible_collections.gpusmith.numa_gate.tests.unit.plugins.action import in_process
from ansible_collections.gpusmith.numa_gate.tests.unit.plugins.module_utils._transition import hostile


ACTIONS = {"kube_node": kube_node, "kubelet_verify": kubelet_verify, "kubelet_metrics_info": kubelet_metrics_info}
SUBDOMAIN = ("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end "
             "with an alphanumeric character (e.g. 'example.com', regex used for validation is "
             "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')")


@pytest.fixture(name="double")
def fixture_double():
    with in_process.api_double() as started:
        yield started


def run(name, args):
    return in_process.run(ACTIONS[name], args)


@pytest.mark.parametrize("name, extra", [("kube_node", {"state": "cordoned"}), ("kube_node", {"state": "drained"}),
                                         ("kubelet_verify", {"timeout": 0, "stable_s": 0}), ("kubelet_metrics_info", {})])
def test_a_dot_dot_node_is_refused_and_nothing_reaches_the_api(double, tmp_path, name, extra):
    double.add_node("n1")
    kubeconfig = double.write_kubeconfig(tmp_path / "kubeconfig")
    before, seen = tree_state.snapshot(tmp_path), len(double.requests)
    result = run(name, dict(extra, kubeconfig=kubeconfig, node=".."))
    assert result["failed"] is True
    assert result["msg"] == ("node name '..' is not valid: %s (a Kubernetes node name is a DNS-1123 subdomain, as the API server's "
                             "ValidateNodeName checks); nothing was sent" % SUBDOMAIN)
    assert result["changed"] is False
    assert list(double.requests)[seen:] == []
    assert tree_state.snapshot(tmp_path) == before
    assert double.node("n1")["spec"].get("unschedulable") is None


def test_a_drain_whose_pod_list_has_the_wrong_shape_says_it_cordoned(double, tmp_path):
    """The cordon reached the API; the pod list then holds a pod of the wrong shape: the failed result keeps cordoned=True."""
    double.add_node("n1")
    double.add_pod("web-1", "n1", owner_kind="ReplicaSet", owner_name="web")
    with double.store.cond:
        pod = double.store.get("pods", "default", "web-1")
        pod["spec"]["volumes"] = "emptyDir"
        double.store.update("pods", pod, check_version=False)
    kubeconfig = double.write_kubeconfig(tmp_path / "kubeconfig")
    result = run("kube_node", {"kubeconfig": kubeconfig, "node": "n1", "state": "drained"})
    assert result["failed"] is True
    assert result["msg"] == ("drain n1: GET %s/api/v1/pods?fieldSelector=spec.nodeName%%3Dn1: the answer's items[0].spec.volumes is a "
                             "string, expected a list; node n1 stays cordoned (this task cordoned it)" % double.url)
    assert (result["changed"], result["cordoned"], result["was_unschedulable"], result["evicted"]) == (True, True, False, [])
    assert double.node("n1")["spec"]["unschedulable"] is True
    assert [r for r in double.requests if r[0] == "POST"] == []


def test_request_timeout_bounds_each_action_against_a_silent_server(tmp_path):
    silent = hostile.Hostile(hostile.silent)
    try:
        kubeconfig = hostile.write_kubeconfig(tmp_path / "kubeconfig", silent.url)
        before = tree_state.snapshot(tmp_path)
        for name, extra in (("kube_node", {"state": "cordoned"}), ("kubelet_verify", {"timeout": 0, "stable_s": 0}),
                            ("kubelet_metrics_info", {})):
            started = time.monotonic()
            args = dict(extra, kubeconfig=kubeconfig, node="n1", request_timeout=1.5)
            result = tree_state.bounded(lambda name=name, args=args: run(name, args), 15)
            took = time.monotonic() - started
            assert result["failed"] is True, name
            assert result["msg"] == "GET %s/api/v1/nodes/%s: no whole answer within the 1.5s deadline (1 attempt; %s)" % (
                silent.url, "n1/proxy/metrics" if name == "kubelet_metrics_info" else "n1", transport.NO_ANSWER)
            assert 1.4 <= took <= 2.5, (name, took)
        assert tree_state.snapshot(tmp_path) == before
    finally:
        silent.stop()


def test_request_timeout_must_be_positive(tmp_path):
    result = run("kube_node", {"kubeconfig": str(tmp_path / "none"), "node": "n1", "state": "cordoned", "request_timeout": 0})
    assert (result["failed"], result["msg"]) == (True, "request_timeout must be a finite number of seconds above 0, not 0.0")


@pytest.mark.parametrize("previous, message", [
    ({"samples": []}, "previous.timestamp is None, expected a number of seconds (the controller's clock at the scrape)"),
    ({"timestamp": "yesterday", "samples": []}, "previous.timestamp is 'yesterday', expected a number of seconds (the controller's clock at the scrape)"),
    ({"timestamp": 1.0, "samples": {}}, "previous.samples is a dict, expected a list of samples"),
    ({"timestamp": 1.0, "samples": [{"labels": {}, "value": 1, "type": "counter"}]}, "previous.samples[0].name is None, expected a metric name"),
    ({"timestamp": 1.0, "samples": [{"name": "x", "labels": {"a": 1}, "value": 1, "type": "counter"}]},
     "previous.samples[0].labels is {'a': 1}, expected a dict of label names to strings"),
    ({"timestamp": 1.0, "samples": [{"name": "x", "labels": {}, "value": "1", "type": "counter"}]},
     "previous.samples[0].value is '1', expected a number"),
])
def test_a_previous_scrape_of_the_wrong_shape_is_refused_before_any_request(double, tmp_path, previous, message):
    double.add_node("gpu-1")
    kubeconfig = double.write_kubeconfig(tmp_path / "kubeconfig")
    seen = len(double.requests)
    result = run("kubelet_metrics_info", {"kubeconfig": kubeconfig, "node": "gpu-1", "previous": previous})
    assert (result["failed"], result["msg"]) == (True, message)
    assert list(double.requests)[seen:] == []


def test_a_negative_counter_and_a_previous_scrape_of_another_node_are_refused(tmp_path):
    body = ("# TYPE resource_manager_allocations_total counter\n"
            "resource_manager_allocations_total{resource_name=\"cpu\",source=\"pod\"} -3\n")
    metrics_server = hostile.Hostile(hostile.answer(200, body, "text/plain"))
    try:
        kubeconfig = hostile.write_kubeconfig(tmp_path / "kubeconfig", metrics_server.url)
        result = run("kubelet_metrics_info", {"kubeconfig": kubeconfig, "node": "gpu-1"})
        assert (result["failed"], result["msg"]) == (True, 'kubelet metrics: resource_manager_allocations_total{resource_name="cpu",'
                                                           'source="pod"} is -3, and a count cannot be negative; the scrape is refused')
    finally:
        metrics_server.stop()
    good = hostile.Hostile(hostile.answer(200, body.replace("-3", "3"), "text/plain"))
    try:
        kubeconfig = hostile.write_kubeconfig(tmp_path / "kubeconfig", good.url)
        previous = {"node": "gpu-2", "timestamp": 1.0, "samples": []}
        result = run("kubelet_metrics_info", {"kubeconfig": kubeconfig, "node": "gpu-1", "previous": previous})
        assert (result["failed"], result["msg"]) == (True, "previous is a scrape of node 'gpu-2', not of 'gpu-1': rates are between two "
                                                           "scrapes of one kubelet")
        assert good.requests == [("GET", "/api/v1/nodes/gpu-1/proxy/metrics")]
    finally:
        good.stop()
