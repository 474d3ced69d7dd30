"""Property: any JSON at all in a checkpoint file is a report, never an exception (issue 16, rule 7)."""

import json

from hypothesis import given, settings, strategies as st

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kubelet.checkpoints import checks as checkpoint_checks, read as checkpoint_read
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kubelet.checkpoints.checksum import data_checksum

KEYS = ["policyName", "defaultCpuSet", "defaultCPUSet", "entries", "podEntries", "checksum", "machineState", "memoryMap", "cells",
        "numberOfAssignments", "total", "systemReserved", "cpuSet", "memoryBlocks", "numaAffinity", "type", "size", "0", "1", "pod", "c"]
SCALARS = st.none() | st.booleans() | st.integers(-2**70, 2**70) | st.floats(allow_nan=False) | st.sampled_from(["", "0-3", "static", "x", "1.3"])
VALUES = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(KEYS), inner, max_size=4),
                      max_leaves=25)
DOCUMENTS = st.dictionaries(st.sampled_from(KEYS), VALUES, max_size=6)


def _field(valid):
    return st.one_of(valid, VALUES)


# Near-valid documents: each field either of its Go type or anything, so the checks past the decode are reached too.
_CPUS = st.sampled_from(["", "0", "1-3", "0-3", "2,3", "1.3"])
_TABLE_FIELDS = ("total", "systemReserved", "allocatable", "reserved", "free")
_TABLE = st.fixed_dictionaries({}, optional={name: _field(st.integers(-5, 4096)) for name in _TABLE_FIELDS})
_NODE = st.fixed_dictionaries({}, optional={"numberOfAssignments": _field(st.integers(0, 3)),
                                            "memoryMap": _field(st.dictionaries(st.sampled_from(["memory", "hugepages-2Mi"]),
                                                                                _field(_TABLE) | st.none(), max_size=2)),
                                            "cells": _field(st.lists(st.integers(0, 3), max_size=2))})
_BLOCK = st.fixed_dictionaries({}, optional={"numaAffinity": _field(st.lists(st.integers(0, 2), max_size=2)),
                                             "type": _field(st.just("memory")), "size": _field(st.integers(0, 10))})
NEAR_CPU = st.fixed_dictionaries({}, optional={
    "policyName": _field(st.sampled_from(["static", "none"])), "defaultCpuSet": _field(_CPUS),
    "entries": _field(st.dictionaries(st.sampled_from(["pod", "p2"]), _field(st.dictionaries(st.sampled_from(["c", "d"]), _field(_CPUS))) | st.none())),
    "podEntries": _field(st.dictionaries(st.sampled_from(["pod"]), _field(st.fixed_dictionaries({"cpuSet": _field(_CPUS)})) | st.none())),
    "checksum": _field(st.just(0))})
NEAR_MEMORY = st.fixed_dictionaries({}, optional={
    "policyName": _field(st.sampled_from(["Static", "None"])),
    "machineState": _field(st.dictionaries(st.sampled_from(["0", "1", "-1", "x"]), _field(_NODE) | st.none(), max_size=2)),
    "entries": _field(st.dictionaries(st.just("pod"), _field(st.dictionaries(st.just("c"), _field(st.lists(_field(_BLOCK), max_size=2)))))),
    "podEntries": _field(st.dictionaries(st.just("pod"), _field(st.fixed_dictionaries({"memoryBlocks": _field(st.lists(_BLOCK, max_size=2))})))),
    "checksum": _field(st.just(0))})
TARGET = {"cpu_policy": "static", "memory_policy": "Static", "reserved_cpus": "0", "strict_cpu_reservation": False,
          "online_cpus": "0-3", "reserved_memory": {0: {"memory": 1}}, "numa_memory": {"0": 1024}}


def _check(report, refusal):
    json.dumps(report)
    assert report["present"] is True and isinstance(report["load"], bool)
    assert report["load"] or isinstance(report["problem"], str)
    message = refusal(report, TARGET, "/f")
    assert message is None or isinstance(message, str)


@settings(max_examples=800, deadline=None)
@given(DOCUMENTS | NEAR_CPU, st.booleans())
def test_any_cpu_checkpoint_is_a_report(document, as_data):
    if as_data:
        data = json.dumps(document)
        document = {"policyName": "static", "data": data, "dataChecksum": data_checksum(data)}
    _check(checkpoint_read.read_cpu(json.dumps(document).encode()), checkpoint_checks.cpu_refusal)


@settings(max_examples=800, deadline=None)
@given(DOCUMENTS | NEAR_MEMORY, st.booleans())
def test_any_memory_checkpoint_is_a_report(document, as_data):
    if as_data:
        data = json.dumps(document)
        document = {"policyName": "Static", "data": data, "dataChecksum": data_checksum(data)}
    _check(checkpoint_read.read_memory(json.dumps(document).encode()), checkpoint_checks.memory_refusal)
