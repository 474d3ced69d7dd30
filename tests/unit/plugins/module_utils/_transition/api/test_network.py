# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Every network read ends by its deadline and within its size bound, against real hostile servers on 127.0.0.1.

Each case runs the real kubernetes client's loader and the collection's transport against a server
in a thread (hostile.py) that never answers, trickles a byte every 2 s, sends a body that never
ends, announces a huge one, or answers the wrong shape; each call is timed and must end within its
deadline plus a small slack, with the exact message. Every refusal leaves the temp tree (the
kubeconfig and everything beside it) byte for byte as it was.
"""

import os
import socket
import time

import pytest

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import k8s_names as _k8s_names
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kube_api import api as kube_api
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._transition.api import configz, cordon
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kube_api import kubeconfig, transport
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


def closed_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


# -- rule 4: one deadline, a size bound --------------------------------------------------------------

def test_a_server_that_accepts_and_never_answers_ends_at_the_deadline_after_one_try(tmp_path, serve):
    server = serve(hostile.silent)
    api = connect(tmp_path, server.url)
    message, took = timed_refusal(tmp_path, lambda: api.get_node("n1"))
    assert message == "GET %s/api/v1/nodes/n1: no whole answer within the 3s deadline (1 attempt; %s)" % (server.url, NO_ANSWER)
    assert DEADLINE - 0.1 <= took <= DEADLINE + SLACK
    assert server.requests == [("GET", "/api/v1/nodes/n1")]


def test_headers_that_trickle_a_byte_every_two_seconds_end_at_the_deadline(tmp_path, serve):
    server = serve(hostile.trickle_headers, interval=2.0)
    api = connect(tmp_path, server.url)
    message, took = timed_refusal(tmp_path, lambda: api.get_node("n1"))
    assert message == "GET %s/api/v1/nodes/n1: no whole answer within the 3s deadline (1 attempt; %s)" % (server.url, NO_ANSWER)
    assert DEADLINE - 0.1 <= took <= DEADLINE + SLACK


def test_a_body_that_trickles_a_byte_every_two_seconds_ends_at_the_deadline(tmp_path, serve):
    server = serve(hostile.trickle_body, interval=2.0)
    api = connect(tmp_path, server.url)
    message, took = timed_refusal(tmp_path, lambda: api.get_node("n1"))
    assert message == ("GET %s/api/v1/nodes/n1: no whole answer within the 3s deadline (1 attempt; HTTP 200, 1 byte of the body received)"
                       % server.url)
    assert DEADLINE - 0.1 <= took <= DEADLINE + SLACK


def test_a_body_that_never_ends_ends_at_the_deadline(tmp_path, serve):
    server = serve(hostile.endless_chunked)
    api = connect(tmp_path, server.url)
    message, took = timed_refusal(tmp_path, lambda: api.pods_on_node("n1"))
    prefix = "GET %s/api/v1/pods?fieldSelector=spec.nodeName%%3Dn1: no whole answer within the 3s deadline (1 attempt; HTTP 200, " % server.url
    assert message.startswith(prefix) and message.endswith(" bytes of the body received)")
    assert int(message[len(prefix):].split(" ")[0]) > 0
    assert DEADLINE - 0.1 <= took <= DEADLINE + SLACK


def test_a_fast_body_that_never_ends_stops_at_the_size_bound(tmp_path, serve):
    server = serve(hostile.endless_fast)
    api = connect(tmp_path, server.url, timeout=20)
    message, took = timed_refusal(tmp_path, lambda: api.node_proxy_get("n1", "configz"), deadline=20)
    prefix = "GET %s/api/v1/nodes/n1/proxy/configz: the answer is larger than 1048576 bytes, the bound for it (HTTP 200, " % server.url
    assert message.startswith(prefix) and message.endswith(" bytes of the body received); not read further")
    assert 1048576 < int(message[len(prefix):].split(" ")[0]) <= 1048576 + transport.CHUNK  # it stops at the first read past the bound
    assert took < 5


def test_an_announced_huge_body_is_refused_before_it_is_read(tmp_path, serve):
    server = serve(hostile.huge_length)
    api = connect(tmp_path, server.url)
    message, took = timed_refusal(tmp_path, lambda: api.get_node("n1"))
    assert message == ("GET %s/api/v1/nodes/n1: the answer is larger than 16777216 bytes, the bound for it "
                       "(HTTP 200, Content-Length 1000000000000); not read further" % server.url)
    assert took < 1


def test_an_encoded_answer_is_refused_not_decoded(tmp_path, serve):
    server = serve(hostile.gzip_encoded)
    api = connect(tmp_path, server.url)
    message, _took = timed_refusal(tmp_path, lambda: api.get_node("n1"))
    assert message == ("GET %s/api/v1/nodes/n1: the answer is encoded (Content-Encoding: gzip) though identity was asked for; "
                       "not decoded (HTTP 200)" % server.url)
    assert server.requests == [("GET", "/api/v1/nodes/n1")]


def test_a_closed_port_is_tried_four_times_inside_the_deadline_then_named(tmp_path):
    port = closed_port()
    api = connect(tmp_path, "http://127.0.0.1:%d" % port)
    message, took = timed_refusal(tmp_path, lambda: api.get_node("n1"))
    assert message == ("cannot reach the API server at http://127.0.0.1:%d (GET /api/v1/nodes/n1): HTTPConnection(host='127.0.0.1', "
                       "port=%d): Failed to establish a new connection: [Errno 111] Connection refused (4 attempts within the 3s deadline)"
                       % (port, port))
    assert 1.75 <= took <= DEADLINE  # the pauses between tries: 0.25 + 0.5 + 1.0 s


def test_a_patch_is_not_sent_twice_when_its_answer_never_comes(tmp_path, serve):
    server = serve(hostile.silent)
    api = connect(tmp_path, server.url, timeout=2)
    message, took = timed_refusal(tmp_path, lambda: api.set_unschedulable("n1", True), deadline=2)
    assert message == "PATCH %s/api/v1/nodes/n1: no whole answer within the 2s deadline (1 attempt; %s)" % (server.url, NO_ANSWER)
    assert server.requests == [("PATCH", "/api/v1/nodes/n1")]
    assert took <= 2 + SLACK


def test_a_tls_handshake_that_never_completes_ends_at_the_deadline(tmp_path, serve):
    server = serve(hostile.silent)
    url = server.url.replace("http://", "https://")
    api = connect(tmp_path, url)
    message, took = timed_refusal(tmp_path, lambda: api.get_node("n1"))
    assert message == "GET %s/api/v1/nodes/n1: no whole answer within the 3s deadline (1 attempt; %s)" % (url, NO_ANSWER)
    assert DEADLINE - 0.1 <= took <= DEADLINE + SLACK


def test_a_kept_alive_connection_that_goes_silent_ends_at_the_deadline(tmp_path, serve):
    server = serve(hostile.keepalive_then_silent)
    api = connect(tmp_path, server.url)
    assert api.get_node("n1")["metadata"]["name"] == "n1"
    message, took = timed_refusal(tmp_path, lambda: api.get_node("n1"))
    assert message == "GET %s/api/v1/nodes/n1: no whole answer within the 3s deadline (1 attempt; %s)" % (server.url, NO_ANSWER)
    assert DEADLINE - 0.1 <= took <= DEADLINE + SLACK
    assert server.requests == [("GET", "/api/v1/nodes/n1")] * 2  # the second on the same connection


def test_a_whole_answer_within_the_deadline_is_read(tmp_path, serve):
    node = '{"kind": "Node", "metadata": {"name": "n1"}, "spec": {"unschedulable": true}, "status": {"conditions": []}}'
    server = serve(hostile.answer(200, node))
    api = connect(tmp_path, server.url)
    assert cordon.is_unschedulable(api.get_node("n1")) is True
    assert server.requests == [("GET", "/api/v1/nodes/n1")]


# -- kubeconfig and its credential plugin: nothing blocks --------------------------------------------

def test_a_kubeconfig_that_is_a_fifo_is_refused_without_blocking(tmp_path):
    fifo = tmp_path / "kubeconfig"
    os.mkfifo(str(fifo))
    message, took = timed_refusal(tmp_path, lambda: kube_api.connect(str(fifo)))
    assert message == "cannot load the kubeconfig %s (context (current)): kubeconfig %s is a FIFO, not a regular file; not read" % (fifo, fifo)
    assert took < 1


def test_a_kubeconfig_folder_and_an_oversized_one_are_refused(tmp_path):
    folder = tmp_path / "kube.d"
    folder.mkdir()
    message, _took = timed_refusal(tmp_path, lambda: kube_api.connect(str(folder)))
    assert message == "cannot load the kubeconfig %s (context (current)): kubeconfig %s is a folder, not a regular file; not read" % (folder, folder)
    big = tmp_path / "big"
    big.write_bytes(b"#" * (kubeconfig.MAX_KUBECONFIG_BYTES + 1))
    message, _took = timed_refusal(tmp_path, lambda: kube_api.connect(str(big)))
    assert message == "cannot load the kubeconfig %s (context (current)): kubeconfig %s is larger than 4194304 bytes; not read" % (big, big)


def test_a_default_kubeconfig_list_with_a_fifo_is_refused(tmp_path, monkeypatch):
    good = hostile.write_kubeconfig(tmp_path / "good", "http://127.0.0.1:1")
    fifo = tmp_path / "fifo"
    os.mkfifo(str(fifo))
    monkeypatch.setattr(kubeconfig._kube_config, "KUBE_CONFIG_DEFAULT_LOCATION", "%s:%s" % (good, fifo))  # pylint: disable=protected-access
    message, _took = timed_refusal(tmp_path, kube_api.connect)
    assert message == "cannot load the kubeconfig (default) (context (current)): kubeconfig %s is a FIFO, not a regular file; not read" % fifo


def test_a_token_file_that_is_a_fifo_is_refused_without_blocking(tmp_path):
    fifo = tmp_path / "token"
    os.mkfifo(str(fifo))
    path = hostile.write_kubeconfig(tmp_path / "kubeconfig", "http://127.0.0.1:1", user="    tokenFile: token")
    message, took = timed_refusal(tmp_path, lambda: kube_api.connect(path))
    assert message == ("cannot load the kubeconfig %s (context (current)): the kubeconfig's tokenFile %s is a FIFO, not a regular file; not read"
                       % (path, fifo))
    assert took < 1


def test_a_kubeconfig_that_is_not_yaml_or_a_mapping_is_named(tmp_path):
    path = tmp_path / "kubeconfig"
    path.write_text("- just\n- a list\n")
    message, _took = timed_refusal(tmp_path, lambda: kube_api.connect(str(path)))
    assert message == "cannot load the kubeconfig %s (context (current)): TypeError: list indices must be integers or slices, not str" % path
    path.write_text("clusters: [unclosed\n")
    message, _took = timed_refusal(tmp_path, lambda: kube_api.connect(str(path)))
    assert message.startswith("cannot load the kubeconfig %s (context (current)): ParserError: while parsing a flow sequence" % path)
    assert not message.startswith("unexpected")


def exec_user(script):
    return "    exec:\n      apiVersion: client.authentication.k8s.io/v1\n      command: %s\n      interactiveMode: Never" % script


def test_an_exec_plugin_that_never_exits_is_killed_at_the_timeout(tmp_path):
    pids = tmp_path / "pids"
    script = tmp_path / "plugin.sh"
    script.write_text("#!/bin/sh\necho $$ > %s\nsleep 1000 &\necho $! >> %s\nwait\n" % (pids, pids))
    script.chmod(0o755)
    path = hostile.write_kubeconfig(tmp_path / "kubeconfig", "http://127.0.0.1:1", user=exec_user(script))
    started = time.monotonic()
    with pytest.raises(kube_api.NumaGateError) as caught:
        tree_state.bounded(lambda: kube_api.connect(path, timeout=2), 15)
    took = time.monotonic() - started
    assert str(caught.value) == ("cannot load the kubeconfig %s (context (current)): the kubeconfig's exec credential plugin %s did not exit "
                                 "within 2s; it was killed (a credential plugin prints an ExecCredential and exits)" % (path, script))
    assert 2 - 0.1 <= took <= 2 + SLACK
    for pid in pids.read_text().split():  # the plugin and the child it started: gone, or dead (a zombie init has not reaped yet)
        assert dead(int(pid))


def dead(pid, seconds=2.0):
    """True once ``pid`` is gone or a zombie (a SIGKILLed process may still run for an instant on another CPU)."""
    until = time.monotonic() + seconds
    while True:
        try:
            with open("/proc/%d/stat" % pid, encoding="ascii") as handle:
                state = handle.read().rsplit(")", 1)[1].split()[0]
        except FileNotFoundError:
            return True
        if state == "Z":
            return True
        if time.monotonic() > until:
            return False
        time.sleep(0.05)


def test_an_exec_plugin_credential_is_used_and_never_shown(tmp_path, serve):
    script = tmp_path / "plugin.sh"
    script.write_text('#!/bin/sh\necho \'{"apiVersion": "client.authentication.k8s.io/v1", "kind": "ExecCredential", '
                      '"status": {"token": "s3cr3t-t0ken"}}\'\n')
    script.chmod(0o755)
    server = serve(hostile.answer(403, '{"kind": "Status", "message": "forbidden: User cannot get nodes", "reason": "Forbidden"}'))
    api = connect(tmp_path, server.url, user=exec_user(script))
    message, _took = timed_refusal(tmp_path, lambda: api.get_node("n1"))
    assert message == "forbidden: User cannot get nodes"
    bad = tmp_path / "bad.sh"
    bad.write_text("#!/bin/sh\necho s3cr3t-t0ken-in-garbage\n")
    bad.chmod(0o755)
    path = hostile.write_kubeconfig(tmp_path / "kubeconfig", server.url, user=exec_user(bad))
    message, _took = timed_refusal(tmp_path, lambda: kube_api.connect(path))
    assert message == ("cannot load the kubeconfig %s (context (current)): the kubeconfig's exec credential plugin %s did not print JSON "
                       "(24 bytes, not shown: they may hold a credential)" % (path, bad))


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


# -- rule 6: no credential in a message --------------------------------------------------------------

def test_userinfo_in_the_server_url_is_masked_in_every_message(tmp_path, serve):
    port = closed_port()
    api = connect(tmp_path, "http://admin:pa55w0rd-s3cret@127.0.0.1:%d" % port, timeout=1)
    assert api.host == "http://********@127.0.0.1:%d" % port
    message, _took = timed_refusal(tmp_path, lambda: api.get_node("n1"), deadline=1)
    assert message.startswith("cannot reach the API server at http://********@127.0.0.1:%d (GET /api/v1/nodes/n1): " % port)
    assert "pa55w0rd" not in message and "admin" not in message
    server = serve(hostile.silent)
    host = server.url.replace("http://", "http://admin:pa55w0rd-s3cret@")
    api = connect(tmp_path, host, timeout=1)
    message, _took = timed_refusal(tmp_path, lambda: api.get_node("n1"), deadline=1)
    assert message == "GET %s/api/v1/nodes/n1: no whole answer within the 1s deadline (1 attempt; %s)" % (
        server.url.replace("http://", "http://********@"), NO_ANSWER)


def test_an_error_answer_quoting_the_password_is_masked(tmp_path, serve):
    server = serve(hostile.answer(502, "upstream http://admin:pa55w0rd-s3cret@10.0.0.1/ failed; password pa55w0rd-s3cret", "text/plain"))
    api = connect(tmp_path, server.url.replace("http://", "http://admin:pa55w0rd-s3cret@"))
    message, _took = timed_refusal(tmp_path, lambda: api.get_node("n1"))
    assert message == "GET /api/v1/nodes/n1: HTTP 502: upstream http://********@10.0.0.1/ failed; password ********"


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


def test_configz_of_the_wrong_shape_or_depth_is_named():
    with pytest.raises(configz.ConfigzError) as caught:
        configz.parse("[" * 100000 + "]" * 100000, "n1")
    assert str(caught.value) == "verify n1: /configz did not answer JSON: %r" % ("[" * 200)
    with pytest.raises(configz.ConfigzError) as caught:
        configz.parse('{"kubeletconfig": ' + "[" * 120 + "]" * 120 + "}", "n1")
    assert str(caught.value) == "verify n1: /configz answered lists and objects nested more than 100 levels deep; not read"
    config = configz.parse('{"kubeletconfig": {"reservedMemory": [{"numaNode": 0, "limits": ["1Gi"]}, {"numaNode": 0, "limits": {"memory": {}}},'
                           ' {"numaNode": 0, "limits": {"memory": NaN}}], "kubeReserved": {"memory": []}}}', "n1")
    mismatches = configz.compare({"reservedMemory": [{"numaNode": 0, "limits": {"memory": "1Gi"}}], "kubeReserved": {"memory": "1Gi"},
                                  5: "x"}, config)
    assert [m["field"] for m in mismatches] == ["5", "kubeReserved", "reservedMemory"]
    assert configz.describe(mismatches).startswith('5: expected "x", /configz shows nothing; kubeReserved: expected {"memory": "1Gi"}')
