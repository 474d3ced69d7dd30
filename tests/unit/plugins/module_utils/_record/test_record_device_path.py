# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The device path in the acceptance record and its verdict: findings defer, a plugin version change revalidates (issue 18)."""

from __future__ import annotations

import copy

import pytest

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._device_path import compare, nvidia_plugin, pods
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._plan import locality
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._record.pages import markdown
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._record import record
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._record.errors import RecordError
from ansible_collections.gpusmith.numa_gate.tests.unit.plugins.module_utils._device_path import device_path_cases as C
from ansible_collections.gpusmith.numa_gate.tests.unit.plugins.module_utils._record import record_inputs as ri

SINCE = "since the record that accepted this node (adopt): repeat the acceptance procedure (canary, workload, rollback) on this node"


def device_path(facts, image=C.DEVICE_PLUGIN_IMAGE, numa=(0,), pass_device_specs="true"):
    """The device path of the H200: NVIDIA's plugin with PASS_DEVICE_SPECS, its GPU advertised on ``numa`` (compare, pure)."""
    described = pods.describe(C.pod("nvidia-device-plugin-daemonset-abcde", [C.nvidia_container(env={"PASS_DEVICE_SPECS": pass_device_specs},
                                                                                                image=image)]))
    container = described["containers"][0]
    found = nvidia_plugin.settings(container)
    parts = {"gpu_device_plugin": [{"pod": described, "container": container, "settings": found,
                                    "findings": nvidia_plugin.findings(described, container, found)}]}
    allocatable = {"devices": [{"resource_name": "nvidia.com/gpu", "device_ids": [ri.GPU_UUID], "numa_nodes": list(numa)}]}
    return compare.compare(locality.build(facts), parts, allocatable)


def build(tmp_path, found, previous=None):
    facts = ri.h200_facts()
    inputs = dict(ri.full_inputs(str(tmp_path), facts), device_path=found)
    if previous is not None:
        inputs["previous"] = previous
    return record.build(facts, "h200-vm", inputs)


def test_an_agreeing_device_path_adopts_and_is_accepted_with_its_versions(tmp_path):
    built = build(tmp_path, device_path(ri.h200_facts()))
    assert built["verdict"]["verdict"] == "adopt"
    assert built["verdict"]["accepted"]["device_path"] == {"gpu_device_plugin": "v0.18.0"}
    assert built["device_path"]["summary"] == {"agree": 2, "disagree": 0, "unknown": 0}
    lines = markdown.render(built).splitlines()
    start = lines.index("## Device path")
    assert lines[start:start + 5] == ["## Device path", "", "| check | result | subject | detail |", "|---|---|---|---|",
                                      "| version |  | gpu_device_plugin | v0.18.0 |"]
    assert lines[start + 5].startswith("| gpu_plugin_cpu_manager | agree | nvidia-device-plugin kube-system/nvidia-device-plugin-daemonset-abcde | ")


def test_a_plugin_version_change_since_the_accepted_record_is_revalidate(tmp_path):
    first = build(tmp_path, device_path(ri.h200_facts()))
    later = build(tmp_path, device_path(ri.h200_facts(), image="registry.example:5000/nvidia/k8s-device-plugin:v0.18.1"), previous=first)
    assert later["verdict"]["verdict"] == "revalidate"
    assert [r for r in later["verdict"]["reasons"] if r["effect"] == "revalidate"] == [{
        "criterion": "change", "effect": "revalidate",
        "message": "device path gpu_device_plugin changed from v0.18.0 to v0.18.1 " + SINCE}]
    assert later["verdict"]["accepted"] == first["verdict"]["accepted"]
    again = build(tmp_path, device_path(ri.h200_facts()), previous=first)
    assert again["verdict"]["verdict"] == "adopt"


def test_a_device_path_first_read_after_acceptance_and_one_not_read_again_are_changes(tmp_path):
    before = build(tmp_path, None)
    assert before["verdict"]["verdict"] == "adopt" and "device_path" not in before["verdict"]["accepted"]
    first_read = build(tmp_path, device_path(ri.h200_facts()), previous=before)
    assert [r["message"] for r in first_read["verdict"]["reasons"] if r["effect"] == "revalidate"] == [
        "the device path was first read (gpu_device_plugin v0.18.0); the accepted record has no versions for it " + SINCE]
    accepted = build(tmp_path, device_path(ri.h200_facts()))
    not_read = build(tmp_path, None, previous=accepted)
    assert [r["message"] for r in not_read["verdict"]["reasons"] if r["effect"] == "revalidate"] == [
        "the device path was not read (the accepted record has gpu_device_plugin v0.18.0) " + SINCE]


def test_device_path_findings_that_are_not_agreement_defer_with_their_messages(tmp_path):
    built = build(tmp_path, device_path(ri.h200_facts(), numa=(), pass_device_specs="false"))
    assert built["verdict"]["verdict"] == "defer"
    assert [r["message"] for r in built["verdict"]["reasons"] if r["criterion"] == "device_path"] == [
        "device path gpu_plugin_cpu_manager disagrees: nvidia-device-plugin kube-system/nvidia-device-plugin-daemonset-abcde: PASS_DEVICE_SPECS "
        "is false (env PASS_DEVICE_SPECS=false); NVIDIA documents this option as the way the plugin interoperates with the kubelet's CPU "
        "Manager (static policy), which this node is being given",
        "device path device_numa unknown: nvidia.com/gpu device GPU-5e1b2c3d-4e5f-6a7b-8c9d-0e1f2a3b4c5d (0000:00:06.0) is advertised with no "
        "NUMA node (PodResources GetAllocatableResources topology); the host puts it on NUMA node 0 (single-node): a device without NUMA is "
        "never agreement"]
    assert built["verdict"]["accepted"] is None


def test_a_device_path_of_the_wrong_shape_is_refused_by_path(tmp_path):
    found = device_path(ri.h200_facts())
    bad = copy.deepcopy(found)
    bad["findings"][0]["result"] = "maybe"
    with pytest.raises(RecordError, match=r"^inputs.device_path.findings\[0\].result must be one of 'agree', 'disagree', 'unknown', got "):
        build(tmp_path, bad)
    with pytest.raises(RecordError, match=r"^inputs.device_path has no versions: the device path \(device_path_info\) has findings, versions$"):
        build(tmp_path, {"findings": []})
