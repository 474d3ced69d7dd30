"""Property: any bytes in a journal, any JSON in a manifest or a backup record, give entries or a named refusal (issue 16, rule 7)."""

import json

import pytest
from hypothesis import given, settings, strategies as st

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._node_files import atomic, backups
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._node_files.baseline import manifest as baseline_manifest
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._transition.journal import journal, lines as journal_lines
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._transition import record

KEYS = ["step", "event", "at", "outcome", "changed", "repaired", "files", "path", "backup", "copy", "sha256", "mode", "uid", "gid",
        "size", "role", "absent", "symlink", "kind", "link"]
SCALARS = (st.none() | st.booleans() | st.integers(-2**70, 2**70) | st.floats(allow_nan=False)
           | st.sampled_from(["stop", "started", "finished", "ok", "2026-12-01T09:00:00Z", "9999-12-31T23:59:59.9999999Z", "files/0",
                              "../x", "/etc/shadow", "0600", "main", "file", "symlink", "a" * 64]))
VALUES = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(KEYS), inner, max_size=5),
                      max_leaves=20)


def _field(valid):
    return st.one_of(valid, VALUES)


_TIMES = st.sampled_from(["2026-12-01T09:00:00Z", "2026-12-01T09:00:00.5+01:00", "9999-12-31T23:59:59.999999Z", "0001-01-01T00:00:00Z",
                          "9999-12-31T23:59:59.9999999Z", "2026-13-01T00:00:00Z"])
_FILE = st.fixed_dictionaries({}, optional={"path": _field(st.sampled_from(["/etc/x", "/var/lib/kubelet/config.yaml"])),
                                            "backup": _field(st.sampled_from(["/var/lib/numa-gate/b.bak", None]))})
NEAR_LINES = st.fixed_dictionaries(
    {"step": _field(st.sampled_from(["state", "config", "stop", "decide"])), "event": _field(st.sampled_from(["started", "finished"])),
     "at": _field(_TIMES)},
    optional={"outcome": _field(st.sampled_from(["ok", "failed"])),
              "changed": _field(st.fixed_dictionaries({}, optional={"files": _field(st.lists(_field(_FILE), max_size=3)),
                                                                    "target": _field(st.sampled_from(["enable", "rollback"]))}))})
NEAR_ENTRIES = st.fixed_dictionaries({"path": _field(st.just("/var/lib/kubelet/config.yaml")), "role": _field(st.just("main"))}, optional={
    "copy": _field(st.sampled_from(["files/0", "files/01", "/etc/shadow", "files/../x"])), "sha256": _field(st.just("a" * 64)),
    "mode": _field(st.just("0644")), "uid": _field(st.just(0)), "gid": _field(st.just(0)), "size": _field(st.just(3)),
    "absent": _field(st.just(True)), "symlink": _field(st.just("x"))})


@settings(max_examples=500, deadline=None)
@given(st.lists(NEAR_LINES | VALUES | st.binary(max_size=30), max_size=5))
def test_any_journal_is_entries_or_a_refusal_by_line(lines):
    blob = b"\n".join(line if isinstance(line, bytes) else json.dumps(line).encode() for line in lines)
    try:
        entries, _tail, _notes = journal_lines.parse(blob, "/j")
    except atomic.NodeStateError as exc:
        assert str(exc).startswith("line ") and str(exc).endswith("; nothing was changed")
        return
    journal.summary(entries)
    record.build("t1", entries, [], node="n", target="enable")
    try:
        journal.recorded_files(entries)
    except atomic.NodeStateError as exc:
        assert str(exc).endswith("; nothing was changed")


@settings(max_examples=500, deadline=None)
@given(st.lists(NEAR_ENTRIES | VALUES, max_size=4))
def test_any_manifest_is_checked_or_refused_by_entry(files):
    try:
        baseline_manifest.check({"schema_version": 1, "files": files}, "/s/manifest.json")
    except atomic.NodeStateError as exc:
        assert str(exc).startswith("baseline /s/manifest.json: files[")
        return
    for entry in files:
        assert "copy" not in entry or (entry["copy"].startswith("files/") and ".." not in entry["copy"] and entry["copy"] != "files/01")


@settings(max_examples=200, deadline=None)
@given(VALUES)
def test_any_backup_record_is_read_or_refused(tmp_path_factory, record):
    folder = tmp_path_factory.mktemp("r")
    copy = folder / "x.bak"
    copy.write_bytes(b"data")
    (folder / "x.bak.meta").write_text(json.dumps(record))
    try:
        kept = backups.load(str(copy))
    except atomic.NodeStateError as exc:
        assert "x.bak" in str(exc)
        return
    assert kept["data"] == b"data"


def test_a_backup_record_is_refused_before_anything_is_written(tmp_path):
    target = tmp_path / "target"
    target.write_bytes(b"now")
    copy = tmp_path / "x.bak"
    copy.write_bytes(b"then")
    (tmp_path / "x.bak.meta").write_text(json.dumps({"kind": "file", "mode": "0644", "uid": -1, "gid": 0}))
    with pytest.raises(atomic.NodeStateError) as raised:
        backups.restore(str(copy), str(target))
    assert str(raised.value) == ("%s.meta is not a backup record (uid -1 and gid 0 are not user and group ids); not restoring %s"
                                 % (copy, copy))
    assert target.read_bytes() == b"now"
