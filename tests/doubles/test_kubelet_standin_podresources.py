# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The kubelet stand-in's PodResources socket answers the collection's own client (the real reader, here only in the test).

The stand-in (subprocess) admits the report's canary from the API server double on the machine of
test_kubelet_standin_pods.py (8 CPUs, NUMA node 0 = 0-3, node 1 = 4-7, 4 GiB each; CPU 0 and 1124Mi of
node 0 reserved): the pod's 4 CPUs and 4Gi are node 1's, main holds 4-5 and 2Gi, the sidecars run on the
pod's shared pool 6-7 and report nothing of their own. plugins/module_utils/_evidence/podresources
reads it over gRPC on <root-dir>/pod-resources/kubelet.sock, and _evidence.podresources.allocations reconciles it.
"""

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
