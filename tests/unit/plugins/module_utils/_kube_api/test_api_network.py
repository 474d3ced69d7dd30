# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The API client's calls the transition makes (api.py) against real hostile servers on 127.0.0.1: node names, answers of the
wrong shape (the deadlines, size bounds, kubeconfig and masking of the client itself: test_transport.py; /configz of the wrong
shape: _transition/api/test_configz.py).

Each case runs the real kubernetes client's loader and the collection's transport against a server
in a thread (hostile.py) that never answers, trickles a byte every 2 s, sends a body that never
ends, announces a huge one, or answers the wrong shape; each call is timed and must end within its
deadline plus a small slack, with the exact message. Every refusal leaves the temp tree (the
kubeconfig and everything beside it) byte for byte as it was.
"""

import time

import pytest

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import k8s_names as _k8s_names
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kube_api import api as kube_api
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kube_api import transport
from ansible_collections.gpusmith.numa_gate.tests.unit import tree_state
from ansible_collections.gpusmith.numa_gate.tests.unit.plugins.module_utils._transition import hostile

DEADLINE = 3
SLACK = 1.0
NO_ANSWER = transport.NO_ANSWER


@pytest.fixture(name="serve")
def fixture_serve():
    started = []

    def serve(behaviour, interval=2.0):
        server = hostile.Hostile(behaviour, interval)
        started.append(server)
        return server

    yield serve
    for server in started:
        server.stop()


def connect(tmp_path, server_url, timeout=DEADLINE, **kwargs):
    return kube_api.connect(hostile.write_kubeconfig(tmp_path / "kubeconfig", server_url, **kwargs), timeout=timeout)


def timed_refusal(tmp_path, call, deadline=DEADLINE):
    """(message, seconds) of ``call()``, which must raise a NumaGateError; the tree under tmp_path must not change."""
    before = tree_state.snapshot(tmp_path)
    started = time.monotonic()
    with pytest.raises(kube_api.NumaGateError) as caught:
        tree_state.bounded(call, deadline + 10)
    took = time.monotonic() - started
    assert tree_state.snapshot(tmp_path) == before
    return str(caught.value), took


# -- rule 5: node names ------------------------------------------------------------------------------

SUBDOMAIN = ("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end "
             "with an alphanumeric character (e.g. 'example.com', regex used for validation is "
             "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')")
NODE_RULE = "a Kubernetes node name is a DNS-1123 subdomain, as the API server's ValidateNodeName checks"


@pytest.mark.parametrize("name, problems", [
    ("..", SUBDOMAIN),
    ("node-b/../node-a", SUBDOMAIN),
    ("Node-A", SUBDOMAIN),
    ("n1?watch=1", SUBDOMAIN),
    ("-n1", SUBDOMAIN),
    ("a" * 254, "must be no more than 253 characters"),
])
def test_a_node_name_that_is_not_a_dns_subdomain_is_refused_before_any_request(tmp_path, serve, name, problems):
    server = serve(hostile.answer(200, "{}"))
    api = connect(tmp_path, server.url)
    shown = repr(name) if len(repr(name)) <= 80 else repr(name)[:80] + "... (%d characters)" % len(name)
    for call in (lambda: api.get_node(name), lambda: api.set_unschedulable(name, True), lambda: api.pods_on_node(name),
                 lambda: api.node_proxy_get(name, "healthz")):
        message, _took = timed_refusal(tmp_path, call)
        assert message == "node name %s is not valid: %s (%s); nothing was sent" % (shown, problems, NODE_RULE)
    assert server.requests == []


def test_an_empty_node_name_and_valid_names(tmp_path, serve):
    server = serve(hostile.answer(200, '{"metadata": {"name": "gpu-1.rack-2.example.com"}}'))
    api = connect(tmp_path, server.url)
    message, _took = timed_refusal(tmp_path, lambda: api.get_node(""))
    assert message == "node name must not be empty: " + NODE_RULE
    assert api.get_node("gpu-1.rack-2.example.com")["metadata"]["name"] == "gpu-1.rack-2.example.com"
    assert _k8s_names.node_name("a" * 63 + "." + "b" * 189) == "a" * 63 + "." + "b" * 189  # 253: labels are not bounded to 63 here
    assert server.requests == [("GET", "/api/v1/nodes/gpu-1.rack-2.example.com")]


def test_pod_and_namespace_names_are_checked_before_an_eviction(tmp_path, serve):
    server = serve(hostile.answer(201, "{}"))
    api = connect(tmp_path, server.url)
    message, _took = timed_refusal(tmp_path, lambda: api.evict("default", "../../nodes/n1"))
    assert message == ("pod name '../../nodes/n1' is not valid: %s (a pod name is a DNS-1123 subdomain, as the API server's ValidatePodName "
                       "checks); nothing was sent" % SUBDOMAIN)
    message, _took = timed_refusal(tmp_path, lambda: api.delete_pod("a.b", "web-1"))
    assert message == ("namespace 'a.b' is not valid: a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', "
                       "and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is "
                       "'[a-z0-9]([-a-z0-9]*[a-z0-9])?') (a namespace is a DNS-1123 label, as the API server's ValidateNamespaceName checks); "
                       "nothing was sent")
    assert server.requests == []


# -- rule 7: answers of the wrong shape --------------------------------------------------------------

@pytest.mark.parametrize("body, field", [
    ("[]", "the answer is a list, not a JSON object"),
    ('"Node"', "the answer is a string, not a JSON object"),
    ("{}", "the answer has no metadata"),
    ('{"metadata": []}', "the answer's metadata is a list, expected an object"),
    ('{"metadata": {"name": 5}}', "the answer's metadata.name is a number, expected a string"),
    ('{"metadata": {"name": "n1"}, "spec": []}', "the answer's spec is a list, expected an object"),
    ('{"metadata": {"name": "n1"}, "spec": {"unschedulable": "yes"}}', "the answer's spec.unschedulable is a string, expected a boolean"),
    ('{"metadata": {"name": "n1"}, "status": {"conditions": {}}}', "the answer's status.conditions is an object, expected a list"),
    ('{"metadata": {"name": "n1"}, "status": {"conditions": [1]}}', "the answer's status.conditions[0] is a number, expected an object"),
    ('{"metadata": {"name": "n1"}, "status": {"conditions": [{"type": ["Ready"]}]}}',
     "the answer's status.conditions[0].type is a list, expected a string"),
    ("[" * 100000 + "]" * 100000, None),
    ("{" + '"a": {' * 150 + "}" * 151, "the answer nests lists and objects more than 100 levels deep; not read"),
    ("not json at all", "the answer is not JSON (Expecting value: line 1 column 1 (char 0)): 'not json at all'"),
])
def test_a_node_answer_of_the_wrong_shape_is_named(tmp_path, serve, body, field):
    server = serve(hostile.answer(200, body))
    api = connect(tmp_path, server.url)
    message, _took = timed_refusal(tmp_path, lambda: api.get_node("n1"))
    where = "GET %s/api/v1/nodes/n1: " % server.url
    if field is None:  # past the parser's recursion limit
        field = ("the answer is not JSON (nested too deeply to parse (more levels of arrays and objects than the parser's recursion limit)): "
                 "%r" % body[:200])
    assert message == where + field


@pytest.mark.parametrize("body, field", [
    ('{"items": {}}', "the answer's items is an object, expected a list"),
    ('{"items": [[]]}', "the answer's items[0] is a list, expected an object"),
    ('{"items": [{}]}', "the answer has no items[0].metadata"),
    ('{"items": [{"metadata": {"name": "web-1"}}]}', "the answer has no items[0].metadata.namespace"),
    ('{"items": [{"metadata": {"name": "web-1", "namespace": "default", "ownerReferences": {}}}]}',
     "the answer's items[0].metadata.ownerReferences is an object, expected a list"),
    ('{"items": [{"metadata": {"name": "web-1", "namespace": "default"}, "spec": {"volumes": ["emptyDir"]}}]}',
     "the answer's items[0].spec.volumes[0] is a string, expected an object"),
    ('{"items": [{"metadata": {"name": "web-1", "namespace": "default"}, "status": {"phase": 1}}]}',
     "the answer's items[0].status.phase is a number, expected a string"),
])
def test_a_pod_list_of_the_wrong_shape_is_named(tmp_path, serve, body, field):
    server = serve(hostile.answer(200, body))
    api = connect(tmp_path, server.url)
    message, _took = timed_refusal(tmp_path, lambda: api.pods_on_node("n1"))
    assert message == "GET %s/api/v1/pods?fieldSelector=spec.nodeName%%3Dn1: %s" % (server.url, field)


def test_a_pod_answer_with_a_name_that_would_collapse_a_url_is_refused(tmp_path, serve):
    server = serve(hostile.answer(200, '{"items": [{"metadata": {"name": "..", "namespace": "default"}}]}'))
    api = connect(tmp_path, server.url)
    message, _took = timed_refusal(tmp_path, lambda: api.pods_on_node("n1"))
    assert message == ("GET %s/api/v1/pods?fieldSelector=spec.nodeName%%3Dn1: the answer's items[0].metadata.name '..' is not valid: %s "
                       "(a pod name is a DNS-1123 subdomain, as the API server's ValidatePodName checks); the answer is not used"
                       % (server.url, SUBDOMAIN))


def test_a_budget_list_of_the_wrong_shape_is_named(tmp_path, serve):
    body = '{"items": [{"metadata": {"name": "db"}, "status": {"disruptionsAllowed": "none"}}]}'
    server = serve(hostile.answer(200, body))
    api = connect(tmp_path, server.url)
    message, _took = timed_refusal(tmp_path, lambda: api.pdbs("default"))
    assert message == ("GET %s/apis/policy/v1/namespaces/default/poddisruptionbudgets: the answer's items[0].status.disruptionsAllowed "
                       "is a string, expected an integer" % server.url)
    server2 = serve(hostile.answer(200, '{"items": [{"metadata": {"name": "db"}, "spec": {"selector": {"matchExpressions": [{"key": "a"}]}}}]}'))
    api = connect(tmp_path, server2.url)
    message, _took = timed_refusal(tmp_path, lambda: api.pdbs("default"))
    assert message == ("GET %s/apis/policy/v1/namespaces/default/poddisruptionbudgets: the answer has no "
                       "items[0].spec.selector.matchExpressions[0].operator" % server2.url)


def test_an_error_body_of_any_shape_is_a_named_api_error(tmp_path, serve):
    for body, expected in (('{"kind": "Status", "message": ["x"], "details": []}', "GET /api/v1/nodes/n1: HTTP 500"),
                           ("[" * 50000, "GET /api/v1/nodes/n1: HTTP 500: " + "[" * 300)):
        server = serve(hostile.answer(500, body))
        api = connect(tmp_path, server.url)
        message, _took = timed_refusal(tmp_path, lambda: api.get_node("n1"))  # pylint: disable=cell-var-from-loop
        assert message == expected


# -- issue 29, class 5: a pod list cut short is followed, never taken as complete ---------------------

POD = '{"metadata": {"name": "%s", "namespace": "default", "uid": "u-%s"}, "spec": {"nodeName": "n1"}}'


def test_a_pod_list_cut_short_is_followed_with_its_continue_token(tmp_path, serve):
    def pages(path):
        if "continue=t1" in path:
            return '{"metadata": {"continue": "t2"}, "items": [%s]}' % (POD % ("b", "b"))
        if "continue=t2" in path:
            return '{"metadata": {}, "items": [%s]}' % (POD % ("c", "c"))
        return '{"metadata": {"continue": "t1"}, "items": [%s]}' % (POD % ("a", "a"))

    server = serve(hostile.answer(200, pages))
    pods = connect(tmp_path, server.url).pods_on_node("n1")
    assert [pod["metadata"]["name"] for pod in pods] == ["a", "b", "c"]
    assert server.requests == [("GET", "/api/v1/pods?fieldSelector=spec.nodeName%3Dn1"),
                               ("GET", "/api/v1/pods?fieldSelector=spec.nodeName%3Dn1&continue=t1"),
                               ("GET", "/api/v1/pods?fieldSelector=spec.nodeName%3Dn1&continue=t2")]


def test_a_pod_list_cut_short_without_end_is_refused_after_its_page_bound(tmp_path, serve):
    server = serve(hostile.answer(200, '{"metadata": {"continue": "again"}, "items": [%s]}' % (POD % ("a", "a"))))
    api = connect(tmp_path, server.url)
    message, _took = timed_refusal(tmp_path, lambda: api.pods_on_node("n1"), deadline=60)
    assert message == ("GET /api/v1/pods (spec.nodeName=n1): still cut short after 100 pages (100 pods; metadata.continue 'again'): "
                       "a part of the node's pods is not all of them; not read as complete")
    assert len(server.requests) == kube_api.MAX_LIST_PAGES


def test_a_continue_token_that_is_no_string_is_named(tmp_path, serve):
    server = serve(hostile.answer(200, '{"metadata": {"continue": 7}, "items": []}'))
    api = connect(tmp_path, server.url)
    message, _took = timed_refusal(tmp_path, lambda: api.pods_on_node("n1"))
    assert message == ("GET %s/api/v1/pods?fieldSelector=spec.nodeName%%3Dn1: the answer's metadata.continue is int, expected a string"
                       % server.url)
