"""Unit tests for atomic writes with byte-for-byte backups."""

import hashlib
import os
import stat

import pytest

from ansible_collections.gpusmith.numa_gate.plugins.module_utils import _atomic_file as af

IS_ROOT = hasattr(os, "geteuid") and os.geteuid() == 0


def mode_of(path):
    return stat.S_IMODE(os.stat(path).st_mode)


def sha(path):
    with open(path, "rb") as handle:
        return hashlib.sha256(handle.read()).hexdigest()


def test_new_file_is_0600(tmp_path):
    target = tmp_path / "new.conf"
    assert af.write_atomic(str(target), b"hello\n", backup_dir=str(tmp_path / "b")) is None
    assert target.read_bytes() == b"hello\n"
    assert mode_of(target) == 0o600
    assert not (tmp_path / "b").exists()


def test_new_file_with_explicit_mode(tmp_path):
    target = tmp_path / "new.conf"
    af.write_atomic(str(target), b"x", mode=0o644)
    assert mode_of(target) == 0o644


def test_existing_file_keeps_mode_and_is_backed_up_byte_for_byte(tmp_path):
    target = tmp_path / "config.yaml"
    original = b"# comment\r\nkind: KubeletConfiguration\n\x00tail"
    target.write_bytes(original)
    os.chmod(target, 0o640)
    saved = af.write_atomic(str(target), b"new\n", backup_dir=str(tmp_path / "backups"))
    assert target.read_bytes() == b"new\n"
    assert mode_of(target) == 0o640
    assert saved.startswith(str(tmp_path / "backups") + os.sep)
    assert os.path.basename(saved).startswith(af.backup_prefix(str(target)))
    assert saved.endswith(".bak")
    with open(saved, "rb") as handle:
        assert handle.read() == original
    assert mode_of(saved) == 0o640
    assert mode_of(tmp_path / "backups") == 0o700


@pytest.mark.skipif(not IS_ROOT, reason="changing a file's owner needs root")
def test_existing_file_keeps_owner_and_group(tmp_path):
    target = tmp_path / "config.yaml"
    target.write_bytes(b"old")
    os.chown(target, 4321, 8765)
    saved = af.write_atomic(str(target), b"new", backup_dir=str(tmp_path / "b"))
    info = os.stat(target)
    assert (info.st_uid, info.st_gid) == (4321, 8765)
    backup_info = os.stat(saved)
    assert (backup_info.st_uid, backup_info.st_gid) == (4321, 8765)


def test_restore_puts_the_original_back(tmp_path):
    target = tmp_path / "config.yaml"
    target.write_bytes(b"original bytes\n")
    os.chmod(target, 0o644)
    before = sha(target)
    saved = af.write_atomic(str(target), b"changed\n", backup_dir=str(tmp_path / "b"))
    os.chmod(target, 0o600)
    af.restore(saved, str(target))
    assert sha(target) == before
    assert mode_of(target) == 0o644


def test_restore_a_deleted_file(tmp_path):
    target = tmp_path / "50.conf"
    target.write_bytes(b"drop-in")
    saved = af.remove(str(target), str(tmp_path / "b"))
    assert not target.exists()
    af.restore(saved, str(target))
    assert target.read_bytes() == b"drop-in"


def test_remove_without_backup_dir_and_missing_file(tmp_path):
    target = tmp_path / "x"
    target.write_bytes(b"1")
    assert af.remove(str(target)) is None
    assert not target.exists()
    assert af.remove(str(target), str(tmp_path / "b")) is None


def test_backups_of_lists_oldest_first_and_only_that_file(tmp_path):
    target = tmp_path / "config.yaml"
    other = tmp_path / "other.yaml"
    other.write_bytes(b"o")
    target.write_bytes(b"1")
    backups = str(tmp_path / "b")
    first = af.write_atomic(str(target), b"2", backup_dir=backups)
    second = af.write_atomic(str(target), b"3", backup_dir=backups)
    af.write_atomic(str(other), b"p", backup_dir=backups)
    assert af.backups_of(str(target), backups) == [first, second]
    with open(first, "rb") as handle:
        assert handle.read() == b"1"
    assert af.backups_of(str(target), str(tmp_path / "missing")) == []


def test_same_timestamp_does_not_overwrite_a_backup(tmp_path, monkeypatch):
    monkeypatch.setattr(af, "_timestamp", lambda: "20260101T000000.000000Z")
    target = tmp_path / "f"
    target.write_bytes(b"1")
    first = af.write_atomic(str(target), b"2", backup_dir=str(tmp_path / "b"))
    second = af.write_atomic(str(target), b"3", backup_dir=str(tmp_path / "b"))
    assert first != second
    assert second.endswith("Z~001.bak")
    # Oldest first even within one timestamp: "~" sorts after ".".
    assert af.backups_of(str(target), str(tmp_path / "b")) == [first, second]
    with open(first, "rb") as handle:
        assert handle.read() == b"1"


def test_symlink_is_followed_and_kept(tmp_path):
    real = tmp_path / "real.yaml"
    real.write_bytes(b"old")
    link = tmp_path / "link.yaml"
    link.symlink_to(real)
    af.write_atomic(str(link), b"new")
    assert os.path.islink(link)
    assert real.read_bytes() == b"new"


def test_missing_directory_fails_and_writes_nothing(tmp_path):
    with pytest.raises(af.AtomicFileError) as err:
        af.write_atomic(str(tmp_path / "nope" / "f"), b"x")
    assert "directory of" in str(err.value)
    assert not (tmp_path / "nope").exists()


def test_target_that_is_a_directory_is_refused(tmp_path):
    (tmp_path / "d").mkdir()
    with pytest.raises(af.AtomicFileError) as err:
        af.write_atomic(str(tmp_path / "d"), b"x")
    assert "is not a regular file" in str(err.value)


def test_text_is_refused(tmp_path):
    with pytest.raises(af.AtomicFileError):
        af.write_atomic(str(tmp_path / "f"), "text")


def test_failed_backup_leaves_the_file_untouched(tmp_path):
    target = tmp_path / "f"
    target.write_bytes(b"keep")
    blocker = tmp_path / "blocker"
    blocker.write_bytes(b"")
    with pytest.raises(af.AtomicFileError) as err:
        af.write_atomic(str(target), b"new", backup_dir=str(blocker / "sub"))
    assert "cannot create backup directory" in str(err.value)
    assert target.read_bytes() == b"keep"


def test_failed_write_leaves_no_temp_file(tmp_path, monkeypatch):
    target = tmp_path / "f"
    target.write_bytes(b"keep")

    def boom(*_args):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(af.os, "replace", boom)
    with pytest.raises(af.AtomicFileError) as err:
        af.write_atomic(str(target), b"new")
    assert "No space left on device" in str(err.value)
    assert target.read_bytes() == b"keep"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["f"]


def test_error_is_a_value_error():
    assert issubclass(af.AtomicFileError, ValueError)


def test_remove_a_symlink_removes_the_link_and_keeps_its_target(tmp_path):
    real = tmp_path / "real.conf"
    real.write_bytes(b"kept")
    link = tmp_path / "link.conf"
    link.symlink_to(real)
    saved = af.remove(str(link), backup_dir=str(tmp_path / "b"))
    assert not os.path.lexists(link)
    assert real.read_bytes() == b"kept"
    with open(saved, "rb") as handle:
        assert handle.read() == b"kept"


def test_baseline_is_written_once_and_checked(tmp_path):
    target = tmp_path / "config.yaml"
    target.write_bytes(b"original")
    copy = af.keep_baseline(str(target), str(tmp_path / "b"))
    target.write_bytes(b"changed by us")
    assert af.keep_baseline(str(target), str(tmp_path / "b")) == copy
    assert af.baseline_of(str(target), str(tmp_path / "b")) == copy
    assert af.baseline_bytes(copy) == b"original"
    with open(copy, "wb") as handle:
        handle.write(b"tampered")
    with pytest.raises(af.AtomicFileError, match="does not match its recorded sha256"):
        af.baseline_bytes(copy)
