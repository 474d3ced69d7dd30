"""Unit tests for the acceptance record filters (plugins/filter/record.py)."""

import pytest

from ansible.errors import AnsibleFilterError

from ansible_collections.gpusmith.numa_gate.plugins.filter.record import FilterModule
from ansible_collections.gpusmith.numa_gate.tests.unit.plugins.module_utils._record import record_inputs as ri

FILTERS = FilterModule().filters()


def test_filter_names():
    assert sorted(FILTERS) == ["acceptance_fleet", "acceptance_html", "acceptance_markdown", "acceptance_record", "acceptance_verdict",
                               "artifacts_file", "canary_admission", "canary_admission_failure", "canary_admission_probe", "canary_admissions",
                               "canary_manifest", "canary_qos_problems", "canary_subjects", "canary_workload"]


def test_artifacts_file_checks_the_host_name(tmp_path):
    assert FILTERS["artifacts_file"]("node-a", str(tmp_path), "acceptance.json") == str(tmp_path / "node-a" / "acceptance.json")
    with pytest.raises(AnsibleFilterError) as err:
        FILTERS["artifacts_file"]("../../x", str(tmp_path), "acceptance.json")
    assert str(err.value) == "artifacts_file: artifacts: host name '../../x' has a '/': it must be one name inside its folder, not a path"
    assert not list(tmp_path.iterdir())


def test_canary_filters():
    pod = FILTERS["canary_manifest"]({"node": "n1"})
    assert FILTERS["canary_qos_problems"](pod) == []
    pod["spec"]["resources"]["limits"]["cpu"] = "3"
    assert FILTERS["canary_qos_problems"](pod, ["main"]) == [
        "pod .spec.resources: requests.cpu 4 differs from limits.cpu 3 (Guaranteed QoS needs them equal)"]
    assert FILTERS["canary_admission"]({"status": {"phase": "Failed", "reason": "TopologyAffinityError", "message": "m"}})["failures"] == [
        {"layer": "kubelet", "reason": "TopologyAffinityError", "message": "m"}]
    with pytest.raises(AnsibleFilterError, match="^canary_manifest: canary: unknown parameters x "):
        FILTERS["canary_manifest"]({"x": 1})
    sent = FILTERS["canary_workload"]({"node": "n1"})
    assert (sent["manifest"], sent["kind"], sent["diff"], sent["sent_resources"]) == (
        pod_as_built(), "Pod", [], {"requests": {"cpu": "4", "memory": "4Gi"}, "limits": {"cpu": "4", "memory": "4Gi"}})
    with pytest.raises(AnsibleFilterError, match="^canary_workload: canary: workload must be a Deployment, StatefulSet, Job or Pod manifest, got "
                       "kind 'CronJob': "):
        FILTERS["canary_workload"]({"workload": {"kind": "CronJob"}})


def pod_as_built():
    return FILTERS["canary_manifest"]({"node": "n1"})


def test_record_pages_and_fleet(tmp_path):
    facts = ri.h200_facts()
    record = FILTERS["acceptance_record"](facts, "h200-vm", ri.full_inputs(str(tmp_path), facts))
    assert record["verdict"]["verdict"] == "adopt"
    assert FILTERS["acceptance_markdown"](record).startswith("# Acceptance record: h200-vm\n")
    assert FILTERS["acceptance_html"](record).startswith('<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">')
    assert 'data-host="h200-vm" data-verdict="adopt"' in FILTERS["acceptance_fleet"]([record])
    topology_only = FILTERS["acceptance_record"](facts, "h200-vm")
    assert (topology_only["mode"], topology_only["verdict"]["verdict"]) == ("topology", "defer")


def test_verdict_filter():
    result = FILTERS["acceptance_verdict"]({"versions": {"kubelet": "v1.36.3"}, "placement": None, "oracle": {"devices": []}},
                                           {"unsupported": [{"component": "kubelet", "version": "v1.36.*", "reason": "no pod-level fields"}]})
    assert result["verdict"] == "defer"
    assert result["reasons"][0]["message"] == "kubelet v1.36.3 is marked unsupported by the operator (rule 'v1.36.*'): no pod-level fields"


@pytest.mark.parametrize("name, args, message", [
    ("acceptance_record", ({"schema_version": 1}, "n", {"nope": 1}),
     "acceptance_record: acceptance record: unknown inputs nope (known: versions, plan, baseline_config, target_config, allocations, findings, "
     "canary, memory, admission_failure, configuration, metrics, effect, service_objectives, rollback, device_path, transport, slack, policy, previous, "
     "observed, driver_read, node_name, generated_at)"),
    ("acceptance_verdict", ({}, {"allow": 1}),
     "acceptance_verdict: policy has unknown keys allow (known: unsupported, supported, restrict_to, revalidated, support_table, support)"),
])
def test_errors_name_the_filter(name, args, message):
    with pytest.raises(AnsibleFilterError) as err:
        FILTERS[name](*args)
    assert str(err.value) == message
