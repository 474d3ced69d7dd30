"""Unit tests for byte-for-byte, private backups and restoring them."""

import hashlib
import json
import os
import stat

import pytest

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._node_files import atomic
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._node_files import backups as af

IS_ROOT = hasattr(os, "geteuid") and os.geteuid() == 0


def mode_of(path):
    return stat.S_IMODE(os.stat(path).st_mode)


def sha(path):
    with open(path, "rb") as handle:
        return hashlib.sha256(handle.read()).hexdigest()


def record_of(saved):
    with open(saved + ".meta", encoding="utf-8") as handle:
        return json.load(handle)


def test_existing_file_keeps_mode_and_is_backed_up_byte_for_byte(tmp_path):
    target = tmp_path / "config.yaml"
    original = b"# comment\r\nkind: KubeletConfiguration\n\x00tail"
    target.write_bytes(original)
    os.chmod(target, 0o640)
    saved = af.replace(str(target), b"new\n", backup_dir=str(tmp_path / "backups"))
    assert target.read_bytes() == b"new\n"
    assert mode_of(target) == 0o640
    assert saved.startswith(str(tmp_path / "backups") + os.sep)
    assert os.path.basename(saved).startswith(af.backup_prefix(str(target)))
    assert saved.endswith(".bak")
    with open(saved, "rb") as handle:
        assert handle.read() == original
    # Issue 7 rule 6: the copy itself is private; the original's mode is in its record.
    assert mode_of(saved) == 0o600
    assert mode_of(saved + ".meta") == 0o600
    assert record_of(saved)["mode"] == "0640"
    assert record_of(saved)["sha256"] == hashlib.sha256(original).hexdigest()
    assert mode_of(tmp_path / "backups") == 0o700


@pytest.mark.skipif(not IS_ROOT, reason="changing a file's owner needs root")
def test_existing_file_keeps_owner_and_group(tmp_path):
    target = tmp_path / "config.yaml"
    target.write_bytes(b"old")
    os.chown(target, 4321, 8765)
    saved = af.replace(str(target), b"new", backup_dir=str(tmp_path / "b"))
    info = os.stat(target)
    assert (info.st_uid, info.st_gid) == (4321, 8765)
    # The backup is root's (rule 6); the owner it restores is recorded.
    backup_info = os.stat(saved)
    assert (backup_info.st_uid, backup_info.st_gid) == (0, 0)
    assert (record_of(saved)["uid"], record_of(saved)["gid"]) == (4321, 8765)
    os.chown(target, 0, 0)
    af.restore(saved, str(target))
    info = os.stat(target)
    assert (info.st_uid, info.st_gid) == (4321, 8765)


def test_restore_puts_the_original_back(tmp_path):
    target = tmp_path / "config.yaml"
    target.write_bytes(b"original bytes\n")
    os.chmod(target, 0o644)
    before = sha(target)
    saved = af.replace(str(target), b"changed\n", backup_dir=str(tmp_path / "b"))
    os.chmod(target, 0o600)
    af.restore(saved, str(target))
    assert sha(target) == before
    assert mode_of(target) == 0o644


def test_restore_a_deleted_file(tmp_path):
    target = tmp_path / "50.conf"
    target.write_bytes(b"drop-in")
    os.chmod(target, 0o644)
    saved = af.remove(str(target), str(tmp_path / "b"))
    assert not target.exists()
    af.restore(saved, str(target))
    assert target.read_bytes() == b"drop-in"
    assert mode_of(target) == 0o644


def test_restore_refuses_a_tampered_backup(tmp_path):
    target = tmp_path / "f"
    target.write_bytes(b"one")
    saved = af.replace(str(target), b"two", backup_dir=str(tmp_path / "b"))
    with open(saved, "wb") as handle:
        handle.write(b"evil")
    with pytest.raises(atomic.NodeStateError) as err:
        af.restore(saved, str(target))
    assert str(err.value) == "%s does not match its recorded sha256 (%s, found %s); not restoring it" % (
        saved, hashlib.sha256(b"one").hexdigest(), hashlib.sha256(b"evil").hexdigest())
    assert target.read_bytes() == b"two"


def test_restore_of_a_backup_without_record_uses_its_own_mode(tmp_path):
    # Backups made by 0.1.0 kept the original's mode on the copy and had no record.
    old = tmp_path / "b" / "f.20260101T000000.000000Z.bak"
    old.parent.mkdir()
    old.write_bytes(b"legacy")
    os.chmod(old, 0o644)
    af.restore(str(old), str(tmp_path / "f"))
    assert (tmp_path / "f").read_bytes() == b"legacy"
    assert mode_of(tmp_path / "f") == 0o644


def test_restore_refuses_to_write_through_a_symlink(tmp_path):
    target = tmp_path / "f"
    target.write_bytes(b"one")
    saved = af.remove(str(target), str(tmp_path / "b"))
    outside = tmp_path / "outside"
    outside.write_bytes(b"precious")
    target.symlink_to(outside)
    with pytest.raises(atomic.NodeStateError, match="is a symlink"):
        af.restore(saved, str(target))
    assert outside.read_bytes() == b"precious"


def test_remove_without_backup_dir_and_missing_file(tmp_path):
    target = tmp_path / "x"
    target.write_bytes(b"1")
    assert af.remove(str(target)) is None
    assert not target.exists()
    assert af.remove(str(target), str(tmp_path / "b")) is None


def test_remove_refuses_a_fifo(tmp_path):
    fifo = tmp_path / "50.conf"
    os.mkfifo(fifo)
    with pytest.raises(atomic.NodeStateError) as err:
        af.remove(str(fifo), str(tmp_path / "b"))
    assert str(err.value) == "%s exists and is not a regular file or a symlink; not removed" % fifo
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


def test_backups_of_lists_oldest_first_and_only_that_file(tmp_path):
    target = tmp_path / "config.yaml"
    other = tmp_path / "other.yaml"
    longer = tmp_path / "config.yaml.d"
    other.write_bytes(b"o")
    longer.write_bytes(b"l")
    target.write_bytes(b"1")
    backups = str(tmp_path / "b")
    first = af.replace(str(target), b"2", backup_dir=backups)
    second = af.replace(str(target), b"3", backup_dir=backups)
    af.replace(str(other), b"p", backup_dir=backups)
    af.replace(str(longer), b"m", backup_dir=backups)
    assert af.backups_of(str(target), backups) == [first, second]
    with open(first, "rb") as handle:
        assert handle.read() == b"1"
    assert af.backups_of(str(target), str(tmp_path / "missing")) == []


def test_same_timestamp_does_not_overwrite_a_backup(tmp_path, monkeypatch):
    monkeypatch.setattr(af, "_timestamp", lambda: "20260101T000000.000000Z")
    target = tmp_path / "f"
    target.write_bytes(b"1")
    first = af.replace(str(target), b"2", backup_dir=str(tmp_path / "b"))
    second = af.replace(str(target), b"3", backup_dir=str(tmp_path / "b"))
    assert first != second
    assert second.endswith("Z~001.bak")
    # Oldest first even within one timestamp: "~" sorts after ".".
    assert af.backups_of(str(target), str(tmp_path / "b")) == [first, second]
    with open(first, "rb") as handle:
        assert handle.read() == b"1"


def test_failed_backup_leaves_the_file_untouched(tmp_path):
    target = tmp_path / "f"
    target.write_bytes(b"keep")
    blocker = tmp_path / "blocker"
    blocker.write_bytes(b"")
    with pytest.raises(atomic.NodeStateError) as err:
        af.replace(str(target), b"new", backup_dir=str(blocker / "sub"))
    assert "cannot create folder" in str(err.value)
    assert target.read_bytes() == b"keep"


def test_remove_a_symlink_removes_the_link_and_keeps_its_target(tmp_path):
    real = tmp_path / "real.conf"
    real.write_bytes(b"kept")
    link = tmp_path / "link.conf"
    link.symlink_to(real)
    saved = af.remove(str(link), backup_dir=str(tmp_path / "b"))
    assert not os.path.lexists(link)
    assert real.read_bytes() == b"kept"
    # Backed up as the link it was (its target text), never read through (issue 7 rules 1 and 2).
    with open(saved, "rb") as handle:
        assert handle.read() == os.fsencode(str(real))
    assert record_of(saved)["kind"] == "symlink"
    af.restore(saved, str(link))
    assert os.readlink(link) == str(real)
    assert real.read_bytes() == b"kept"


def test_a_path_too_long_for_one_name_is_shortened_deterministically(tmp_path):
    # Issue 7 rule 6: a long config_dir made every backup fail with "File name too long".
    deep = tmp_path
    for index in range(6):
        deep = deep / ("kubelet-config-directory-%02d-" % index + "d" * 40)
    deep.mkdir(parents=True)
    target = deep / "50-numa-gate.conf"
    target.write_bytes(b"v1")
    flat = str(target).strip("/").replace("/", "__")
    assert len(flat) > 255
    prefix = af.backup_prefix(str(target))
    assert prefix == af.backup_prefix(str(target))
    assert prefix.endswith("~%s." % hashlib.sha256(flat.encode()).hexdigest()[:16])
    assert flat.endswith(prefix[:-18])  # a readable tail of the path
    first = af.replace(str(target), b"v2", backup_dir=str(tmp_path / "b"))
    second = af.replace(str(target), b"v3", backup_dir=str(tmp_path / "b"))
    assert all(len(os.path.basename(p) + ".meta") <= 255 for p in (first, second))
    assert af.backups_of(str(target), str(tmp_path / "b")) == [first, second]
    af.restore(first, str(target))
    assert target.read_bytes() == b"v1"


def test_two_long_paths_with_the_same_tail_get_different_names(tmp_path):
    one = "/a" * 200 + "/etc/kubernetes/kubelet.conf.d/50-numa-gate.conf"
    two = "/b" * 200 + "/etc/kubernetes/kubelet.conf.d/50-numa-gate.conf"
    assert af.backup_prefix(one) != af.backup_prefix(two)
    assert len(af.backup_prefix(one).encode()) <= 255 - 48
