# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The kubelet stand-in's PodResources socket answers the collection's own client (the real reader, here only in the test).

The stand-in (subprocess) admits the report's canary from the API server double on the machine of
test_kubelet_standin_pods.py (8 CPUs, NUMA node 0 = 0-3, node 1 = 4-7, 4 GiB each; CPU 0 and 1124Mi of
node 0 reserved): the pod's 4 CPUs and 4Gi are node 1's, main holds 4-5 and 2Gi, the sidecars run on the
pod's shared pool 6-7 and report nothing of their own. plugins/module_utils/_evidence/podresources
reads it over gRPC on <root-dir>/pod-resources/kubelet.sock, and _evidence.podresources.allocations reconciles it.
"""

import json
import os
import time

import grpc

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence.podresources import allocations
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence.podresources import client, messages
from standin_harness import Running
from test_kubelet_standin_pods import CONFIG, GIB, canary, fixture_machine, phase, wait_for  # noqa: F401 pylint: disable=unused-import

NODE0_ALLOCATABLE = 4 * GIB - 1124 * 2 ** 20


def socket_of(machine):
    return str(machine / "root" / "pod-resources" / "kubelet.sock")


def start(machine, api):
    kubelet = Running(machine, CONFIG, "--api-server", api.url, "--admit-api-pods", "--bind-pods", "--node-labels", "example.com/pod-managers=canary")
    wait_for(lambda: os.path.exists(socket_of(machine)))
    return kubelet


def block(size, node):
    return {"memory_type": "memory", "size": size, "numa_nodes": [node]}


def container(name, cpus="", memory=None):
    return {"name": name, "cpu_ids": cpus, "devices": [], "memory": memory or [], "dynamic_resources": []}


def test_list_get_and_allocatable_answer_the_collections_client(machine, api):
    kubelet = start(machine, api)
    try:
        empty = client.read(socket_of(machine))
        assert (empty["reachable"], empty["pods"], empty["findings"]) == (True, [], [])
        assert empty["allocatable"] == {"cpu_ids": "1-7", "memory": [block(NODE0_ALLOCATABLE, 0), block(4 * GIB, 1)], "devices": []}

        api.store.create("pods", canary("first"))
        wait_for(lambda: phase(api, "first"))
        listed = client.read(socket_of(machine))
        pod = {"name": "first", "namespace": "default", "cpu_ids": "4-7", "memory": [block(4 * GIB, 1)],
               "containers": [container("metrics"), container("logging"), container("main", "4-5", [block(2 * GIB, 1)])]}
        assert listed["findings"] == []
        assert listed["pods"] == [pod]
        assert listed["allocatable"] == empty["allocatable"]

        got = client.read(socket_of(machine), pods=[{"name": "first", "namespace": "default"}, {"name": "nope", "namespace": "default"}])
        assert got["pods"] == [pod]
        assert got["findings"] == [{"check": "podresources_call", "result": "unknown", "method": "Get", "code": "UNKNOWN",
                                    "details": "pod nope in namespace default not found",
                                    "message": "PodResources Get on %s failed: UNKNOWN: pod nope in namespace default not found" % socket_of(machine)}]

        reconciled = allocations.reconcile_allocations(listed["pods"], "pod", "0-7", listed["allocatable"]["cpu_ids"])
        one = reconciled["pods"][0]
        assert (one["pod_cpus"], one["exclusive"], one["shared_containers"], one["shared_cpus"], one["shared_pool"]) == (
            "4-7", {"main": "4-5"}, ["metrics", "logging"], "6-7", "pod")
        assert one["memory"] == {"memory": {"size": 4 * GIB, "numa_nodes": [1]}}
        assert (one["findings"], reconciled["findings"]) == ([], [])
        assert reconciled["node"] == {"online_cpus": "0-7", "allocatable_cpus": "1-7", "exclusive_cpus": "4-7", "exclusive_count": 4,
                                      "shared_pool": "0-3"}

        api.store.delete("pods", "default", "first")
        wait_for(lambda: api.pod("first") is None)
        wait_for(lambda: client.read(socket_of(machine))["pods"] == [])
    finally:
        kubelet.stop()


def test_more_than_the_burst_is_rejected_by_the_rate_limit(machine, api):
    kubelet = start(machine, api)
    api_classes = messages.load()
    path, request_class, response_class = api_classes.methods["List"]
    channel = grpc.insecure_channel("unix://" + socket_of(machine))
    try:
        call = channel.unary_unary(path, request_serializer=request_class.SerializeToString, response_deserializer=response_class.FromString)
        answers = []
        started = time.monotonic()
        for _attempt in range(30):
            try:
                call(request_class(), timeout=5)
                answers.append("OK")
            except grpc.RpcError as exc:
                answers.append("%s: %s" % (exc.code().name, exc.details()))
        elapsed = time.monotonic() - started
        # burst 10, then 100 a second: 30 calls in `elapsed` seconds can have at most 10 + 100 * elapsed answered
        assert answers[:10] == ["OK"] * 10
        assert answers.count("OK") <= 10 + int(100 * elapsed) + 1
        assert set(answers) == {"OK", "RESOURCE_EXHAUSTED: rejected by rate limit"}
    finally:
        channel.close()
        kubelet.stop()


# MIG devices as NVIDIA's plugin names them (the 2x A100-SXM4-80GB nvidia-smi -L capture of the facts' tests), both on GPU 1 (node 1).
MIGS = ["MIG-d5a46a2e-1d77-575d-99e3-1f96c8555a2e", "MIG-b8479d6e-d08f-5a92-9a24-0946db72b2a0"]


def test_mig_devices_and_dra_claims_are_reported_and_join_the_host(machine, api):
    from apiserver import device_objects  # pylint: disable=import-outside-toplevel
    from ansible_collections.gpusmith.numa_gate.plugins.module_utils._device_path import dra_claims  # pylint: disable=import-outside-toplevel
    from ansible_collections.gpusmith.numa_gate.plugins.module_utils._plan import locality  # pylint: disable=import-outside-toplevel
    kubelet = Running(machine, CONFIG, "--api-server", api.url, "--admit-api-pods", "--bind-pods", "--device-plugins",
                      "--node-labels", "example.com/pod-managers=canary")
    folder = machine / "root" / "device-plugins"
    try:
        wait_for(lambda: os.path.exists(socket_of(machine)) and (folder / "kubelet.sock").exists())
        (folder / "nvidia-mig.json").write_text(json.dumps({"resourceName": "nvidia.com/mig-1g.10gb", "devices": 2, "ids": MIGS, "numaNodes": [1, 1]}))
        slice_device = {"name": "gpu-0", "attributes": {"uuid": {"string": "GPU-9c73eb7b-8d6d-6c0e-dc13-97873e2ede40"},
                                                        "resource.kubernetes.io/pciBusID": {"string": "0000:07:00.0"},
                                                        "resource.kubernetes.io/numaNode": {"int": 0}}}
        api.store.create("resourceslices", device_objects.resource_slice("n1-gpu.nvidia.com-x7k2p", "n1", "gpu.nvidia.com", [slice_device]))
        api.store.create("resourceclaims", device_objects.resource_claim("gpu-claim", "default", [("gpu", "gpu.nvidia.com", "n1", "gpu-0")]))
        pod = canary("first")
        main = pod["spec"]["containers"][0]
        main["resources"]["limits"]["nvidia.com/mig-1g.10gb"] = "1"
        main["resources"]["claims"] = [{"name": "gpu"}]
        pod["spec"]["resourceClaims"] = [{"name": "gpu", "resourceClaimName": "gpu-claim"}]
        api.store.create("pods", pod)
        wait_for(lambda: phase(api, "first"))
        listed = client.read(socket_of(machine))
        (got,) = [c for c in listed["pods"][0]["containers"] if c["name"] == "main"]
        assert got["devices"] == [{"resource_name": "nvidia.com/mig-1g.10gb", "device_ids": [MIGS[0]], "numa_nodes": [1]}]
        assert got["dynamic_resources"] == [{"claim_name": "gpu-claim", "claim_namespace": "default", "claim_resources": [
            {"driver_name": "gpu.nvidia.com", "pool_name": "n1", "device_name": "gpu-0", "cdi_devices": []}]}]
        assert [(g["resource_name"], g["device_ids"], g["numa_nodes"]) for g in listed["allocatable"]["devices"]] == [
            ("nvidia.com/mig-1g.10gb", [MIGS[0]], [1]), ("nvidia.com/mig-1g.10gb", [MIGS[1]], [1])]

        # The host: GPU 1 (node 1) lists both MIG devices (facts from nvidia-smi -L), GPU 0 is on node 0.
        facts = {"schema_version": 1, "cpus": {"online": "0-7", "isolated": ""},
                 "numa_nodes": [{"id": 0, "cpus": "0-3"}, {"id": 1, "cpus": "4-7"}],
                 "gpus": [{"index": 0, "uuid": "GPU-9c73eb7b-8d6d-6c0e-dc13-97873e2ede40", "pci_address": "0000:07:00.0", "numa_node": 0},
                          {"index": 1, "uuid": "GPU-c92e2d5d-4a69-f1cd-4df0-305f8606705a", "pci_address": "0000:87:00.0", "numa_node": 1,
                           "mig_devices": [{"uuid": m} for m in MIGS]}], "nics": []}
        dra = dra_claims.prepare([api.store.get("resourceclaims", "default", "gpu-claim")],
                                 [api.store.get("resourceslices", None, "n1-gpu.nvidia.com-x7k2p")], "n1")
        one = allocations.reconcile_allocations(listed["pods"], "pod", "0-7", listed["allocatable"]["cpu_ids"], locality.build(facts), dra)["pods"][0]
        mig, claimed = one["devices"]["main"]
        assert (mig["mig_uuid"], mig["uuid"], mig["numa_node"]) == (MIGS[0], "GPU-c92e2d5d-4a69-f1cd-4df0-305f8606705a", 1)
        assert (claimed["claim"], claimed["slice_numa_node"], claimed["numa_node"]) == ("default/gpu-claim", 0, 0)
        assert [(f["check"], f["result"]) for f in one["findings"]] == [("dra_device_numa", "disagree"), ("dra_device_memory_numa", "disagree")]
    finally:
        kubelet.stop()
