"""The kubelet's start checks over checkpoints, in its words."""

import json

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kubelet.checkpoints import checks
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kubelet.checkpoints import read
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kubelet.checkpoints.checksum import data_checksum

CPU_PATH = "/var/lib/kubelet/cpu_manager_state"
MEM_PATH = "/var/lib/kubelet/memory_manager_state"
NODE = {"online_cpus": "0-7", "numa_nodes": {0: 2048}, "memory_bytes": 2048}
TARGET = checks.target_from_config({"cpuManagerPolicy": "static", "memoryManagerPolicy": "Static", "reservedSystemCPUs": "0-1",
                                    "reservedMemory": [{"numaNode": 0, "limits": {"memory": "512"}}]}, NODE)


def _v4(policy, default, entries=None, pods=None):
    data = {"policyName": policy, "defaultCpuSet": default}
    if entries:
        data["entries"] = entries
    if pods:
        data["podEntries"] = {pod: {"cpuSet": cpus} for pod, cpus in pods.items()}
    text = json.dumps(data, separators=(",", ":"))
    return read.read_cpu(json.dumps(dict(data, checksum=0, data=text, dataChecksum=data_checksum(text))).encode())


def test_target_from_config_defaults():
    assert checks.target_from_config({}, None) == {
        "cpu_policy": "none", "memory_policy": "None", "reserved_cpus": None, "strict_cpu_reservation": False,
        "online_cpus": None, "reserved_memory": {}, "numa_memory": None}
    assert TARGET["reserved_memory"] == {0: {"memory": 512}}


def test_absent_checkpoint_never_refuses():
    assert checks.cpu_refusal(read.absent("cpu"), TARGET, CPU_PATH) is None
    assert checks.memory_refusal(read.absent("memory"), TARGET, MEM_PATH) is None


def test_policy_differs_in_the_kubelets_words():
    assert checks.cpu_refusal(_v4("none", "0-7"), TARGET, CPU_PATH) == (
        'could not restore state from checkpoint: configured policy "static" differs from state checkpoint policy "none", '
        'please drain this node and delete the CPU manager checkpoint file "/var/lib/kubelet/cpu_manager_state" before restarting Kubelet')


def test_reserved_not_in_default_set():
    assert checks.cpu_refusal(_v4("static", "2-7", {"p": {"c": "0-1"}}), TARGET, CPU_PATH) == (
        'Static policy invalid state, please drain node and remove policy state file: '
        'not all reserved cpus: "0-1" are present in defaultCpuSet: "2-7"')


def test_online_cpus_changed():
    assert checks.cpu_refusal(_v4("static", "0-5"), TARGET, CPU_PATH) == (
        'Static policy invalid state, please drain node and remove policy state file: '
        'current set of available CPUs "0-7" doesn\'t match with CPUs in state "0-5"')


def test_pod_level_sets_count_as_known_cpus_and_a_matching_state_starts():
    assert checks.cpu_refusal(_v4("static", "0-1,6-7", {"p": {"c": "2-3"}}, {"p": "2-5"}), TARGET, CPU_PATH) is None


def test_overlap_with_default_set():
    assert checks.cpu_refusal(_v4("static", "0-7", {"p": {"c": "3"}}), TARGET, CPU_PATH) == (
        'Static policy invalid state, please drain node and remove policy state file: '
        'pod: p, container: c cpuset: "3" overlaps with default cpuset "0-7"')


def test_strict_reservation():
    target = dict(TARGET, strict_cpu_reservation=True)
    assert checks.cpu_refusal(_v4("static", "0-7"), target, CPU_PATH) == (
        'Static policy invalid state, please drain node and remove policy state file: '
        'some of strictly reserved cpus: "0-1" are present in defaultCpuSet: "0-7"')
    assert checks.cpu_refusal(_v4("static", "2-7"), target, CPU_PATH) is None


def test_corrupt_file_is_wrapped():
    report = read.read_cpu(b'{"policyName":"static","defaultCpuSet":"0-7","checksum":1}')
    assert checks.cpu_refusal(report, TARGET, CPU_PATH) == (
        'could not restore state from checkpoint: checkpoint is corrupted, please drain this node and delete the CPU manager '
        'checkpoint file "/var/lib/kubelet/cpu_manager_state" before restarting Kubelet')


def _memory(system_reserved, total=2048, policy="Static"):
    doc = {"policyName": policy, "machineState": {"0": {"numberOfAssignments": 0, "memoryMap": {"memory": {
        "total": total, "systemReserved": system_reserved, "allocatable": total - system_reserved, "reserved": 0,
        "free": total - system_reserved}}, "cells": [0]}}, "entries": {}, "checksum": 0}
    return read.read_memory(json.dumps(doc).encode())


def test_memory_machine_state_matches_then_changes():
    assert checks.memory_refusal(_memory(512), TARGET, MEM_PATH) is None
    assert checks.memory_refusal(_memory(1024), TARGET, MEM_PATH) == "[memorymanager] the expected machine state is different from the real one"
    assert checks.memory_refusal(_memory(512, total=4096), TARGET, MEM_PATH) == checks.MACHINE_STATE


def test_memory_policy_differs():
    assert checks.memory_refusal(_memory(0, policy="None"), TARGET, MEM_PATH) == (
        'could not restore state from checkpoint: configured policy "Static" differs from state checkpoint policy "None", '
        'please drain this node and delete the memory manager checkpoint file "/var/lib/kubelet/memory_manager_state" before restarting Kubelet')
