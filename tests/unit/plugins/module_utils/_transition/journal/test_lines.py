"""Journal times the record can compute with, and the named refusals for those it cannot (issue 16, rule 7)."""

import pytest

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._node_files import atomic
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._transition.journal import journal, lines as journal_lines
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._transition import record

OVERFLOW = "lies outside years 1 to 9999 once its fraction and offset are applied (it overflows the calendar)"


@pytest.mark.parametrize("at, problem", [
    ("2026-12-01T09:00:00.250000Z", None),
    ("2026-12-01T09:00:00Z", None),
    ("2026-12-01T09:00:00.123456789+02:00", None),
    ("9999-12-31T23:59:59.999999Z", None),
    ("9999-12-31T23:59:59.9999999Z", OVERFLOW),
    ("9999-12-31T23:30:00-01:00", OVERFLOW),
    ("0001-01-01T00:30:00+01:00", OVERFLOW),
    ("2026-02-30T09:00:00Z", "is not a date and time of the calendar"),
    ("2026-12-01T09:00:00+99:00", "has an offset +99:00 beyond the 24 hours a UTC offset may have"),
    ("yesterday", "is not a time such as 2026-12-01T09:00:00.000000Z"),
    (5, "is not a time such as 2026-12-01T09:00:00.000000Z"),
])
def test_time_problem(at, problem):
    assert journal_lines.time_problem(at) == problem
    if problem is None:
        moment = record.event_time(at)  # what the record then does with it does not overflow either
        assert moment.timestamp() is not None


def test_a_time_that_overflows_is_refused_when_recorded_too(tmp_path):
    with pytest.raises(atomic.NodeStateError) as raised:
        journal.append(str(tmp_path / "j.jsonl"), "stop", "started", at="9999-12-31T23:59:59.9999999Z")
    assert str(raised.value) == "journal time '9999-12-31T23:59:59.9999999Z' " + OVERFLOW
    assert not (tmp_path / "j.jsonl").exists()


@pytest.mark.parametrize("line, why", [
    (b'{"step": "stop", "event": "finished", "at": "2026-12-01T09:00:00Z", "outcome": "exploded"}',
     "is not a journal entry: its outcome 'exploded' is not one of ok, changed, skipped, failed"),
    (b'{"step": "stop", "event": "finished", "at": "2026-12-01T09:00:00Z", "outcome": "ok", "changed": [1]}',
     "is not a journal entry: its changed is a list, not a mapping"),
    (b'{"step": "stop", "event": "started"}', "is not a journal entry: '{\"step\": \"stop\", \"event\": \"started\"}'"),
])
def test_lines_of_the_wrong_shape(line, why):
    with pytest.raises(atomic.NodeStateError) as raised:
        journal_lines.parse(line + b"\n", "/j")
    assert str(raised.value) == "line 1 of journal /j %s; nothing was changed" % why
