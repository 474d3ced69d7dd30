# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""PodResources reads are bounded: one deadline for all the calls of a reading, 16 MiB per answer, pods named checked first.

The servers here are real gRPC servers on a unix socket in a temp folder, with generic handlers on
the PodResourcesLister method paths that answer raw bytes: one that never answers (sleeps until the
test ends), one that answers an 17 MiB message. The client must end by its deadline and report each
call as a finding, never hang and never raise.
"""

import os
import tempfile
import threading
import time

import pytest

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import k8s_names as _k8s_names
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence.podresources import client

grpc = pytest.importorskip("grpc")

SERVICE = "v1.PodResourcesLister"


@pytest.fixture(name="serve")
def fixture_serve():
    started = []

    def serve(answer):
        """A server whose every method runs ``answer(release_event)`` and returns its bytes; the socket path."""
        folder = tempfile.mkdtemp(prefix="prb-")
        path = os.path.join(folder, "kubelet.sock")
        release = threading.Event()

        def handler(_request, _context):
            return answer(release)

        methods = {name: grpc.unary_unary_rpc_method_handler(handler) for name in ("List", "Get", "GetAllocatableResources")}
        server = grpc.server(__import__("concurrent.futures").futures.ThreadPoolExecutor(4),
                             options=[("grpc.max_send_message_length", 64 * 1024 * 1024)])
        server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(SERVICE, methods),))
        server.add_insecure_port("unix://" + path)
        server.start()
        started.append((server, release, folder, path))
        return path

    yield serve
    for server, release, folder, path in started:
        release.set()
        server.stop(0).wait(5)
        if os.path.exists(path):
            os.unlink(path)
        os.rmdir(folder)


def test_a_kubelet_that_never_answers_costs_one_deadline_for_the_whole_reading(serve):
    socket = serve(lambda release: release.wait(60) and b"")
    started = time.monotonic()
    result = client.read(socket, timeout=2.0)
    took = time.monotonic() - started
    assert 1.9 <= took <= 3.0
    assert [(f["method"], f["code"]) for f in result["findings"]] == [("List", "DEADLINE_EXCEEDED"), ("GetAllocatableResources", "DEADLINE_EXCEEDED")]
    assert result["findings"][0]["message"] == "PodResources List on %s failed: DEADLINE_EXCEEDED: Deadline Exceeded" % socket
    assert result["findings"][1]["message"] == ("PodResources GetAllocatableResources on %s not called: the 2s deadline for the PodResources "
                                                "calls had passed" % socket)
    assert (result["pods"], result["allocatable"]) == ([], None)


def test_an_answer_over_16_mib_is_refused_by_the_receive_bound(serve):
    # Field 1 (pod_resources, a message) with a 17 MiB payload: a valid-looking length prefix, too big to receive.
    size = 17 * 1024 * 1024
    length = bytearray()
    value = size
    while True:
        byte = value & 0x7F
        value >>= 7
        length.append(byte | (0x80 if value else 0))
        if not value:
            break
    big = b"\x0a" + bytes(length) + b"\x00" * size
    socket = serve(lambda _release: big)
    result = client.read(socket, timeout=10.0)
    codes = [(f["method"], f["code"]) for f in result["findings"]]
    assert codes == [("List", "RESOURCE_EXHAUSTED"), ("GetAllocatableResources", "RESOURCE_EXHAUSTED")]
    message = result["findings"][0]["message"]  # gRPC's own words around its bound vary by version ("Stream removed (...)")
    assert message.startswith("PodResources List on %s failed: RESOURCE_EXHAUSTED: " % socket)
    assert "Received message larger than max (%d vs. 16777216)" % len(big) in message
    assert client.MAX_MESSAGE_BYTES == 16 * 1024 * 1024


@pytest.mark.parametrize("pods, message", [
    ([{"namespace": "default"}], "pods[0] has no name: each pod is given by its name and namespace"),
    ([{"name": "web-1"}], "pods[0] has no namespace: each pod is given by its name and namespace"),
    (["web-1"], "pods[0] must be a dict with name and namespace, not a str ('web-1')"),
    ([{"name": "web-1", "namespace": "default", "uid": "x"}], "pods[0] has unknown keys uid: an entry has only name and namespace"),
    ([{"name": 5, "namespace": "default"}],
     "pods[0].name 5 is an int, not a name: a pod name is a DNS-1123 subdomain, as the API server's ValidatePodName checks"),
    ([{"name": "Web_1", "namespace": "default"}],
     "pods[0].name 'Web_1' is not valid: a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', "
     "and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is "
     "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*') (a pod name is a DNS-1123 subdomain, as the API server's "
     "ValidatePodName checks); nothing was sent"),
    ({"name": "web-1"}, "pods must be a list of {name, namespace}, not a dict"),
])
def test_pods_given_without_a_name_or_of_the_wrong_shape_are_named(pods, message):
    with pytest.raises(_k8s_names.KubeNameError) as caught:
        _k8s_names.pod_refs(pods)
    assert str(caught.value) == message


def test_valid_pods_pass_as_they_are():
    assert _k8s_names.pod_refs([{"name": "web-1.a", "namespace": "kube-system"}]) == [{"name": "web-1.a", "namespace": "kube-system"}]


def test_the_module_refuses_a_pod_without_a_name_before_any_call(capsys, serve):
    import json  # pylint: disable=import-outside-toplevel
    from ansible.module_utils.testing import patch_module_args  # pylint: disable=import-outside-toplevel
    from ansible_collections.gpusmith.numa_gate.plugins.modules import pod_resources_info  # pylint: disable=import-outside-toplevel
    from ansible_collections.gpusmith.numa_gate.tests.unit import tree_state  # pylint: disable=import-outside-toplevel
    calls = []
    socket = serve(lambda _release: calls.append(1) or b"")
    root, name = os.path.split(socket)
    before = tree_state.snapshot(root)
    facts = {"schema_version": 1, "cpus": {"online": "0-3", "isolated": ""}, "numa_nodes": [{"id": 0, "cpus": "0-3"}], "gpus": [], "nics": []}
    with patch_module_args({"root": root, "socket": "/" + name, "pods": [{"namespace": "default"}], "topology": facts}):
        with pytest.raises(SystemExit) as exit_info:
            pod_resources_info.main()
    result = json.loads(capsys.readouterr().out)
    assert (exit_info.value.code, result["failed"]) == (1, True)
    assert result["msg"] == "pods[0] has no name: each pod is given by its name and namespace"
    assert calls == []
    assert tree_state.snapshot(root) == before
