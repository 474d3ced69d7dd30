"""The PodResources descriptor set (podresources/api_descriptor.py) and the message classes built from it (messages.py).

The first test regenerates api_descriptor.py from api.proto in tmp_path with the two steps of
scripts/gen_podresources.sh (grpc_tools.protoc, then scripts/podresources_postprocess.py) and compares
it byte for byte with the checked-in one. The last ones import the collection's modules in a fresh
interpreter where ``google`` / ``grpc`` cannot be imported, as on a node without them (and as
ansible-test's import sanity test does). Other protobuf and grpcio versions: tests/protobuf_matrix.
"""

import hashlib
import importlib.util
import json
import os
import pathlib
import subprocess
import sys
from importlib.metadata import version

import pytest

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence.podresources import api_descriptor
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence.podresources import client
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence.podresources import messages

PKG = "plugins/module_utils/_evidence/podresources"
HERE = pathlib.Path(client.__file__)
COLLECTION = HERE.parents[4]
COLLECTIONS_ROOT = HERE.parents[7]
_SPEC = importlib.util.spec_from_file_location("podresources_postprocess", str(COLLECTION / "scripts" / "podresources_postprocess.py"))
podresources_postprocess = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(podresources_postprocess)


def test_checked_in_descriptor_is_what_the_script_generates(tmp_path):
    pytest.importorskip("grpc_tools")
    google_protobuf = pytest.importorskip("google.protobuf")
    subprocess.run([sys.executable, "-m", "grpc_tools.protoc", "-I" + str(COLLECTION / PKG), "--include_imports",
                    "--descriptor_set_out=" + str(tmp_path / "api.desc"), "api.proto"], cwd=str(tmp_path), check=True, timeout=120)
    tools = "grpcio-tools %s protobuf %s" % (version("grpcio-tools"), google_protobuf.__version__)
    out = tmp_path / "api_descriptor.py"
    subprocess.run([sys.executable, str(COLLECTION / "scripts" / "podresources_postprocess.py"), "--tools", tools,
                    str(tmp_path / "api.desc"), str(out)], check=True, timeout=120)
    assert out.read_text(encoding="utf-8") == (COLLECTION / PKG / "api_descriptor.py").read_text(encoding="utf-8")
    assert (tmp_path / "api.desc").read_bytes() == api_descriptor.FILE_DESCRIPTOR_SET
    assert hashlib.sha256(api_descriptor.FILE_DESCRIPTOR_SET).hexdigest() == api_descriptor.SHA256


def test_postprocess_literals_round_trip_every_byte_within_the_line_limit():
    data = bytes(range(256)) * 3 + b'\\"\n\r\t' + b"\x00" * 200
    text = podresources_postprocess.render(data, "test")
    podresources_postprocess.check(text, data)
    assert max(len(line) for line in text.splitlines()) <= 159
    assert podresources_postprocess.literals(b"") == ['    b""']
    assert podresources_postprocess.literals(b'a"\\\x01') == ['    b"a\\"\\\\\\x01"']


def test_postprocess_refuses_an_empty_descriptor_set(tmp_path):
    empty = tmp_path / "empty.desc"
    empty.write_bytes(b"")
    answer = subprocess.run([sys.executable, str(COLLECTION / "scripts" / "podresources_postprocess.py"), "--tools", "x", str(empty),
                             str(tmp_path / "out.py")], capture_output=True, text=True, timeout=60, check=False)
    assert (answer.returncode, answer.stderr) == (1, "podresources_postprocess.py: %s is empty\n" % empty)
    assert not (tmp_path / "out.py").exists()


def test_messages_and_methods_come_from_the_descriptor():
    api = messages.build()
    assert {name: (path, request.DESCRIPTOR.full_name, response.DESCRIPTOR.full_name) for name, (path, request, response) in api.methods.items()} == {
        "List": ("/v1.PodResourcesLister/List", "v1.ListPodResourcesRequest", "v1.ListPodResourcesResponse"),
        "GetAllocatableResources": ("/v1.PodResourcesLister/GetAllocatableResources", "v1.AllocatableResourcesRequest",
                                    "v1.AllocatableResourcesResponse"),
        "Get": ("/v1.PodResourcesLister/Get", "v1.GetPodResourcesRequest", "v1.GetPodResourcesResponse"),
    }
    assert sorted(api.classes) == ["v1.AllocatableResourcesRequest", "v1.AllocatableResourcesResponse", "v1.CDIDevice", "v1.ClaimResource",
                                   "v1.ContainerDevices", "v1.ContainerMemory", "v1.ContainerResources", "v1.DynamicResource",
                                   "v1.GetPodResourcesRequest", "v1.GetPodResourcesResponse", "v1.ListPodResourcesRequest",
                                   "v1.ListPodResourcesResponse", "v1.NUMANode", "v1.PodResources", "v1.TopologyInfo"]
    assert (api.protobuf, api.implementation, api.factory) == (version("protobuf"), "upb", "GetMessageClass")
    assert messages.load() is messages.load()


def test_pod_level_fields_round_trip_through_the_wire_format():
    api = messages.build()
    response = api.classes["v1.ListPodResourcesResponse"]
    pod = {"name": "inference", "namespace": "canary", "cpu_ids": [2, 3, 9],
           "memory": [{"memory_type": "memory", "size": 1 << 34, "topology": {"nodes": [{"ID": 0}]}}],
           "containers": [{"name": "server", "cpu_ids": [2, 3], "dynamic_resources": [
               {"claim_name": "gpu", "claim_namespace": "canary", "claim_resources": [{"driver_name": "gpu.nvidia.com", "share_id": ""}]}]}]}
    message = response(pod_resources=[pod])
    wire = message.SerializeToString()
    back = response.FromString(wire).pod_resources[0]
    assert (list(back.cpu_ids), back.memory[0].size, [n.ID for n in back.memory[0].topology.nodes]) == ([2, 3, 9], 1 << 34, [0])
    assert list(back.containers[0].cpu_ids) == [2, 3]
    claim = back.containers[0].dynamic_resources[0].claim_resources[0]
    assert (claim.driver_name, claim.HasField("share_id")) == ("gpu.nvidia.com", True)
    # field 4 of PodResources is packed int64: tag 0x22, length 3, values 2 3 9
    assert b"\x22\x03\x02\x03\x09" in wire


def test_a_descriptor_set_the_runtime_cannot_read_is_a_clear_error():
    with pytest.raises(messages.MessagesError) as error:
        messages.build(b"\x0a\x05nope")
    assert str(error.value).startswith("protobuf %s (upb) cannot build the PodResources messages from the descriptor set: DecodeError: " % version("protobuf"))


BLOCKED = r'''
import importlib.abc, json, sys

class Missing(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in BLOCK:
            raise ModuleNotFoundError("No module named %r" % name, name=name)
        return None

BLOCK = set(sys.argv[1].split(","))
sys.meta_path.insert(0, Missing())
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence.podresources import client, messages
answers = {}
for name, call in (("read", lambda: client.read("/nonexistent.sock")), ("build", messages.build)):
    try:
        call()
        answers[name] = None
    except (client.PodResourcesError, messages.MessagesError) as exc:
        answers[name] = str(exc)
print(json.dumps({"HAS_PROTOBUF": messages.HAS_PROTOBUF, "PROTOBUF_IMPORT_ERROR": messages.PROTOBUF_IMPORT_ERROR,
                  "client": [client.HAS_GRPC, client.GRPC_IMPORT_ERROR], "answers": answers}))
'''


def _import_without(block):
    env = dict(os.environ, PYTHONPATH=str(COLLECTIONS_ROOT))
    answer = subprocess.run([sys.executable, "-c", BLOCKED, ",".join(block)], env=env, capture_output=True, text=True,
                            timeout=120, check=True)
    return json.loads(answer.stdout)


def test_imports_without_grpcio_and_protobuf():
    assert _import_without(["google", "grpc"]) == {
        "HAS_PROTOBUF": False, "PROTOBUF_IMPORT_ERROR": "ModuleNotFoundError: No module named 'google'",
        "client": [False, "ModuleNotFoundError: No module named 'google'"],
        "answers": {"read": client.NEEDS + "ModuleNotFoundError: No module named 'google'",
                    "build": "the PodResources messages need the Python library protobuf (3.12 or later): ModuleNotFoundError: No module named 'google'"},
    }


def test_imports_without_grpcio_only():
    assert _import_without(["grpc"]) == {
        "HAS_PROTOBUF": True, "PROTOBUF_IMPORT_ERROR": None,
        "client": [False, "ModuleNotFoundError: No module named 'grpc'"],
        "answers": {"read": client.NEEDS + "ModuleNotFoundError: No module named 'grpc'", "build": None},
    }
