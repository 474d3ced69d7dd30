"""The acceptance grid (_record/pages/sections.py `grid`): every criterion of the verdict, its state and one line of evidence."""

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._record import criteria
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._record import record
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._record.pages import sections
from ansible_collections.gpusmith.numa_gate.tests.unit.plugins.module_utils._record import record_inputs as ri

NOT_CANARY = "not asked: asked only with canary evidence, and this record holds the node's topology only"


def _names():
    names = []
    for row in criteria.rows():
        if row.name not in names:
            names.append(row.name)
    return names


def _by_name(grid):
    return dict((row[0], row[1:]) for row in grid)


def test_the_grid_opens_the_sections_and_lists_every_criterion_in_the_verdicts_order(tmp_path):
    facts = ri.h200_facts()
    built = record.build(facts, "h200-vm", ri.full_inputs(str(tmp_path), facts))
    title, headers, rows = sections.sections(built)[0]
    assert (title, headers) == ("Acceptance grid", ["criterion", "state", "evidence"])
    assert [row[0] for row in rows] == _names()
    assert set(row[1] for row in rows) <= set(sections.GRID_STATES)
    found = _by_name(rows)
    assert found["versions"] == ["held", "no reason against it in what it read (versions, has_gpus)"]
    assert found["evidence"] == ["not asked", "not asked: asked only without canary evidence, and this record has it"]
    # device_path is null in this record (not read): it decided nothing, and the grid does not call that held.
    assert found["device_path"] == ["not asked", "not asked: device_path not given in this record (null), so it decided nothing"]
    assert found["service"] == ["held", "service objectives held (3 baseline and 3 canary repetitions): p95 ttft <= 0.5 s: canary held: "
                                        "worst repetition 0.496032 (median 0.477273)"]
    assert found["rollback"][0] == "held" and found["rollback"][1].startswith("rollback rehearsed on this node: rollback 20261201T091000Z")


def test_a_deferred_criterion_shows_its_first_reason_and_how_many_more():
    built = record.build(ri.multi_numa_facts(), ri.MULTI_NUMA)
    found = _by_name(sections.grid(built))
    assert found["versions"] == ["deferred", "the kubelet version is unknown: the tested stack cannot be named"]
    assert found["locality"] == ["deferred", "locality metadata unresolved: nic 0000:02:00.0 has no known NUMA node (sysfs says unknown); "
                                             "unknown is not agreement (and 3 more reasons below)"]
    assert found["evidence"] == ["deferred", "no canary evidence on this node: the record holds its topology only (run playbooks/verify.yml)"]
    for name in ("placement", "admission", "configuration", "monitoring", "service", "rollback"):
        assert found[name] == ["not asked", NOT_CANARY]


def test_restricted_and_revalidate_states(tmp_path):
    facts = ri.h200_facts()
    inputs = ri.full_inputs(str(tmp_path), facts)
    restricted = record.build(facts, "h200-vm", dict(inputs, policy={"restrict_to": "gpu-pool-a"}))
    assert restricted["verdict"]["verdict"] == "restrict"
    assert _by_name(sections.grid(restricted))["scope"] == ["restricted", "the operator restricts the feature to the pool gpu-pool-a"]
    accepted = record.build(facts, "h200-vm", inputs)
    changed = record.build(facts, "h200-vm", dict(inputs, previous=accepted, versions=dict(ri.VERSIONS, kubelet="v1.37.2")))
    assert changed["verdict"]["verdict"] == "revalidate"
    state, line = _by_name(sections.grid(changed))["change"]
    assert state == "revalidate"
    assert line.startswith("kubelet changed from v1.37.1 to v1.37.2 since the record that accepted this node (adopt)")


def test_a_reason_of_a_criterion_that_is_no_row_still_shows(tmp_path):
    facts = ri.h200_facts()
    built = record.build(facts, "h200-vm", ri.full_inputs(str(tmp_path), facts))
    built["verdict"]["reasons"].append({"criterion": "retired", "effect": "defer", "message": "from an older record"})
    assert sections.grid(built)[-1] == ["retired", "deferred", "from an older record"]
