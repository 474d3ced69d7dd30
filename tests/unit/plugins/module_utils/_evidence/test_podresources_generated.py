"""The checked-in PodResources client code (podresources/api_pb2*.py): what scripts/gen_podresources.sh makes, importable without grpcio/protobuf.

The first test regenerates both files from api.proto (grpc_tools.protoc, then scripts/podresources_postprocess.py,
the script's two steps) in tmp_path and compares them byte for byte with the checked-in ones. The others import
the collection's modules in a fresh interpreter where ``google`` / ``grpc`` cannot be imported, as on a node
without them (and as ansible-test's import sanity test does).
"""

import json
import os
import pathlib
import subprocess
import sys
from importlib.metadata import version

import pytest

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence.podresources import client

PKG = "plugins/module_utils/_evidence/podresources"
HERE = pathlib.Path(client.__file__)
COLLECTION = HERE.parents[4]
COLLECTIONS_ROOT = HERE.parents[7]
NAMES = ("api_pb2.py", "api_pb2_grpc.py")


def test_checked_in_code_is_what_the_script_generates(tmp_path):
    pytest.importorskip("grpc_tools")
    google_protobuf = pytest.importorskip("google.protobuf")
    inner = tmp_path / "ansible_collections" / "gpusmith" / "numa_gate" / PKG
    inner.mkdir(parents=True)
    (inner / "api.proto").write_bytes((COLLECTION / PKG / "api.proto").read_bytes())
    subprocess.run([sys.executable, "-m", "grpc_tools.protoc", "-I" + str(tmp_path), "--python_out=" + str(tmp_path),
                    "--grpc_python_out=" + str(tmp_path), "ansible_collections/gpusmith/numa_gate/%s/api.proto" % PKG],
                   cwd=str(tmp_path), check=True, timeout=120)
    tools = "grpcio-tools %s protobuf %s" % (version("grpcio-tools"), google_protobuf.__version__)
    for name in NAMES:
        out = tmp_path / name
        subprocess.run([sys.executable, str(COLLECTION / "scripts" / "podresources_postprocess.py"), "--tools", tools,
                        str(inner / name), str(out)], check=True, timeout=120)
        assert out.read_text(encoding="utf-8") == (COLLECTION / PKG / name).read_text(encoding="utf-8"), name


BLOCKED = r'''
import importlib.abc, json, sys

class Missing(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in BLOCK:
            raise ModuleNotFoundError("No module named %r" % name, name=name)
        return None

BLOCK = set(sys.argv[1].split(","))
sys.meta_path.insert(0, Missing())
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence.podresources import api_pb2, api_pb2_grpc, client
try:
    client.read("/nonexistent.sock")
    failure = None
except client.PodResourcesError as exc:
    failure = str(exc)
print(json.dumps({"HAS_PROTOBUF": api_pb2.HAS_PROTOBUF, "PROTOBUF_IMPORT_ERROR": api_pb2.PROTOBUF_IMPORT_ERROR,
                  "HAS_GRPC": api_pb2_grpc.HAS_GRPC, "GRPC_IMPORT_ERROR": api_pb2_grpc.GRPC_IMPORT_ERROR,
                  "client": [client.HAS_GRPC, client.GRPC_IMPORT_ERROR], "failure": failure}))
'''


def _import_without(block):
    env = dict(os.environ, PYTHONPATH=str(COLLECTIONS_ROOT))
    answer = subprocess.run([sys.executable, "-c", BLOCKED, ",".join(block)], env=env, capture_output=True, text=True,
                            timeout=120, check=True)
    return json.loads(answer.stdout)


NEEDS = "the PodResources client needs the Python libraries grpcio and protobuf on the node (pip install grpcio protobuf): "


def test_imports_without_grpcio_and_protobuf():
    assert _import_without(["google", "grpc"]) == {
        "HAS_PROTOBUF": False, "PROTOBUF_IMPORT_ERROR": "ModuleNotFoundError: No module named 'google'",
        "HAS_GRPC": False, "GRPC_IMPORT_ERROR": "ModuleNotFoundError: No module named 'grpc'",
        "client": [False, "ModuleNotFoundError: No module named 'google'"],
        "failure": NEEDS + "ModuleNotFoundError: No module named 'google'",
    }


def test_imports_without_grpcio_only():
    pytest.importorskip("google.protobuf")
    assert _import_without(["grpc"]) == {
        "HAS_PROTOBUF": True, "PROTOBUF_IMPORT_ERROR": None,
        "HAS_GRPC": False, "GRPC_IMPORT_ERROR": "ModuleNotFoundError: No module named 'grpc'",
        "client": [False, "ModuleNotFoundError: No module named 'grpc'"],
        "failure": NEEDS + "ModuleNotFoundError: No module named 'grpc'",
    }
