# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""index.html, the fleet: grouped counts, the pool's decision per hardware shape, missing and stale pool nodes, ages (issue 32)."""

from __future__ import annotations

import pytest

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._record.errors import RecordError
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._record.pages import fleet

H100 = {"name": "NVIDIA H100 80GB HBM3"}


def rec(host, verdict, gpus=8, generated="2026-12-01T00:00:00Z", criterion="placement"):
    reasons = [{"criterion": criterion, "effect": verdict, "message": "%s says %s" % (criterion, verdict)}]
    return {"host": host, "mode": "full", "generated_at": generated, "verdict": {"verdict": verdict, "reasons": reasons},
            "topology": {"cpus": {"packages": 2, "cores": 128}, "numa_nodes": [{"id": 0}, {"id": 1}]},
            "devices": {"gpus": [H100] * gpus, "nics": [{"driver": "mlx5_core"}] * 2}}


def node(name, changed):
    return {"metadata": {"name": name, "creationTimestamp": "2026-11-01T00:00:00Z"},
            "status": {"conditions": [{"type": "Ready", "lastTransitionTime": changed}]}}


def test_shape_of_a_record():
    assert fleet.shape(rec("a", "adopt")) == "2 sockets, 2 NUMA nodes, 128 cores, 8x NVIDIA H100 80GB HBM3, 2 NICs (mlx5_core)"
    assert fleet.shape({"host": "b"}) == "unknown"


def test_decision_per_shape_and_for_the_pool():
    eight = [rec("a", "adopt"), rec("b", "adopt")]
    four = [rec("c", "adopt", gpus=4), rec("d", "defer", gpus=4)]
    found, pool, adopting = fleet.decisions(eight + four)
    assert found == {fleet.shape(eight[0]): ("adopt", 2, 2), fleet.shape(four[0]): ("defer", 2, 1)}
    assert (pool, adopting) == ("restrict", [fleet.shape(eight[0])])
    assert fleet.decisions(eight)[1] == "adopt"
    assert fleet.decisions(four)[1] == "defer"


def test_missing_and_stale_pool_nodes():
    records = [rec("a", "adopt"), rec("b", "adopt", generated=None)]
    pool = [node("a", "2026-12-02T08:00:00Z"), node("b", "2026-11-02T00:00:00Z"), node("c", "2026-11-02T00:00:00Z")]
    assert fleet.pool_gaps(records, pool) == (["c"], [("a", "2026-12-01T00:00:00Z", "2026-12-02T08:00:00Z"), ("b", "unknown", "2026-11-02T00:00:00Z")])


def test_age():
    now = fleet._when("2026-12-04T10:30:00Z", "now")  # pylint: disable=protected-access
    assert fleet.age("2026-12-01T00:00:00Z", now) == "3 d 10 h"
    assert fleet.age("2026-12-04T09:00:00Z", now) == "1 h 30 min"
    assert fleet.age(None, now) == "unknown"


def test_the_page():
    records = [rec("b", "adopt"), rec("a<x>", "defer", gpus=4, criterion="locality"), rec("c", "adopt", gpus=4)]
    text = fleet.page(records, pool=[node("a<x>", "2026-11-02T00:00:00Z"), node("z", "2026-11-02T00:00:00Z")], now="2026-12-04T00:00:00Z")
    assert "adopt: 2, restrict: 0, defer: 1, revalidate: 0; 3 nodes; generated 2026-12-04T00:00:00Z" in text
    assert '<p data-kind="pool-decision" data-decision="restrict">The pool\'s decision: <strong>restrict to shape-2</strong></p>' in text
    assert "<tr><td>adopt: placement</td><td>2</td></tr><tr><td>defer: locality</td><td>1</td></tr>" in text
    assert ("<tr><td>shape-1</td><td>2 sockets, 2 NUMA nodes, 128 cores, 4x NVIDIA H100 80GB HBM3, 2 NICs (mlx5_core)</td><td>2</td><td>1</td>"
            "<td>defer</td></tr>") in text
    assert '<section data-section="pool-missing"><h2>Pool nodes without a record</h2><table><thead><tr><th>node</th></tr></thead><tbody><tr><td>z</td>' in text
    assert '<a href="a%3Cx%3E/acceptance.html">a&lt;x&gt;</a>' in text
    assert "<td>3 d 0 h</td><td>locality - locality says defer</td>" in text
    assert text.count('data-kind="fleet-node"') == 3
    assert "<script" not in text


def test_a_pool_that_could_not_be_read_is_said_never_none():
    text = fleet.page([rec("a", "adopt")], pool={"error": "Failed to get client due to 401 Unauthorized"}, now="2026-12-04T00:00:00Z")
    said = '<p data-kind="pool-error">unknown: the pool\'s nodes could not be read from the API (Failed to get client due to 401 Unauthorized)</p>'
    assert text.count(said) == 2
    assert '<section data-section="pool-missing"><h2>Pool nodes without a record</h2>' + said in text
    assert "<p>none</p>" not in text
    assert fleet.pool_gaps([rec("a", "adopt")], {"error": "x"}) == (None, None)
    # Not read at all (pool None): no pool section.
    assert 'data-section="pool-missing"' not in fleet.page([rec("a", "adopt")])


def test_a_bad_time_is_refused_naming_it():
    with pytest.raises(RecordError) as caught:
        fleet.page([rec("a", "adopt", generated="yesterday")], now="2026-12-04T00:00:00Z")
    assert str(caught.value) == "generated_at must be a UTC time such as 2026-12-04T09:00:00Z, got 'yesterday'"
    with pytest.raises(RecordError) as caught:
        fleet.page([], pool=["a"])
    assert str(caught.value) == "pool must be a list of Node objects (each with metadata.name), got 'a'"
    with pytest.raises(RecordError) as caught:
        fleet.page([], pool={"items": []})
    assert str(caught.value) == 'pool must be a list of Node objects, or {"error": text} when the read failed, got {\'items\': []}'
