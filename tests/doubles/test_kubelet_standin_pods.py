# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The kubelet stand-in admits the API's pods: it runs as a subprocess against the API server double (in-process).

The machine: 8 CPUs without SMT, NUMA node 0 = CPUs 0-3, node 1 = CPUs 4-7, 4 GiB each; CPU 0 and
1124Mi of node 0 reserved. The report's canary (pod budget 4 CPU / 4Gi, main 2 CPU / 2Gi, two
sidecars) fits only node 1 (node 0 has 3 assignable CPUs and less than 4Gi allocatable); then a pod of
3 CPU / 3Gi fits the node's allocatable but no single NUMA node (node 0 has the CPUs, not the memory),
and is refused with the kubelet's TopologyAffinityError.
"""

import hashlib
import json
import time
import urllib.request

import pytest

from standin_harness import Running, fake_machine, fnv32a, read_state, v2_text

CONFIG = """apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
cpuManagerPolicy: static
memoryManagerPolicy: Static
topologyManagerPolicy: single-numa-node
topologyManagerScope: pod
featureGates: {PodLevelResources: true, PodLevelResourceManagers: true}
reservedSystemCPUs: "0"
kubeReserved: {memory: 1Gi}
reservedMemory:
- numaNode: 0
  limits: {memory: 1124Mi}
"""
GIB = 2 ** 30


@pytest.fixture(name="machine")
def fixture_machine(tmp_path):
    return fake_machine(tmp_path, "0-7", {0: "0-3", 1: "4-7"})


def canary(name, selector=None, cpu="4", memory="4Gi"):
    budget = {"cpu": cpu, "memory": memory}
    main = {"cpu": "2", "memory": "2Gi"}
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"},
            "spec": {"nodeSelector": selector or {"example.com/pod-managers": "canary", "kubernetes.io/hostname": "n1"},
                     "resources": {"requests": dict(budget), "limits": dict(budget)},
                     "initContainers": [{"name": n, "image": "pause", "restartPolicy": "Always"} for n in ("metrics", "logging")],
                     "containers": [{"name": "main", "image": "pause", "resources": {"requests": main, "limits": dict(main)}}]}}


def start(machine, api):
    return Running(machine, CONFIG, "--api-server", api.url, "--admit-api-pods", "--bind-pods", "--node-labels", "example.com/pod-managers=canary")


def wait_for(check, timeout=20):
    deadline = time.time() + timeout
    while time.time() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError("timed out")


def phase(api, name):
    pod = api.pod(name)
    return pod and (pod.get("status") or {}).get("phase") in ("Running", "Failed") and pod


def test_the_canary_is_bound_admitted_on_one_numa_node_and_released(machine, api):
    kubelet = start(machine, api)
    try:
        wait_for(lambda: "n1" in [n["metadata"]["name"] for n in api.store.list("nodes")[0]])
        assert api.node("n1")["metadata"]["labels"]["example.com/pod-managers"] == "canary"
        first = api.store.create("pods", canary("first"))
        pod = wait_for(lambda: phase(api, "first"))
        uid = first["metadata"]["uid"]
        status = pod["status"]
        assert (pod["spec"]["nodeName"], status["phase"], status["qosClass"]) == ("n1", "Running", "Guaranteed")
        assert [c["type"] for c in status["conditions"] if c["status"] == "True"] == [
            "PodReadyToStartContainers", "Initialized", "Ready", "ContainersReady", "PodScheduled"]
        ids = {c["name"]: c["containerID"] for c in status["containerStatuses"] + status["initContainerStatuses"]}
        assert ids == {n: "containerd://" + hashlib.sha256(("%s/%s" % (uid, n)).encode()).hexdigest() for n in ("main", "metrics", "logging")}
        cpu = read_state(machine, "cpu_manager_state")
        entries = {uid: {"logging": "6-7", "main": "4-5", "metrics": "6-7"}}
        assert json.loads(cpu["data"]) == {"policyName": "static", "defaultCpuSet": "0-3", "entries": entries, "podEntries": {uid: {"cpuSet": "4-7"}}}
        assert cpu["dataChecksum"] == fnv32a("(string)" + cpu["data"])
        assert cpu["checksum"] == fnv32a(v2_text("static", "0-3", entries))
        mem = json.loads(read_state(machine, "memory_manager_state")["data"])
        block = {"numaAffinity": [1], "type": "memory", "size": 2 * GIB}
        assert mem["entries"] == {uid: {"main": [block], "metrics": [block], "logging": [block]}}
        assert mem["podEntries"] == {uid: {"memoryBlocks": [dict(block, size=4 * GIB)]}}
        assert mem["machineState"]["1"] == {"numberOfAssignments": 1, "cells": [1], "memoryMap": {"memory": {
            "total": 4 * GIB, "systemReserved": 0, "allocatable": 4 * GIB, "reserved": 4 * GIB, "free": 0}}}
        assert mem["machineState"]["0"]["numberOfAssignments"] == 0

        # 3 CPUs / 3Gi fit the node's allocatable (the binder binds it) and node 0's CPUs, not its memory: no single node holds both
        api.store.create("pods", canary("second", cpu="3", memory="3Gi"))
        refused = wait_for(lambda: phase(api, "second"))["status"]
        # The binding's PodScheduled condition stays: the kubelet's status manager keeps conditions it does not own (mergePodStatus).
        scheduled = [c for c in refused.pop("conditions", []) if c["type"] == "PodScheduled"]
        assert [c["status"] for c in scheduled] == ["True"]
        assert refused == {"phase": "Failed", "reason": "TopologyAffinityError", "qosClass": "Guaranteed",
                           "message": "Pod was rejected: Pod Scope pod with pod-level resources failed admission under pod-scope topology manager"}
        events = [(e["type"], e["reason"], e["message"], e["source"]) for e in api.store.list("events")[0] if e["involvedObject"]["name"] == "second"]
        assert events == [("Warning", "TopologyAffinityError", "Pod Scope pod with pod-level resources failed admission under pod-scope topology manager",
                           {"component": "kubelet", "host": "n1"})]
        assert json.loads(read_state(machine, "cpu_manager_state")["data"])["entries"] == entries

        elsewhere = api.store.create("pods", canary("elsewhere", {"kubernetes.io/hostname": "n2"}))
        metrics = urlget("http://127.0.0.1:%d/metrics" % kubelet.port)
        assert 'resource_manager_allocations_total{resource_name="cpu",source="pod"} 3' in metrics
        assert 'resource_manager_container_assignments{assignment_type="pod_exclusive",resource_name="cpu"} 1' in metrics

        api.store.delete("pods", "default", "first")
        wait_for(lambda: api.pod("first") is None)
        wait_for(lambda: "entries" not in json.loads(read_state(machine, "cpu_manager_state")["data"]))
        assert json.loads(read_state(machine, "cpu_manager_state")["data"]) == {"policyName": "static", "defaultCpuSet": "0-7"}
        mem = json.loads(read_state(machine, "memory_manager_state")["data"])
        assert "podEntries" not in mem and mem["machineState"]["1"]["memoryMap"]["memory"]["free"] == 4 * GIB
        assert mem["machineState"]["1"]["numberOfAssignments"] == 0
        assert api.pod("elsewhere")["spec"].get("nodeName") is None and elsewhere["metadata"]["uid"]
    finally:
        kubelet.stop()


def test_a_restart_keeps_the_admitted_canary_and_passes_the_start_checks(machine, api):
    kubelet = start(machine, api)
    try:
        api.store.create("pods", canary("first"))
        before = wait_for(lambda: phase(api, "first"))
    finally:
        kubelet.stop()
    states = [open(str(machine / "root" / n), "rb").read() for n in ("cpu_manager_state", "memory_manager_state")]
    kubelet = start(machine, api)
    try:
        time.sleep(2.5)
        assert api.pod("first")["status"] == before["status"]
    finally:
        kubelet.stop()
    assert [open(str(machine / "root" / n), "rb").read() for n in ("cpu_manager_state", "memory_manager_state")] == states


def test_without_the_flag_api_pods_are_left_alone(machine, api):
    kubelet = Running(machine, CONFIG, "--api-server", api.url)
    try:
        api.store.create("pods", dict(canary("first"), spec=dict(canary("first")["spec"], nodeName="n1")))
        time.sleep(2.5)
        assert "status" not in api.pod("first") or not api.pod("first")["status"].get("phase")
    finally:
        kubelet.stop()
    assert "entries" not in json.loads(read_state(machine, "cpu_manager_state")["data"])


def urlget(url):
    with urllib.request.urlopen(url, timeout=2) as resp:
        return resp.read().decode()
