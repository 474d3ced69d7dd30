"""Every checkpoint format the kubelet writes, read as 1.37 reads it, checksums verified."""

import json

import pytest

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kubelet.checkpoints import read

V2_CPU = {"policyName": "static", "defaultCpuSet": "0,2-12,14-23",
          "entries": {"235148fe-393f-47a8-a17d-bd55bc1a836b": {"cgroup1-0": "1,13"}}, "checksum": 1552716370}
# The second upstream data vector, as the data of a V4 file whose legacy copy was cleared (1.37 writes checksum 0).
V4_DATA = '{"policyName":"static","defaultCPUSet":"7-9","entries":{"pod":{"container1":"4-6","container2":"1-3"}}}'
V4_CPU = {"policyName": "static", "defaultCpuSet": "7-9", "entries": {"pod": {"container1": "4-6", "container2": "1-3"}},
          "checksum": 0, "data": V4_DATA, "dataChecksum": 1420829534}
V1_MEMORY = {"policyName": "static",
             "machineState": {"0": {"numberOfAssignments": 0, "memoryMap": {"memory": {
                 "total": 2048, "systemReserved": 512, "allocatable": 1536, "reserved": 512, "free": 1024}}, "cells": []}},
             "entries": {"pod": {"container1": [{"numaAffinity": [0], "type": "memory", "size": 512}]}},
             "checksum": 4215593881}


def _blob(document):
    return json.dumps(document).encode()


def test_v2_cpu_is_valid_and_read_whole():
    report = read.read_cpu(_blob(V2_CPU))
    assert report["format"] == "V2" and report["load"] is True and report["problem"] is None
    assert report["checksums"] == {"checksum": {"status": "valid", "stored": 1552716370, "computed": 1552716370}}
    assert report["policy"] == "static" and report["default_cpu_set"] == "0,2-12,14-23"
    assert report["entries"] == {"235148fe-393f-47a8-a17d-bd55bc1a836b": {"cgroup1-0": "1,13"}}
    assert report["downgrade"] == {"kubelet": "1.36", "reads_as": "V2", "keeps": "everything", "loses": []}


def test_v2_cpu_with_one_corrupted_byte():
    blob = _blob(V2_CPU).replace(b"14-23", b"14-22")
    report = read.read_cpu(blob)
    assert report["load"] is False and report["problem"] == "checkpoint is corrupted"
    assert report["checksums"]["checksum"]["status"] == "invalid"


def test_zero_checksum_is_accepted_as_absent():
    report = read.read_cpu(_blob(dict(V2_CPU, checksum=0)))
    assert report["checksums"]["checksum"]["status"] == "absent" and report["load"] is True


def test_v1_cpu_is_not_migrated_by_137():
    report = read.read_cpu(_blob({"policyName": "static", "defaultCpuSet": "0-3", "entries": {"docker://abc": "1"}, "checksum": 0}))
    assert report["format"] == "V1" and report["load"] is False
    assert report["problem"] == "V1 checkpoint (entries keyed by container ID): the 1.37 kubelet no longer migrates it"


def test_v3_cpu_with_empty_pod_entries_is_verified_and_without_zero_exemption():
    doc = {"policyName": "none", "defaultCpuSet": "", "entries": {}, "podEntries": {}, "checksum": 0}
    report = read.read_cpu(_blob(doc))
    assert report["format"] == "V3"
    assert report["checksums"]["checksum"]["status"] == "invalid" and report["problem"] == "checkpoint is corrupted"
    doc["checksum"] = report["checksums"]["checksum"]["computed"]
    assert read.read_cpu(_blob(doc))["load"] is True


def test_v3_cpu_with_pod_entries_upstream_vector():
    # pkg/kubelet/cm/cpumanager/state/state_checkpoint_test.go, "Restore checkpoint from v3 (migration)".
    doc = {"policyName": "static", "defaultCPUSet": "1-2", "entries": {"pod1": {"container1": "5-6", "container2": "3-4"}},
           "podEntries": {"pod2": {"cpuSet": "7-9"}}, "checksum": 2284712151}
    report = read.read_cpu(_blob(doc))
    assert report["format"] == "V3" and report["load"] is True
    assert report["checksums"]["checksum"] == {"status": "valid", "stored": 2284712151, "computed": 2284712151}
    assert report["pod_entries"] == {"pod2": "7-9"} and report["default_cpu_set"] == "1-2"
    doc["podEntries"]["pod2"]["cpuSet"] = "7-8"
    assert read.read_cpu(_blob(doc))["checksums"]["checksum"]["status"] == "invalid"


def test_memory_v2_with_pod_entries_upstream_vector():
    # pkg/kubelet/cm/memorymanager/state/state_checkpoint_test.go, "Restore checkpoint from v2 with PodLevelResourceManagers enabled".
    doc = dict(V1_MEMORY, podEntries={"pod": {"memoryBlocks": [{"numaAffinity": [0], "type": "memory", "size": 512}]}},
               checksum=1278640530)
    report = read.read_memory(_blob(doc))
    assert report["format"] == "V2" and report["load"] is True
    assert report["checksums"]["checksum"] == {"status": "valid", "stored": 1278640530, "computed": 1278640530}


def test_v4_cpu_trusts_data_and_reports_the_downgrade():
    report = read.read_cpu(_blob(V4_CPU))
    assert report["format"] == "V4" and report["load"] is True
    assert report["checksums"]["dataChecksum"] == {"status": "valid", "stored": 1420829534, "computed": 1420829534}
    assert report["checksums"]["checksum"]["status"] == "absent"
    assert report["default_cpu_set"] == "7-9"  # from data, whose key is spelled defaultCPUSet
    assert report["legacy_copy_matches_data"] is True
    assert report["downgrade"]["reads_as"] == "V2 (the top-level copy)" and report["downgrade"]["loses"] == []


def test_v4_cpu_pod_entries_are_lost_on_downgrade():
    data = json.dumps({"policyName": "static", "defaultCpuSet": "0-1,6-7", "entries": {"p": {"main": "2-3"}},
                       "podEntries": {"p": {"cpuSet": "2-5"}}}, separators=(",", ":"))
    from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kubelet.checkpoints.checksum import data_checksum
    doc = {"policyName": "static", "defaultCpuSet": "0-1,6-7", "entries": {"p": {"main": "2-3"}},
           "podEntries": {"p": {"cpuSet": "2-5"}}, "checksum": 0, "data": data, "dataChecksum": data_checksum(data)}
    report = read.read_cpu(_blob(doc))
    assert report["pod_entries"] == {"p": "2-5"}
    assert report["downgrade"]["loses"] == ["pod-level assignments of pod p"]


def test_v4_with_damaged_data_does_not_fall_back():
    doc = dict(V4_CPU, data=V4_DATA.replace("7-9", "7-8"))
    report = read.read_cpu(_blob(doc))
    assert report["load"] is False and report["problem"] == "could not load v4 checkpoint: checkpoint is corrupted"
    assert report["checksums"]["dataChecksum"]["status"] == "invalid"


def test_v4_with_checksum_but_no_data():
    report = read.read_cpu(_blob({"policyName": "static", "dataChecksum": 1234}))
    assert report["load"] is False
    assert report["problem"] == "could not load v4 checkpoint: failed to deserialize cpu manager checkpoint data: data is missing"


def test_v4_corrupted_top_level_copy_is_ignored_by_137():
    doc = dict(V4_CPU, defaultCpuSet="0-63")
    report = read.read_cpu(_blob(doc))
    assert report["load"] is True and report["default_cpu_set"] == "7-9"
    assert report["legacy_copy_matches_data"] is False


def test_memory_v1_vector_is_valid():
    report = read.read_memory(_blob(V1_MEMORY))
    assert report["format"] == "V1" and report["load"] is True
    assert report["checksums"]["checksum"] == {"status": "valid", "stored": 4215593881, "computed": 4215593881}
    assert report["machine_state"]["0"]["memoryMap"]["memory"]["systemReserved"] == 512


def test_memory_v3_keeps_a_valid_v1_copy():
    from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kubelet.checkpoints.checksum import data_checksum
    data = json.dumps({"policyName": "static", "machineState": V1_MEMORY["machineState"], "entries": V1_MEMORY["entries"],
                       "podEntries": {"pod": {}}})
    doc = dict(V1_MEMORY, data=data, dataChecksum=data_checksum(data))
    report = read.read_memory(_blob(doc))
    assert report["format"] == "V3" and report["load"] is True
    assert report["checksums"]["checksum"]["status"] == "valid"
    assert report["checksums"]["dataChecksum"]["status"] == "valid"
    assert report["downgrade"] == {"kubelet": "1.36", "reads_as": "V1 (the top-level copy)",
                                   "keeps": "policyName, machineState and container entries",
                                   "loses": ["pod-level assignments of pod pod"]}


@pytest.mark.parametrize("blob, problem", [
    (b"\xff\xfe", "cpu_manager_state is not JSON: 'utf-8' codec can't decode byte 0xff in position 0: invalid start byte"),
    (b"[1, 2]", "cpu_manager_state is a JSON list, not an object"),
    (b"{", "cpu_manager_state is not JSON: Expecting property name enclosed in double quotes: line 1 column 2 (char 1)"),
])
def test_garbage_is_a_clear_finding(blob, problem):
    report = read.read_cpu(blob)
    assert report["present"] is True and report["load"] is False and report["problem"] == problem


def test_wrong_field_type_is_invalid_not_a_traceback():
    report = read.read_cpu(_blob(dict(V2_CPU, defaultCpuSet=["x"])))
    assert report["load"] is False and report["checksums"]["checksum"]["status"] == "invalid"
    assert report["checksums"]["checksum"]["reason"] == "checkpoint.defaultCpuSet is ['x'], not a string"
