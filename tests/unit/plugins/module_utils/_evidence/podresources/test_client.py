"""The PodResources client and the scope reconciliation against a real gRPC server: a TEST DOUBLE of the kubelet's service.

The double (podresources_double.py) compiles the collection's api.proto with grpc_tools at start,
in its own process, and serves hand-written allocations in the kubelet's message shapes that use
the real H200 host's device identities (its GPU UUID, its NIC's PCI address). The client builds its
messages from the descriptor set (messages.py); tests/protobuf_matrix runs it on other protobuf and
grpcio versions against the same double.
"""

import json
import os
import socket
from importlib.metadata import version

import pytest

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence.podresources import allocations
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence import nodefs
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence.podresources import client
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts.gather import gather
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts.runner import RecordedRunner
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._plan import locality
from ansible_collections.gpusmith.numa_gate.tests.unit import shared_paths
from ansible_collections.gpusmith.numa_gate.tests.unit.plugins.module_utils._evidence.podresources.podresources_serving import (
    CONTAINER_SCOPE, POD_SCOPE, Double)


H200_UUID = "GPU-f2c38e61-1c95-2e97-c47e-1090719df202"
LIBRARIES = {"protobuf": version("protobuf"), "protobuf_implementation": "upb", "message_classes": "GetMessageClass", "grpcio": version("grpcio")}
GI = 1 << 30


def h200_facts():
    """The real H200 host's facts, GPUs from its recorded nvidia-smi answers."""
    with open(os.path.join(shared_paths.H200_VM, "capture.json")) as handle:
        capture = json.load(handle)
    outputs = {}
    for name, command in capture["commands"].items():
        with open(os.path.join(shared_paths.H200_VM, "cmd", name + ".txt")) as handle:
            outputs[tuple(command["argv"])] = (command["rc"], handle.read(), "")
    return gather(shared_paths.H200_VM, gpu_source="nvidia-smi", runner=RecordedRunner(outputs))


@pytest.fixture(scope="module")
def oracle():
    return locality.build(h200_facts())


@pytest.fixture(scope="module")
def pod_scope():
    double = Double(POD_SCOPE)
    yield double
    double.stop()


def test_list_reports_pod_and_container_fields_exactly(pod_scope):
    answer = client.read(pod_scope.socket, timeout=5)
    assert answer["reachable"] is True
    assert answer["findings"] == []
    inference = answer["pods"][0]
    assert (inference["name"], inference["namespace"], inference["cpu_ids"]) == ("inference", "canary", "2-9")
    assert inference["memory"] == [{"memory_type": "memory", "size": 16 * GI, "numa_nodes": [0]},
                                   {"memory_type": "hugepages-1Gi", "size": 2 * GI, "numa_nodes": [0]}]
    assert [(c["name"], c["cpu_ids"]) for c in inference["containers"]] == [("server", "2-7"), ("tokenizer", "8"), ("metrics-sidecar", "")]
    assert inference["containers"][0]["devices"] == [
        {"resource_name": "nvidia.com/gpu", "device_ids": [H200_UUID], "numa_nodes": [0]},
        {"resource_name": "example.com/sriov", "device_ids": ["0000:00:03.0"], "numa_nodes": [0]}]
    assert inference["containers"][2] == {"name": "metrics-sidecar", "cpu_ids": "", "devices": [], "memory": [], "dynamic_resources": []}
    assert answer["allocatable"]["cpu_ids"] == "1-15"
    assert answer["libraries"] == LIBRARIES


def test_pod_scope_reconciled_without_double_counting(pod_scope, oracle):
    answer = client.read(pod_scope.socket, timeout=5)
    result = allocations.reconcile_allocations(answer["pods"], "pod", "0-15", answer["allocatable"]["cpu_ids"], oracle)
    inference, batch, web = result["pods"]
    assert inference["pod_cpus"] == "2-9"
    assert inference["exclusive"] == {"server": "2-7", "tokenizer": "8"}
    assert inference["shared_containers"] == ["metrics-sidecar"]
    assert (inference["shared_cpus"], inference["shared_pool"]) == ("9", "pod")
    assert inference["memory"] == {"memory": {"size": 16 * GI, "numa_nodes": [0]}, "hugepages-1Gi": {"size": 2 * GI, "numa_nodes": [0]}}
    assert (batch["pod_cpus"], batch["shared_cpus"], batch["shared_containers"]) == ("10-11", "", ["log"])
    assert (web["pod_cpus"], web["shared_pool"], web["shared_cpus"]) == ("", "node", "0-1,12-15")
    assert result["node"] == {"online_cpus": "0-15", "allocatable_cpus": "1-15", "exclusive_cpus": "2-11", "exclusive_count": 10,
                              "shared_pool": "0-1,12-15"}
    assert result["findings"] == [] and all(p["findings"] == [] for p in result["pods"])
    (gpu, nic) = inference["devices"]["server"]
    assert (gpu["kind"], gpu["uuid"], gpu["pci_address"], gpu["numa_node"], gpu["numa_source"]) == (
        "gpu", H200_UUID, "0000:00:06.0", 0, "nvidia-smi")
    assert (nic["kind"], nic["name"], nic["pci_address"], nic["numa_node"]) == ("nic", "eth0", "0000:00:03.0", 0)


def test_get_reads_one_pod(pod_scope):
    answer = client.read(pod_scope.socket, timeout=5, pods=[{"name": "batch", "namespace": "canary"}, {"name": "gone", "namespace": "x"}])
    assert [p["name"] for p in answer["pods"]] == ["batch"]
    assert answer["findings"] == [{"check": "podresources_call", "result": "unknown", "method": "Get", "code": "NOT_FOUND",
                                   "details": "pod gone not found in namespace x",
                                   "message": "PodResources Get on %s failed: NOT_FOUND: pod gone not found in namespace x" % pod_scope.socket}]


def test_more_pods_than_calls_are_picked_from_one_list():
    # Get x3 + GetAllocatableResources would be 4 calls; the double refuses Get, so only List can answer
    double = Double(POD_SCOPE, "--refuse", "Get:UNIMPLEMENTED")
    try:
        answer = client.read(double.socket, timeout=5, pods=[{"name": "web", "namespace": "default"}, {"name": "gone", "namespace": "x"},
                                                             {"name": "inference", "namespace": "canary"}])
    finally:
        double.stop()
    assert client.MAX_CALLS == 3
    assert [p["name"] for p in answer["pods"]] == ["web", "inference"]
    assert answer["findings"] == [{"check": "podresources_pod", "result": "unknown", "pod": "x/gone",
                                   "message": "PodResources List on %s has no pod gone in namespace x" % double.socket}]
    assert answer["allocatable"]["cpu_ids"] == "1-15"


def test_container_scope_shared_containers_in_the_node_pool(oracle):
    double = Double(CONTAINER_SCOPE)
    try:
        answer = client.read(double.socket, timeout=5)
    finally:
        double.stop()
    result = allocations.reconcile_allocations(answer["pods"], "container", "0-15", answer["allocatable"]["cpu_ids"], oracle)
    inference, web = result["pods"]
    assert inference["pod_level_fields"] is False
    assert (inference["pod_cpus"], inference["shared_pool"], inference["shared_cpus"]) == ("2-8", "node", "0-1,9-15")
    assert inference["memory"] == {"memory": {"size": 14 * GI, "numa_nodes": [0]}}
    assert web["shared_cpus"] == "0-1,9-15"
    assert result["node"]["exclusive_count"] == 7
    assert inference["findings"] == []


def test_older_kubelet_without_fields_4_and_5_is_recognised(oracle):
    double = Double(POD_SCOPE, "--strip-pod-level")
    try:
        answer = client.read(double.socket, timeout=5)
    finally:
        double.stop()
    assert [p["cpu_ids"] for p in answer["pods"]] == ["", "", ""]
    assert [c["cpu_ids"] for c in answer["pods"][0]["containers"]] == ["2-7", "8", ""]
    result = allocations.reconcile_allocations(answer["pods"], "pod", "0-15", None, oracle)
    inference = result["pods"][0]
    assert (inference["pod_cpus"], inference["shared_cpus"], inference["shared_pool"]) == (None, None, None)
    assert inference["findings"] == [{
        "pod": "canary/inference", "container": None, "check": "pod_level_fields", "result": "unknown", "expected": "pod-level cpu_ids",
        "observed": "",
        "message": "pod canary/inference: PodResources has no pod-level cpu_ids (field 4) or memory (field 5) while containers server, tokenizer "
                   "hold exclusive CPUs 2-8: the kubelet predates the pod-level fields (1.37) or PodLevelResourceManagers is off; "
                   "the pod's whole allocation and its shared pool are unknown"}]
    # counted once, and only what the kubelet said: the pod's shared CPU 9 is not in any container's list
    assert result["node"]["exclusive_cpus"] == "2-8,10-11"


def test_refused_call_is_a_finding():
    double = Double(POD_SCOPE, "--refuse", "List:PERMISSION_DENIED")
    try:
        answer = client.read(double.socket, timeout=5)
    finally:
        double.stop()
    assert answer["pods"] == []
    assert answer["allocatable"]["cpu_ids"] == "1-15"
    assert answer["findings"] == [{"check": "podresources_call", "result": "unknown", "method": "List", "code": "PERMISSION_DENIED",
                                   "details": "List refused by the test double",
                                   "message": "PodResources List on %s failed: PERMISSION_DENIED: List refused by the test double" % double.socket}]


def test_missing_socket_and_dead_socket(tmp_path):
    missing = str(tmp_path / "kubelet.sock")
    answer = client.read(missing, timeout=1)
    assert answer == {"socket": missing, "reachable": False, "pods": [], "allocatable": None, "libraries": LIBRARIES, "findings": [
        {"check": "podresources_socket", "result": "unknown", "message": "no PodResources socket at %s: No such file or directory" % missing}]}
    dead = socket.socket(socket.AF_UNIX)
    dead.bind(missing)
    dead.close()  # the file stays, nobody listens: a stopped kubelet
    answer = client.read(missing, timeout=1)
    assert answer["reachable"] is False
    assert [(f["method"], f["code"]) for f in answer["findings"]] == [("List", "UNAVAILABLE"), ("GetAllocatableResources", "UNAVAILABLE")]


def test_unknown_scope_refused():
    with pytest.raises(nodefs.EvidenceError, match="topology manager scope 'node' is not one of pod, container"):
        allocations.reconcile_allocations([], "node", "0-1")
