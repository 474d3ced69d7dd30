"""The acceptance_record role through real ansible-playbook: topology-only record and pages, idempotent, the fleet page,
then a full record from evidence (adopt) and a later driver change read against the previous record on disk (revalidate)."""

import datetime
import json
import os

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._record import record as record_module
from ansible_collections.gpusmith.numa_gate.tests.unit import playbook_run
from ansible_collections.gpusmith.numa_gate.tests.unit.plugins.module_utils._record import record_inputs as ri


def play(tmp_path, extra, check=False):
    playbook = playbook_run.write_play(tmp_path, "gpusmith.numa_gate.acceptance_record")
    variables = playbook_run.write_vars(tmp_path, dict(extra, numa_gate_artifacts_dir=str(tmp_path / "artifacts")))
    output = playbook_run.run(tmp_path, playbook, *playbook_run.LOCALHOST, "-e", "@%s" % variables, *(["--check"] if check else []))
    record = json.loads((tmp_path / "artifacts" / "localhost" / "acceptance.json").read_text())
    return output["stats"]["localhost"], record


def test_topology_only_then_idempotent(tmp_path):
    stats, record = play(tmp_path, {})
    folder = tmp_path / "artifacts" / "localhost"
    assert sorted(os.listdir(str(folder))) == ["acceptance.html", "acceptance.json", "acceptance.md"]
    assert (record["schema_version"], record["host"], record["mode"], record["verdict"]["verdict"]) == (1, "localhost", "topology", "defer")
    assert (folder / "acceptance.md").read_text().startswith("# Acceptance record: localhost\n")
    page = (folder / "acceptance.html").read_text()
    assert page.count('data-kind="core"') == 16 and page.count('data-kind="numa-node"') == 1
    index = (tmp_path / "artifacts" / "index.html").read_text()
    assert 'data-host="localhost" data-verdict="defer"' in index
    assert stats["changed"] == 2
    # Dated by default: the controller's UTC time of the run (issue 32).
    generated = datetime.datetime.strptime(record["generated_at"], "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=datetime.timezone.utc)
    assert abs((datetime.datetime.now(datetime.timezone.utc) - generated).total_seconds()) < 300
    # A fixed date keeps a re-run over unchanged evidence byte-identical.
    fixed = {"acceptance_record_generated_at": "2026-12-04T00:00:00Z"}
    _stats, dated = play(tmp_path, fixed)
    again, same = play(tmp_path, fixed)
    assert (again["changed"], same, same["generated_at"]) == (0, dated, "2026-12-04T00:00:00Z")


def test_adopt_then_a_driver_change_reads_revalidate(tmp_path):
    facts = ri.h200_facts()
    inputs = ri.full_inputs(str(tmp_path / "tree"), facts)
    keys = ("allocations", "findings", "canary", "metrics", "effect", "configuration", "service_objectives", "rollback")  # slack: measured only
    evidence = {key: inputs[key] for key in keys}
    # The facts of this play have no UUID for the GPU (sysfs only): map the canary's device by PCI address instead.
    for devices in evidence["allocations"]["pods"][0]["devices"].values():
        for device in devices:
            device["id"] = device["pci_address"]
    _stats, first = play(tmp_path, {"acceptance_record_evidence": evidence, "acceptance_record_versions": ri.VERSIONS})
    assert (first["mode"], first["verdict"]["verdict"]) == ("full", "adopt")
    _stats, later = play(tmp_path, {"acceptance_record_evidence": evidence, "acceptance_record_versions": dict(ri.VERSIONS, driver="590.10.01")})
    assert later["verdict"]["verdict"] == "revalidate"
    assert later["verdict"]["reasons"][-1]["message"] == (
        "driver changed from 580.82.07 to 590.10.01 since the record that accepted this node (adopt): "
        "repeat the acceptance procedure (canary, workload, rollback) on this node")
    assert later["verdict"]["accepted"] == first["verdict"]["accepted"]


def test_the_placement_evidence_fact_as_it_is_keeps_its_config_diff(tmp_path):
    """acceptance_record_evidence holds baseline_config and target_config (the evidence role's fact as it is): the record's
    config diff is theirs without acceptance_record_baseline_config / _target_config given, and those still win when given."""
    facts = ri.h200_facts()
    inputs = ri.full_inputs(str(tmp_path / "tree"), facts)
    evidence = {key: inputs[key] for key in ("baseline_config", "target_config")}
    expected = record_module.build(facts, "localhost", evidence)["config_diff"]
    assert expected  # the hand-built configurations differ
    _stats, built = play(tmp_path, {"acceptance_record_evidence": evidence})
    assert built["config_diff"] == expected
    _stats, given = play(tmp_path, {"acceptance_record_evidence": evidence, "acceptance_record_target_config": inputs["baseline_config"]})
    assert given["config_diff"] == record_module.build(facts, "localhost", dict(evidence, target_config=inputs["baseline_config"]))["config_diff"]


def test_check_mode_never_replaces_a_record(tmp_path):
    """verify.yml --check sends no canary, so its record would defer: in check mode the role says what would change and writes nothing."""
    evidence = {"versions": {"kubelet": "v1.37.1"}}
    fixed = {"acceptance_record_generated_at": "2026-12-04T00:00:00Z"}
    _stats, first = play(tmp_path, dict(fixed, acceptance_record_evidence=evidence))
    folder = tmp_path / "artifacts"
    before = {path: path.read_bytes() for path in sorted(folder.rglob("*")) if path.is_file()}
    stats, _same = play(tmp_path, dict(fixed, acceptance_record_evidence={"versions": {"kubelet": "v1.37.2"}}), check=True)
    assert stats["changed"] == 1  # acceptance.* would change (index.html, verdicts only, would not)
    assert {path: path.read_bytes() for path in sorted(folder.rglob("*")) if path.is_file()} == before
    assert first["versions"]["kubelet"] == "v1.37.1"


def test_an_observed_version_wins_over_a_given_one(tmp_path):
    """The kubelet version the Node reports (the evidence's versions) wins over the operator's; what nothing observes is kept."""
    _stats, record = play(tmp_path, {"acceptance_record_evidence": {"versions": {"kubelet": "v1.37.1"}},
                                     "acceptance_record_versions": {"kubelet": "v1.36.0", "node_image": "ubuntu-24.04-gpu-2026.11",
                                                                    "kernel": "5.4.0"}})
    facts_kernel = record["versions"]["kernel"]
    assert (record["versions"]["kubelet"], record["versions"]["node_image"]) == ("v1.37.1", "ubuntu-24.04-gpu-2026.11")
    assert facts_kernel != "5.4.0" and facts_kernel
