"""The warnings collector (_facts/notes.py)."""

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts.notes import Notes


def test_each_warning_once_and_folded_ones_last():
    notes = Notes()
    notes.add("first")
    notes.fold("topology/core_id missing", 3)
    notes.fold("topology/core_id missing", 1)
    notes.fold("topology/core_id missing", 2)
    notes.add("first")
    notes.add("")
    notes.add("second")
    assert notes.warnings() == ["first", "second", "topology/core_id missing for cpus 1-3"]
    assert notes.warnings() == ["first", "second", "topology/core_id missing for cpus 1-3"]
