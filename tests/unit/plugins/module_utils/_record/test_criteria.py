"""The criteria table (_record/criteria.py) and the shapes the evidence sources' rows carry (_evidence/sources.py):
a criterion is one row, a source's shape is in its row, and the verdict only combines the rows."""

import pytest

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import shape_check as S
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence import sources
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._record import criteria, inputs, verdict
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._record.errors import RecordError
from ansible_collections.gpusmith.numa_gate.tests.unit.plugins.module_utils._record import test_verdict as V


def test_every_row_reads_an_evidence_source_or_an_own_input():
    known = set(sources.names()) | set(criteria.OWN_READS)
    assert [(row.name, name) for row in criteria.TABLE for name in row.reads if name not in known] == []
    # The own inputs are the verdict's own evidence keys, the policy and the accepted values; the rest are sources.
    assert set(criteria.OWN_READS) - {"policy", "accepted"} == set(verdict.evidence_keys()) - set(sources.names(s for s in sources.SOURCES if s.gate))


def test_every_gated_source_is_read_by_a_row_of_the_table():
    read = set(name for row in criteria.TABLE for name in row.reads)
    assert [source.name for source in sources.SOURCES if source.gate and source.name not in read] == []
    assert criteria.rows() == criteria.TABLE  # no source of this collection brings its own criterion


def test_a_row_that_reads_a_source_is_named_among_the_sources_criteria():
    """Source.criteria (docs/evidence.md's last column) names every row that reads the source directly."""
    for row in criteria.TABLE:
        for name in row.reads:
            if name in sources.names():
                assert row.name in sources.by_name(name).criteria, (row.name, name)


def test_the_rows_and_their_gates():
    assert [(row.name, row.gate) for row in criteria.TABLE] == [
        ("versions", "always"), ("support", "always"), ("locality", "always"), ("device_path", "always"), ("evidence", "topology"),
        ("placement", "canary"), ("admission", "canary"), ("effect", "canary"), ("configuration", "canary"), ("monitoring", "canary"), ("service", "canary"),
        ("rollback", "canary"), ("transport", "canary"), ("scope", "always"), ("change", "always")]
    assert len(set(row.name for row in criteria.TABLE)) == len(criteria.TABLE)
    assert all(set(verdict.CRITERIA[name]) <= set(sources.by_name(name).criteria) for name in verdict.CRITERIA)


def kernel_floor(versions):
    """A made-up criterion: a kernel older than 6.10 defers."""
    kernel = (versions or {}).get("kernel") or ""
    major_minor = tuple(int(part) for part in kernel.split("-")[0].split(".")[:2] if part.isdigit())
    if major_minor < (6, 10):
        return [{"criterion": "kernel_floor", "effect": "defer", "message": "kernel %s is older than 6.10" % (kernel or "unknown")}]
    return [{"criterion": "kernel_floor", "effect": "info", "message": "kernel %s is 6.10 or later" % kernel}]


def test_a_new_criterion_is_one_row_and_the_verdict_follows_it(tmp_path, monkeypatch):
    assert verdict.decide(V.evidence(tmp_path))["verdict"] == "adopt"
    monkeypatch.setattr(criteria, "TABLE", criteria.TABLE + (criteria.Criterion("kernel_floor", "always", ("versions",), kernel_floor),))
    result = verdict.decide(V.evidence(tmp_path))
    assert result["verdict"] == "defer" and result["accepted"] is None
    assert result["reasons"][-1] == {"criterion": "kernel_floor", "effect": "defer", "message": "kernel 6.8.0-49-generic is older than 6.10"}
    newer = verdict.decide(V.evidence(tmp_path, versions=dict(V.VERSIONS, kernel="6.12.0-1-generic")))
    assert newer["verdict"] == "adopt" and newer["reasons"][-1]["criterion"] == "kernel_floor"


def test_a_canary_gated_row_is_not_asked_without_canary_evidence(tmp_path, monkeypatch):
    asked = []
    row = criteria.Criterion("probe", "canary", ("metrics",), lambda metrics: asked.append(metrics) or [])
    monkeypatch.setattr(criteria, "TABLE", criteria.TABLE + (row,))
    verdict.decide(V.evidence(tmp_path, placement=None))
    assert asked == []
    verdict.decide(V.evidence(tmp_path))
    assert asked == [V.METRICS]


def test_a_row_reading_nothing_known_is_refused(tmp_path, monkeypatch):
    monkeypatch.setattr(criteria, "TABLE", criteria.TABLE + (criteria.Criterion("thermal", "always", ("thermal",), kernel_floor),))
    with pytest.raises(RecordError, match=r"^criterion thermal reads thermal, which no evidence source gives \(sources: versions, "):
        verdict.decide(V.evidence(tmp_path))


def test_a_gate_outside_the_three_is_refused():
    with pytest.raises(RecordError, match=r"^criterion late: gate must be one of always, canary, topology, got 'later'$"):
        criteria.Criterion("late", "later", (), kernel_floor)


def test_a_gated_source_no_row_reads_is_refused_even_without_canary_evidence(monkeypatch):
    silent = sources.Source("thermal", "node", "ansible.builtin.command", ("thermal_read",), lambda reads: None, gate="canary")
    with pytest.raises(RecordError, match=r"^evidence source thermal is gated 'canary' but no criterion reads it"):
        criteria.rows(sources.SOURCES + (silent,))


def test_a_source_bringing_its_own_criterion_is_a_row_at_the_end_of_its_gates_first_block():
    def own(value):
        return []
    canary = sources.Source("thermal", "node", "command", ("thermal_read",), lambda reads: None, criteria=("thermal",), gate="canary", reasons=own)
    always = sources.Source("power", "node", "command", ("power_read",), lambda reads: None, gate="always", reasons=own)
    names = [row.name for row in criteria.rows(sources.SOURCES + (canary, always))]
    assert names == ["versions", "support", "locality", "device_path", "power", "evidence", "placement", "admission", "effect", "configuration",
                     "monitoring", "service", "rollback", "transport", "thermal", "scope", "change"]


def test_every_source_carries_its_shape_in_its_row():
    """The record's input check and the verdict's evidence check are the rows' shapes, nothing kept beside them."""
    assert [source.name for source in sources.SOURCES if source.shape is None] == []
    for source in sources.SOURCES:
        assert inputs.inputs_shape().optional[source.name].spec is source.shape  # Nullable(the row's shape)
        if source.gate:
            assert inputs.evidence_shape().optional[source.name].spec is source.shape


def test_a_rows_shape_is_what_the_record_checks(monkeypatch):
    with pytest.raises(RecordError, match=r"^inputs.configuration.verified must be true or false, got the string 'yes'$"):
        inputs.check_inputs({"configuration": {"verified": "yes"}})
    row = sources.by_name("configuration")
    looser = sources.Source(row.name, row.read_from, row.task, row.reads, row.compose, criteria=row.criteria, record=row.record, gate=row.gate,
                            shape=S.MAPPING)
    monkeypatch.setattr(sources, "SOURCES", tuple(looser if s is row else s for s in sources.SOURCES))
    assert inputs.check_inputs({"configuration": {"verified": "yes"}}) == {"configuration": {"verified": "yes"}}
