# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The API client's transport and kubeconfig: every network read ends by its deadline and within its size bound, no credential in a message.

Against real hostile servers on 127.0.0.1 (the _transition tests' hostile.py).

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

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kube_api import api as kube_api
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._transition.api import cordon
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
