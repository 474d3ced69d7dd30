"""The acceptance record (_record/record.py) on the real H200 facts and hwloc's 40intel64-2g2n4c+pci (4 NUMA nodes, 40 cores): exact values."""

import json

import pytest

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._plan import locality
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._record import record
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._record.errors import RecordError
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._record.pages import sections
from ansible_collections.gpusmith.numa_gate.tests.unit.plugins.module_utils._record import record_inputs as ri


def test_full_record_on_the_h200(tmp_path):
    facts = ri.h200_facts()
    built = record.build(facts, "h200-vm", ri.full_inputs(str(tmp_path), facts))
    assert sorted(built) == ["admission_failure", "allocations", "attestations", "canary", "config_diff", "cpu_roles", "device_path", "devices", "effect",
                             "generated_at", "host",
                             "locality", "memory", "metrics", "mode", "node", "observed", "placement", "reservation", "schema_version", "slack", "topology",
                             "transport", "verdict", "versions", "warnings"]
    assert (built["schema_version"], built["host"], built["mode"], built["generated_at"]) == (1, "h200-vm", "full", "2026-12-01T09:00:00Z")
    assert built["versions"] == {"kubelet": "v1.37.1", "kernel": "6.18.44-vm", "driver": "580.82.07", "node_image": "debian-12-gpu-20261101"}
    assert built["devices"]["gpus"] == [{"index": 0, "vendor": "nvidia", "uuid": ri.GPU_UUID, "pci_address": "0000:00:06.0", "name": "NVIDIA H200",
                                         "numa_node": 0, "numa_source": "single-node", "sysfs_numa_node": None, "local_cpus": "0-15",
                                         "identities": {}, "partition_mode": None, "partitions": []}]
    assert built["devices"]["nics"] == [{"name": "eth0", "pci_address": "0000:00:03.0", "driver": "virtio-pci", "numa_node": 0,
                                         "numa_source": "single-node", "sysfs_numa_node": None, "local_cpus": "0-15", "rdma_devices": [],
                                         "virtual_function": False}]
    assert built["cpu_roles"] == {"online": "0-15", "offline": "", "isolated": "", "reserved": "0-1", "exclusive": "2-5", "shared": "6-15",
                                  "canary_exclusive": "2-3", "canary_shared": "4-5", "reserved_source": "plan"}
    assert built["canary"] == {"pod": ri.CANARY, "admission": {"admitted": True, "failures": []}, "scope": "pod", "cpus": "2-5",
                               "exclusive": {"main": "2-3"}, "shared_cpus": "4-5", "shared_containers": ["metrics", "logging"],
                               "devices": ["0000:00:06.0"], "memory_nodes": None}
    assert built["config_diff"] == [
        {"key": "cpuManagerPolicy", "change": "changed", "before": "none", "after": "static"},
        {"key": "featureGates", "change": "added", "before": None, "after": {"PodLevelResourceManagers": True, "PodLevelResources": True}},
        {"key": "kubeReserved", "change": "added", "before": None, "after": {"memory": "1093Mi"}},
        {"key": "memoryManagerPolicy", "change": "added", "before": None, "after": "Static"},
        {"key": "reservedMemory", "change": "added", "before": None, "after": [{"numaNode": 0, "limits": {"memory": "1193Mi"}}]},
        {"key": "reservedSystemCPUs", "change": "added", "before": None, "after": "0-1"},
        {"key": "topologyManagerPolicy", "change": "added", "before": None, "after": "single-numa-node"},
        {"key": "topologyManagerScope", "change": "added", "before": None, "after": "pod"}]
    assert built["placement"]["summary"] == {"agree": 9, "disagree": 0, "unknown": 0}
    assert built["reservation"]["reserved"] == {"cpus": "0-1", "cores": 2, "by_numa": {"0": "0-1"}, "memory_bytes": {"0": 1250951168}}
    assert built["locality"] == locality.build(facts)
    assert [(n["id"], n["cpus"], n["memory_bytes"], len(n["cores"])) for n in built["topology"]["numa_nodes"]] == [(0, "0-15", 4659331072, 16)]
    assert built["verdict"]["verdict"] == "adopt"
    assert built["verdict"]["accepted"]["devices"] == ["gpu %s 0000:00:06.0" % ri.GPU_UUID, "nic eth0 0000:00:03.0"]
    json.dumps(built)  # JSON-ready


def test_topology_only_record_is_the_same_shape_with_evidence_null():
    facts = ri.multi_numa_facts()
    built = record.build(facts, "snapshot")
    assert built["mode"] == "topology"
    for key in ("allocations", "placement", "canary", "metrics", "slack", "config_diff", "reservation", "generated_at"):
        assert built[key] is None, key
    assert [(n["id"], n["cpus"], len(n["cores"])) for n in built["topology"]["numa_nodes"]] == [
        (0, "0,4,8,12,16,20,24,28,32,36", 10), (1, "1,5,9,13,17,21,25,29,33,37", 10), (2, "2,6,10,14,18,22,26,30,34,38", 10),
        (3, "3,7,11,15,19,23,27,31,35,39", 10)]
    assert built["cpu_roles"]["shared"] == "0-39"
    assert built["verdict"]["verdict"] == "defer"
    assert built["verdict"]["reasons"][-1]["message"] == \
        "no canary evidence on this node: the record holds its topology only (run playbooks/verify.yml)"
    assert len(built["devices"]["nics"]) == 5


def test_previous_record_feeds_revalidation(tmp_path):
    facts = ri.h200_facts()
    first = record.build(facts, "h200-vm", ri.full_inputs(str(tmp_path / "a"), facts))
    inputs = ri.full_inputs(str(tmp_path / "b"), facts)
    inputs.update(previous=first, versions=dict(ri.VERSIONS, driver="590.10.01"))
    later = record.build(facts, "h200-vm", inputs)
    assert later["verdict"]["verdict"] == "revalidate"
    assert later["verdict"]["reasons"][-1]["message"] == (
        "driver changed from 580.82.07 to 590.10.01 since the record that accepted this node (adopt): "
        "repeat the acceptance procedure (canary, workload, rollback) on this node")
    inputs["previous"] = later
    assert record.build(facts, "h200-vm", inputs) == later


def test_reserved_cpus_from_the_target_config_when_there_is_no_plan():
    facts = ri.h200_facts()
    built = record.build(facts, "h200-vm", {"target_config": {"reservedSystemCPUs": "0,1"}, "baseline_config": {}})
    assert (built["cpu_roles"]["reserved"], built["cpu_roles"]["reserved_source"]) == ("0-1", "reservedSystemCPUs")


def test_bad_inputs():
    facts = ri.h200_facts()
    with pytest.raises(RecordError, match=r"^acceptance record: unknown inputs verdict \(known: versions, plan, "):
        record.build(facts, "n", {"verdict": "adopt"})
    with pytest.raises(RecordError, match=r"^acceptance record: the previous record has schema_version 2; this collection reads 1$"):
        record.build(facts, "n", {"previous": {"schema_version": 2}})
    with pytest.raises(ValueError, match=r"schema_version"):
        record.build({"schema_version": 9}, "n")
    with pytest.raises(RecordError, match=r"^acceptance record: the topology facts must be a mapping, got str$"):
        record.build("facts", "n")


def test_an_admitted_canary_missing_from_podresources_is_unknown_not_a_pass(tmp_path):
    facts = ri.h200_facts()
    inputs = ri.full_inputs(str(tmp_path), facts)
    inputs.update(allocations={"scope": "pod", "pods": [], "node": {"exclusive_cpus": "", "exclusive_count": 0, "shared_pool": "0-15"}, "findings": []},
                  findings=[])
    built = record.build(facts, "h200-vm", inputs)
    assert built["placement"]["findings"] == [{
        "pod": ri.CANARY, "container": None, "check": "canary_allocation", "result": "unknown", "expected": ri.CANARY, "observed": None,
        "sources": {"expected": "the canary", "observed": "PodResources List"}, "message": "pod %s: admitted, but PodResources does not list it" % ri.CANARY}]
    assert built["verdict"]["verdict"] == "defer"
    assert built["verdict"]["reasons"][0]["message"] == (
        "placement canary_allocation unknown: pod %s: admitted, but PodResources does not list it" % ri.CANARY)
    only_canary = record.build(facts, "h200-vm", {"canary": {"pod": ri.CANARY, "admission": {"admitted": True, "failures": []}}})
    assert only_canary["mode"] == "full"
    assert only_canary["placement"]["findings"][0]["message"] == "pod %s: admitted, but PodResources was not read" % ri.CANARY


def test_a_refused_canary_is_evidence_and_defers_with_its_layer():
    facts = ri.h200_facts()
    failure = {"layer": "kubelet", "reason": "TopologyAffinityError", "message": "Resources cannot be allocated with Topology locality"}
    admission = {"admitted": False, "failures": [failure]}
    built = record.build(facts, "h200-vm", {"versions": ri.VERSIONS, "canary": {"pod": ri.CANARY, "admission": admission}})
    assert built["mode"] == "full"
    assert built["placement"] == {"findings": [], "summary": {"agree": 0, "disagree": 0, "unknown": 0}}
    assert [r["message"] for r in built["verdict"]["reasons"] if r["criterion"] == "admission"] == [
        "admission failed at the kubelet layer (TopologyAffinityError): Resources cannot be allocated with Topology locality"]


def test_every_version_says_where_and_when_it_was_read():
    """stack_info's entries, the driver read on the node, the facts' kernel and what was given, each with its source (issue 32)."""
    at = "2026-12-04T10:00:00Z"
    stack = [{"component": "control_plane", "version": "v1.37.1", "state": "found", "source": "GET /version (gitVersion)", "read_at": at, "error": None},
             {"component": "network_operator", "version": None, "state": "read failed", "source": "Deployments and DaemonSets", "read_at": at,
              "error": "HTTP 403"},
             {"component": "gpu_operator", "version": None, "state": "not found", "source": "Deployments and DaemonSets", "read_at": at, "error": None},
             {"component": "dra_driver", "version": None, "state": "found", "source": "DaemonSet x/y, image k8s-dra-driver-gpu@sha256:ab", "read_at": at,
              "error": None}]
    built = record.build(ri.h200_facts(), "h200-vm", {
        "versions": {"kubelet": "v1.37.1", "network_operator": "v26.7.0", "driver": "575.0"}, "observed": stack, "generated_at": at,
        "driver_read": {"read_at": at, "sysfs": {"content": "NTgwLjgyLjA3Cg=="}}, "node_name": "gpu-7"})
    assert built["versions"] == {"kubelet": "v1.37.1", "kernel": "6.18.44-vm", "driver": "580.82.07", "node_image": None, "control_plane": "v1.37.1",
                                 "network_operator": "v26.7.0", "dra_driver": None}
    assert [(e["component"], e["version"], e["state"], e["read_at"]) for e in built["observed"]] == [
        ("control_plane", "v1.37.1", "found", at), ("network_operator", None, "read failed", at), ("gpu_operator", None, "not found", at),
        ("dra_driver", None, "found", at), ("driver", "580.82.07", "found", at), ("kernel", "6.18.44-vm", "found", at),
        ("kubelet", "v1.37.1", "given", None), ("network_operator", "v26.7.0", "given", None)]
    assert built["node"] == "gpu-7"
    versions = [s for s in sections.sections(built) if s[0] == "Versions"][0]
    assert versions[1] == ["component", "version", "state", "source", "read at (UTC)", "error"]
    assert versions[2][1] == ["network_operator", "unknown", "read failed", "Deployments and DaemonSets", at, "HTTP 403"]
    assert versions[2][2] == ["gpu_operator", "not found", "not found", "Deployments and DaemonSets", at, "-"]


def test_an_amd_node_names_its_in_kernel_driver_and_does_not_defer_on_it():
    """amdgpu without its DKMS version file is the in-kernel driver: named, version ``in-kernel``, the kernel beside it (issue 33)."""
    at = "2026-12-05T12:00:00Z"
    built = record.build(ri.h200_facts(), "mi300x", {
        "versions": {"kubelet": "v1.37.1"}, "generated_at": at, "node_name": "mi300x-1",
        "driver_read": {"read_at": at, "amdgpu_sysfs": {"failed": True, "msg": "file not found: /sys/module/amdgpu/version"}}})
    assert (built["versions"]["driver"], built["versions"]["kernel"]) == ("in-kernel", "6.18.44-vm")
    assert [(e["version"], e["state"]) for e in built["observed"] if e["component"] == "driver"] == [("in-kernel", "found")]
    assert [r["message"] for r in built["verdict"]["reasons"] if r["criterion"] == "versions"] == []
    unreadable = record.build(ri.h200_facts(), "mi300x", {
        "versions": {"kubelet": "v1.37.1"}, "generated_at": at, "node_name": "mi300x-1",
        "driver_read": {"read_at": at, "amdgpu_sysfs": {"failed": True, "msg": "Permission denied"}}})
    assert [r["message"] for r in unreadable["verdict"]["reasons"] if r["criterion"] == "versions"] == [
        "the GPU driver version is unknown: the GPU path cannot be named"]
