"""Unit tests for atomic writes that never follow a symlink."""

import os
import stat

import pytest

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base.errors import NumaGateError
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._node_files import atomic as af
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._node_files import backups

IS_ROOT = hasattr(os, "geteuid") and os.geteuid() == 0


def mode_of(path):
    return stat.S_IMODE(os.stat(path).st_mode)


def test_new_file_is_0600(tmp_path):
    target = tmp_path / "new.conf"
    assert backups.replace(str(target), b"hello\n", backup_dir=str(tmp_path / "b")) is None
    assert target.read_bytes() == b"hello\n"
    assert mode_of(target) == 0o600
    assert not (tmp_path / "b").exists()


def test_new_file_with_explicit_mode(tmp_path):
    target = tmp_path / "new.conf"
    af.write_atomic(str(target), b"x", mode=0o644)
    assert mode_of(target) == 0o644


def test_existing_file_keeps_its_mode(tmp_path):
    target = tmp_path / "config.yaml"
    target.write_bytes(b"old")
    os.chmod(target, 0o640)
    assert af.write_atomic(str(target), b"new\n") == str(target)
    assert target.read_bytes() == b"new\n"
    assert mode_of(target) == 0o640


@pytest.mark.skipif(not IS_ROOT, reason="changing a file's owner needs root")
def test_existing_file_keeps_owner_and_group(tmp_path):
    target = tmp_path / "config.yaml"
    target.write_bytes(b"old")
    os.chown(target, 4321, 8765)
    af.write_atomic(str(target), b"new")
    info = os.stat(target)
    assert (info.st_uid, info.st_gid) == (4321, 8765)


def test_symlink_is_refused_and_its_target_kept(tmp_path):
    # Issue 7 rule 1: the collection never writes through a link it did not create.
    real = tmp_path / "real.yaml"
    real.write_bytes(b"old")
    link = tmp_path / "link.yaml"
    link.symlink_to(real)
    with pytest.raises(af.NodeStateError) as err:
        af.write_atomic(str(link), b"new")
    assert str(err.value) == ("%s is a symlink (to %s); not written through it: the collection replaces only regular files"
                              % (link, real))
    assert os.path.islink(link)
    assert real.read_bytes() == b"old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.yaml", "real.yaml"]


def test_dangling_symlink_is_refused_and_nothing_created(tmp_path):
    link = tmp_path / "link.yaml"
    link.symlink_to(tmp_path / "nowhere")
    with pytest.raises(af.NodeStateError, match="is a symlink"):
        af.write_atomic(str(link), b"new")
    assert not (tmp_path / "nowhere").exists()


def test_symlinked_folder_is_refused(tmp_path):
    (tmp_path / "real").mkdir()
    (tmp_path / "linked").symlink_to(tmp_path / "real")
    with pytest.raises(af.NodeStateError) as err:
        af.write_atomic(str(tmp_path / "linked" / "f"), b"x")
    assert str(err.value) == "directory of %s is a symlink or not a folder; not written" % (tmp_path / "linked" / "f")
    assert list((tmp_path / "real").iterdir()) == []


def test_fifo_target_is_refused_without_blocking(tmp_path):
    fifo = tmp_path / "f"
    os.mkfifo(fifo)
    with pytest.raises(af.NodeStateError) as err:
        af.write_atomic(str(fifo), b"x")
    assert str(err.value) == "%s exists and is not a regular file; not replaced" % fifo
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


def test_missing_directory_fails_and_writes_nothing(tmp_path):
    with pytest.raises(af.NodeStateError) as err:
        af.write_atomic(str(tmp_path / "nope" / "f"), b"x")
    assert "directory of" in str(err.value)
    assert not (tmp_path / "nope").exists()


def test_target_that_is_a_directory_is_refused(tmp_path):
    (tmp_path / "d").mkdir()
    with pytest.raises(af.NodeStateError) as err:
        af.write_atomic(str(tmp_path / "d"), b"x")
    assert "is not a regular file" in str(err.value)


def test_text_is_refused(tmp_path):
    with pytest.raises(af.NodeStateError):
        af.write_atomic(str(tmp_path / "f"), "text")


def test_failed_write_leaves_no_temp_file(tmp_path, monkeypatch):
    target = tmp_path / "f"
    target.write_bytes(b"keep")

    def boom(*_args, **_kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(af.os, "replace", boom)
    with pytest.raises(af.NodeStateError) as err:
        af.write_atomic(str(target), b"new")
    assert "No space left on device" in str(err.value)
    assert target.read_bytes() == b"keep"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["f"]


def test_temp_name_does_not_grow_with_the_target_name(tmp_path, monkeypatch):
    # A 255-byte target name: the old ".<name>.XXXXXX.tmp" temp file could not be created at all.
    target = tmp_path / ("x" * 255)
    seen = []
    real_replace = os.replace

    def spy(src, dst, **kwargs):
        seen.append(src)
        return real_replace(src, dst, **kwargs)

    monkeypatch.setattr(af.os, "replace", spy)
    af.write_atomic(str(target), b"data")
    assert target.read_bytes() == b"data"
    assert len(seen[0]) == len(".numa-gate.0123456789abcdef.tmp")


def test_error_is_a_value_error():
    assert issubclass(af.NodeStateError, ValueError)
    assert issubclass(af.NodeStateError, NumaGateError)


def test_private_dir_is_0700_with_every_new_parent(tmp_path):
    os.umask(0o022)
    made = af.make_private_dir(str(tmp_path / "var/lib/numa-gate/backups"))
    assert made == str(tmp_path / "var/lib/numa-gate/backups")
    for sub in ("var", "var/lib", "var/lib/numa-gate", "var/lib/numa-gate/backups"):
        assert mode_of(tmp_path / sub) == 0o700, sub
    os.chmod(tmp_path / "var", 0o755)
    af.make_private_dir(str(tmp_path / "var/lib/numa-gate/backups"))
    assert mode_of(tmp_path / "var") == 0o755  # existing folders are left alone


def test_private_dir_refuses_a_file_or_a_link_on_the_way(tmp_path):
    (tmp_path / "file").write_bytes(b"")
    with pytest.raises(af.NodeStateError) as err:
        af.make_private_dir(str(tmp_path / "file" / "sub"))
    assert str(err.value) == "cannot create folder %s: %s is not a folder" % (tmp_path / "file" / "sub", tmp_path / "file")
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real")
    with pytest.raises(af.NodeStateError) as err:
        af.make_private_dir(str(tmp_path / "link"))
    assert str(err.value) == "cannot create folder %s: %s is a symlink" % (tmp_path / "link", tmp_path / "link")
