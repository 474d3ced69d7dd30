# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The record iterates the evidence sources (_evidence/sources.py): a new source is one composition and one entry; a failed
device path read defers naming its error (issue 18).

Here, not under module_utils: it runs the device_path_info action plugin, which ansible-test's module_utils unit context cannot import."""

from __future__ import annotations

import copy

import pytest

from ansible_collections.gpusmith.numa_gate.plugins.action import device_path_info as device_path_action
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import shape_check as S
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence import compose, sources
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._record.pages import html, markdown
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._record import record, verdict
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._record.errors import RecordError
from ansible_collections.gpusmith.numa_gate.tests.unit.plugins.action import in_process
from ansible_collections.gpusmith.numa_gate.tests.unit.plugins.module_utils._device_path import device_path_cases as C
from ansible_collections.gpusmith.numa_gate.tests.unit.plugins.module_utils._record import record_inputs as ri
from ansible_collections.gpusmith.numa_gate.tests.unit.plugins.module_utils._record import test_record_device_path as device_path_record

SINCE = "since the record that accepted this node (adopt): repeat the acceptance procedure (canary, workload, rollback) on this node"


def test_the_record_takes_its_inputs_and_the_verdict_its_evidence_from_the_list():
    assert sources.names() == ("versions", "baseline_config", "target_config", "allocations", "findings", "canary", "memory", "admission_failure",
                               "configuration", "metrics", "effect", "service_objectives", "rollback", "device_path", "transport")
    assert record.input_keys() == ("versions", "plan", "baseline_config", "target_config", "allocations", "findings", "canary", "memory",
                                   "admission_failure", "configuration", "metrics", "effect", "service_objectives", "rollback", "device_path", "transport",
                                   "slack", "policy", "previous", "observed", "driver_read", "node_name", "generated_at")
    assert verdict.evidence_keys() == ("versions", "devices", "has_gpus", "oracle", "placement", "admission", "configuration", "metrics",
                                       "effect", "service_objectives", "rollback", "device_path", "transport")
    assert [s.name for s in sources.placements("key")] == ["allocations", "memory", "admission_failure", "metrics", "effect", "device_path", "transport"]
    assert [s.name for s in sources.placements("attestation")] == ["configuration", "service_objectives", "rollback"]
    assert sorted(verdict.CRITERIA) == ["configuration", "device_path", "effect", "metrics", "rollback", "service_objectives", "transport"]


# The new source of the next test: what its composition file would hold (composition/thermal.py).
def thermal_compose(reads):
    """The ``thermal`` source: each GPU's temperature from a task result ``thermal_read`` ({"gpus": [{"index", "celsius"}]})."""
    found = reads.get("thermal_read")
    if found is None or found.get("skipped"):
        return None
    return {"hottest_celsius": max(gpu["celsius"] for gpu in found["gpus"]), "gpus": len(found["gpus"])}


def thermal_reasons(value):
    if value is None:
        return [{"criterion": "thermal", "effect": "defer", "message": "the GPUs' temperatures were not read"}]
    if value["hottest_celsius"] > 85:
        return [{"criterion": "thermal", "effect": "defer", "message": "a GPU runs at %d C, above 85 C" % value["hottest_celsius"]}]
    return [{"criterion": "thermal", "effect": "info", "message": "the hottest GPU runs at %d C" % value["hottest_celsius"]}]


THERMAL = sources.Source("thermal", "node: nvidia-smi --query-gpu=temperature.gpu", "ansible.builtin.command", ("thermal_read",), thermal_compose,
                         criteria=("thermal",), record="key", gate="canary", title="GPU temperatures", reasons=thermal_reasons,
                         shape=S.Fields("GPU temperatures", {"hottest_celsius": S.NUMBER, "gpus": S.COUNT}))


def test_a_new_source_is_one_composition_and_one_entry_and_reaches_the_record_the_verdict_and_the_pages(tmp_path, monkeypatch):
    monkeypatch.setattr(sources, "SOURCES", sources.SOURCES + (THERMAL,))
    evidence = compose.compose({"thermal_read": {"changed": False, "gpus": [{"index": 0, "celsius": 91}]}})
    assert evidence["thermal"] == {"hottest_celsius": 91, "gpus": 1}
    facts = ri.h200_facts()
    inputs = dict(ri.full_inputs(str(tmp_path), facts), thermal=evidence["thermal"])
    built = record.build(facts, "h200-vm", inputs)
    assert built["thermal"] == {"hottest_celsius": 91, "gpus": 1}
    assert built["verdict"]["verdict"] == "defer"
    # A canary-gated source: its reason after rollback's, the last of the canary's criteria.
    assert [r["criterion"] for r in built["verdict"]["reasons"]][-2:] == ["rollback", "thermal"]
    assert built["verdict"]["reasons"][-1] == {"criterion": "thermal", "effect": "defer", "message": "a GPU runs at 91 C, above 85 C"}
    lines = markdown.render(built).splitlines()
    start = lines.index("## GPU temperatures")
    assert lines[start:start + 6] == ["## GPU temperatures", "", "| item | value |", "|---|---|", "| gpus | 1 |", "| hottest_celsius | 91 |"]
    assert lines[start + 7] == "## Attestations"
    assert '<section data-section="gpu-temperatures"><h2>GPU temperatures</h2><table>' in html.page(built)
    cooler = record.build(facts, "h200-vm", dict(inputs, thermal={"hottest_celsius": 60, "gpus": 1}))
    assert cooler["verdict"]["verdict"] == "adopt" and cooler["verdict"]["reasons"][-1] == {
        "criterion": "thermal", "effect": "info", "message": "the hottest GPU runs at 60 C"}
    with pytest.raises(RecordError, match=r"^inputs.thermal.gpus must be an integer of 0 or more, got the number -1$"):
        record.build(facts, "h200-vm", dict(inputs, thermal={"hottest_celsius": 60, "gpus": -1}))
    assert "thermal" in record.input_keys() and "thermal" in verdict.evidence_keys()


def test_without_the_entry_the_same_input_is_refused_as_unknown(tmp_path):
    facts = ri.h200_facts()
    with pytest.raises(RecordError, match=r"^acceptance record: unknown inputs thermal \(known: versions, plan, "):
        record.build(facts, "h200-vm", dict(ri.full_inputs(str(tmp_path), facts), thermal={"hottest_celsius": 60, "gpus": 1}))


def failed_read(folder):
    """device_path_info run for real against the API server double for a node it does not know, registered as failed_when: false."""
    with in_process.api_double() as double:
        kubeconfig = double.write_kubeconfig(folder / "kubeconfig")
        result = in_process.run(device_path_action, {"kubeconfig": kubeconfig, "node": "gpu-9", "oracle": C.oracle()})
    assert (result["failed"], result["msg"]) == (True, 'nodes "gpu-9" not found')
    return dict(result, failed=False, failed_when_result=False)


FAILED = ("device_path", "defer", "the device path could not be read (device_path_info failed): nodes \"gpu-9\" not found; "
                                  "unknown is not agreement")


def test_a_failed_device_path_read_defers_naming_the_failure(tmp_path):
    facts = ri.h200_facts()
    found = compose.compose({"device_path": failed_read(tmp_path)})["device_path"]
    assert found == {"node": "gpu-9", "error": 'nodes "gpu-9" not found', "findings": [], "versions": {}}
    built = record.build(facts, "h200-vm", dict(ri.full_inputs(str(tmp_path), facts), device_path=found))
    assert built["verdict"]["verdict"] == "defer"
    assert [(r["criterion"], r["effect"], r["message"]) for r in built["verdict"]["reasons"] if r["effect"] == "defer"] == [FAILED]
    assert built["verdict"]["accepted"] is None and built["device_path"] == found
    lines = markdown.render(built).splitlines()
    start = lines.index("## Device path")
    assert lines[start:start + 5] == ["## Device path", "", "| check | result | subject | detail |", "|---|---|---|---|",
                                      '| read | failed | gpu-9 | nodes "gpu-9" not found |']


def test_a_failed_read_after_acceptance_is_not_read_not_a_version_change(tmp_path):
    accepted = device_path_record.build(tmp_path, device_path_record.device_path(ri.h200_facts()))
    assert accepted["verdict"]["accepted"]["device_path"] == {"gpu_device_plugin": "v0.18.0"}
    found = compose.compose({"device_path": failed_read(tmp_path)})["device_path"]
    later = device_path_record.build(tmp_path, found, previous=accepted)
    assert later["verdict"]["verdict"] == "defer"
    assert [r["message"] for r in later["verdict"]["reasons"] if r["effect"] in ("defer", "revalidate")] == [
        FAILED[2], "the device path was not read (the accepted record has gpu_device_plugin v0.18.0) " + SINCE]
    assert later["verdict"]["accepted"] == accepted["verdict"]["accepted"]


def test_a_device_path_not_asked_for_decides_nothing(tmp_path):
    built = device_path_record.build(tmp_path, None)
    assert [r for r in built["verdict"]["reasons"] if r["criterion"] == "device_path"] == []
    assert built["verdict"]["verdict"] == "adopt" and built["device_path"] is None


def test_a_failed_read_with_findings_keeps_both(tmp_path):
    found = copy.deepcopy(device_path_record.device_path(ri.h200_facts(), numa=()))
    found["error"] = "resourceslices.resource.k8s.io is forbidden"
    built = device_path_record.build(tmp_path, found)
    assert [r["message"] for r in built["verdict"]["reasons"] if r["criterion"] == "device_path"][:1] == [
        "the device path could not be read (device_path_info failed): resourceslices.resource.k8s.io is forbidden; unknown is not agreement"]
    assert "device_path" not in verdict.watched_values({}, [], found)


def test_a_gated_source_no_criterion_reads_is_refused(tmp_path, monkeypatch):
    silent = sources.Source("thermal", "node", "ansible.builtin.command", ("thermal_read",), thermal_compose, record="key", gate="canary")
    monkeypatch.setattr(sources, "SOURCES", sources.SOURCES + (silent,))
    facts = ri.h200_facts()
    with pytest.raises(RecordError, match=r"^evidence source thermal is gated 'canary' but no criterion reads it: give its Source reasons=$"):
        record.build(facts, "h200-vm", dict(ri.full_inputs(str(tmp_path), facts), thermal={"hottest_celsius": 60, "gpus": 1}))
