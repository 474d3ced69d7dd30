"""The pod_resources_info module against a real gRPC server: a TEST DOUBLE of the kubelet's PodResources service
(tests/unit/plugins/module_utils/_evidence/podresources/podresources_double.py, compiled from the proto in its own process)."""

import json
import os
from importlib.metadata import version

import pytest

from ansible.module_utils.testing import patch_module_args

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence.podresources import client
from ansible_collections.gpusmith.numa_gate.plugins.modules import pod_resources_info
from ansible_collections.gpusmith.numa_gate.tests.unit.plugins.module_utils._evidence.podresources.podresources_serving import CONTAINER_SCOPE, Double

FACTS = {"schema_version": 1, "cpus": {"online": "0-15", "isolated": ""}, "numa_nodes": [{"id": 0, "cpus": "0-15"}],
         "gpus": [{"index": 0, "uuid": "GPU-f2c38e61-1c95-2e97-c47e-1090719df202", "pci_address": "0000:00:06.0", "name": "NVIDIA H200",
                   "sysfs_numa_node": None, "numa_node": 0, "numa_source": "nvidia-smi", "local_cpus": "0-15",
                   "vendor_affinity": {"source": "nvidia-smi", "numa_node": 0, "cpus": "0-15"}}], "nics": []}


def run(args, capsys):
    with patch_module_args(args):
        with pytest.raises(SystemExit) as exit_info:
            pod_resources_info.main()
    return exit_info.value.code, json.loads(capsys.readouterr().out)


def test_container_scope_through_the_module(capsys):
    double = Double(CONTAINER_SCOPE)
    try:
        root, name = os.path.split(double.socket)
        code, result = run({"root": root, "socket": "/" + name, "scope": "container", "topology": FACTS}, capsys)
    finally:
        double.stop()
    assert code == 0 and result["reachable"] is True
    inference = result["reconciled"]["pods"][0]
    assert (inference["pod_cpus"], inference["shared_cpus"], inference["shared_pool"]) == ("2-8", "0-1,9-15", "node")
    assert [d["uuid"] for d in inference["devices"]["server"] if d["kind"] == "gpu"] == ["GPU-f2c38e61-1c95-2e97-c47e-1090719df202"]
    # the NIC id is not in these facts: kept, with no kind
    assert [d["kind"] for d in inference["devices"]["server"]] == ["gpu", None]
    assert result["findings"] == []
    assert result["libraries"] == {"protobuf": version("protobuf"), "protobuf_implementation": "upb", "message_classes": "GetMessageClass",
                                   "grpcio": version("grpcio")}


def test_missing_socket_is_a_finding(tmp_path, capsys):
    code, result = run({"root": str(tmp_path), "topology": FACTS}, capsys)
    assert code == 0 and result["reachable"] is False
    assert result["findings"] == [{"check": "podresources_socket", "result": "unknown",
                                   "message": "no PodResources socket at %s/var/lib/kubelet/pod-resources/kubelet.sock: No such file or directory" % tmp_path}]


def test_missing_grpc_fails_clearly(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(client, "HAS_GRPC", False)
    monkeypatch.setattr(client, "GRPC_IMPORT_ERROR", "ModuleNotFoundError: No module named 'grpc'")
    code, result = run({"root": str(tmp_path), "topology": FACTS}, capsys)
    assert (code, result["failed"]) == (1, True)
    assert result["msg"] == ("the PodResources client needs the Python libraries grpcio and protobuf (3.12 or later) on the node: python3-grpcio "
                             "and python3-protobuf from the OS, or pip into a virtualenv (the podresources_client role installs them): "
                             "ModuleNotFoundError: No module named 'grpc'")
    assert "exception" not in result


def test_claims_of_the_wrong_shape_are_refused_before_any_call(capsys, monkeypatch):
    def no_call(*args, **kwargs):
        raise AssertionError("the kubelet was asked")
    monkeypatch.setattr(client, "read", no_call)
    code, result = run({"topology": FACTS, "resource_claims": [{"metadata": {"name": "gpu-claim"}}], "node_name": "gpu-1"}, capsys)
    assert (code, result["failed"]) == (1, True)
    assert result["msg"] == "resourceclaims[0] must be a ResourceClaim with metadata.name and metadata.namespace (strings)"


def test_claims_without_the_node_name_are_refused(capsys):
    code, result = run({"topology": FACTS, "resource_claims": []}, capsys)
    assert (code, result["failed"]) == (1, True)
    assert result["msg"] == "missing parameter(s) required by 'resource_claims': node_name"
