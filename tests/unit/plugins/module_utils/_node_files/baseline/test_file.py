"""Unit tests for the write-once, sha256-checked baseline."""

import os
import stat

import pytest

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._node_files import atomic
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._node_files import backups
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._node_files.baseline import file as af


def mode_of(path):
    return stat.S_IMODE(os.stat(path).st_mode)


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
    with pytest.raises(atomic.NodeStateError, match="does not match its recorded sha256"):
        af.baseline_bytes(copy)


def test_baseline_is_private_and_restores_the_original_mode(tmp_path):
    # Issue 7 rule 6: the backup folder (created here as a parent) and the baseline are 0700 / 0600.
    os.umask(0o022)
    target = tmp_path / "config.yaml"
    target.write_bytes(b"original")
    os.chmod(target, 0o644)
    copy = af.keep_baseline(str(target), str(tmp_path / "state" / "backups"))
    assert mode_of(tmp_path / "state") == 0o700
    assert mode_of(tmp_path / "state" / "backups") == 0o700
    assert mode_of(tmp_path / "state" / "backups" / "baseline") == 0o700
    for path in (copy, copy + ".sha256", copy + ".meta"):
        assert mode_of(path) == 0o600, path
    target.write_bytes(b"ours")
    os.chmod(target, 0o600)
    backups.restore(copy, str(target))
    assert target.read_bytes() == b"original"
    assert mode_of(target) == 0o644


def test_baseline_of_a_symlink_is_refused(tmp_path):
    real = tmp_path / "real"
    real.write_bytes(b"x")
    (tmp_path / "link").symlink_to(real)
    with pytest.raises(Exception) as err:
        af.keep_baseline(str(tmp_path / "link"), str(tmp_path / "b"))
    assert str(err.value) == "%s is a symlink, not a regular file; not read" % (tmp_path / "link")
    assert af.baseline_of(str(tmp_path / "link"), str(tmp_path / "b")) is None


def test_missing_checksum_is_refused(tmp_path):
    target = tmp_path / "config.yaml"
    target.write_bytes(b"original")
    copy = af.keep_baseline(str(target), str(tmp_path / "b"))
    os.unlink(copy + ".sha256")
    with pytest.raises(atomic.NodeStateError) as err:
        af.baseline_bytes(copy)
    assert str(err.value).startswith("cannot read the checksum of baseline %s: " % copy)
