# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The controller-side artifacts writer: one call per host, atomic, never outside its folder."""

from __future__ import annotations

import hashlib
import os

import pytest

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import artifacts as _artifacts


def sha256(path):
    with open(path, "rb") as handle:
        return hashlib.sha256(handle.read()).hexdigest()


def test_write_makes_the_folder_and_every_file(tmp_path):
    dest = tmp_path / "artifacts" / "node-1"
    folder, changed, entries = _artifacts.write(str(dest), {"plan.json": "{}\n", "summary.md": "# s\n"})
    assert folder == str(dest)
    assert changed == ["plan.json", "summary.md"]
    assert [name for name, _b, _a in entries] == ["plan.json", "summary.md"]
    assert (dest / "plan.json").read_text() == "{}\n"
    assert (dest / "summary.md").read_text() == "# s\n"
    assert oct(os.stat(dest / "plan.json").st_mode & 0o777) == "0o644"
    assert sorted(os.listdir(dest)) == ["plan.json", "summary.md"]  # no temporary file left


def test_same_content_is_not_a_change_and_not_rewritten(tmp_path):
    _artifacts.write(str(tmp_path), {"a.txt": "one\n", "b.txt": "two\n"})
    inode = os.stat(tmp_path / "a.txt").st_ino
    _folder, changed, _entries = _artifacts.write(str(tmp_path), {"a.txt": "one\n", "b.txt": "2\n"})
    assert changed == ["b.txt"]
    assert os.stat(tmp_path / "a.txt").st_ino == inode
    assert (tmp_path / "b.txt").read_text() == "2\n"


def test_replacement_is_a_rename_not_an_overwrite(tmp_path):
    _artifacts.write(str(tmp_path), {"a.txt": "one\n"})
    inode = os.stat(tmp_path / "a.txt").st_ino
    _artifacts.write(str(tmp_path), {"a.txt": "two\n"})
    assert os.stat(tmp_path / "a.txt").st_ino != inode
    assert (tmp_path / "a.txt").read_text() == "two\n"


def test_check_mode_writes_nothing_and_reports_the_change(tmp_path):
    dest = tmp_path / "new"
    _folder, changed, _entries = _artifacts.write(str(dest), {"a.txt": "x"}, check_mode=True)
    assert changed == ["a.txt"]
    assert not dest.exists()


@pytest.mark.parametrize("name", ["../escape", "sub/file", "..", ".", "", "a\0b", "/etc/passwd"])
def test_names_outside_the_folder_are_refused_and_nothing_is_written(tmp_path, name):
    outside = tmp_path / "outside.txt"
    outside.write_text("keep\n")
    before = sha256(outside)
    dest = tmp_path / "dest"
    with pytest.raises(_artifacts.ArtifactsError) as caught:
        _artifacts.write(str(dest), {"ok.txt": "fine", name: "evil"})
    assert str(caught.value) == {
        "../escape": "artifacts: file name '../escape' has a '/': it must be one name inside its folder, not a path",
        "sub/file": "artifacts: file name 'sub/file' has a '/': it must be one name inside its folder, not a path",
        "..": "artifacts: file name '..' is not a name: '.' and '..' are the folder itself and its parent",
        ".": "artifacts: file name '.' is not a name: '.' and '..' are the folder itself and its parent",
        "": "artifacts: file name must be a non-empty string, got ''",
        "a\0b": "artifacts: file name 'a\\x00b' has a control character (U+0000) at offset 1: not a name",
        "/etc/passwd": "artifacts: file name '/etc/passwd' has a '/': it must be one name inside its folder, not a path",
    }[name]
    assert not dest.exists()
    assert sha256(outside) == before


def test_a_symlink_in_the_folder_is_refused_not_written_through(tmp_path):
    target = tmp_path / "target.txt"
    target.write_text("precious\n")
    before = sha256(target)
    dest = tmp_path / "dest"
    dest.mkdir()
    os.symlink(str(target), str(dest / "plan.json"))
    with pytest.raises(_artifacts.ArtifactsError) as caught:
        _artifacts.write(str(dest), {"a.txt": "a", "plan.json": "{}"})
    assert str(caught.value) == "artifacts: %s is a symlink; refusing to replace it" % (dest / "plan.json")
    assert sha256(target) == before
    assert os.path.islink(dest / "plan.json")
    assert not (dest / "a.txt").exists()


def test_a_fifo_in_the_folder_is_refused_without_blocking(tmp_path):
    os.mkfifo(str(tmp_path / "plan.json"))
    with pytest.raises(_artifacts.ArtifactsError) as caught:
        _artifacts.write(str(tmp_path), {"plan.json": "{}"})
    assert str(caught.value) == "artifacts: %s is not a regular file; refusing to replace it" % (tmp_path / "plan.json")


def test_dest_that_is_a_file_is_refused(tmp_path):
    (tmp_path / "file").write_text("x")
    with pytest.raises(_artifacts.ArtifactsError) as caught:
        _artifacts.write(str(tmp_path / "file"), {"a": "b"})
    assert str(caught.value) == "artifacts: dest %s exists and is not a folder" % (tmp_path / "file")


def test_empty_dest_and_files_and_non_text_content_are_refused(tmp_path):
    with pytest.raises(_artifacts.ArtifactsError) as caught:
        _artifacts.write("", {"a": "b"})
    assert str(caught.value) == "artifacts: dest must be a non-empty path, got ''"
    with pytest.raises(_artifacts.ArtifactsError) as caught:
        _artifacts.write(str(tmp_path), {})
    assert str(caught.value) == "artifacts: files must be a non-empty mapping of file name to content"
    with pytest.raises(_artifacts.ArtifactsError) as caught:
        _artifacts.write(str(tmp_path), {"a.json": {"x": 1}})
    assert str(caught.value) == "artifacts: content of a.json must be a string, got a mapping"


def test_content_over_the_bound_is_refused(tmp_path, monkeypatch):
    monkeypatch.setattr(_artifacts, "MAX_BYTES", 4)
    with pytest.raises(_artifacts.ArtifactsError) as caught:
        _artifacts.write(str(tmp_path), {"a": "12345"})
    assert str(caught.value) == "artifacts: content of a is 5 bytes, over the 4-byte bound"
    assert os.listdir(tmp_path) == []


def test_diffs_name_each_changed_file(tmp_path):
    _artifacts.write(str(tmp_path), {"a.txt": "old\n"})
    _artifacts.write(str(tmp_path), {"c.txt": "c"})
    folder, _changed, entries = _artifacts.write(str(tmp_path), {"a.txt": "new\n", "b.txt": "b\n", "c.txt": "c"}, check_mode=True)
    assert _artifacts.diffs(folder, entries) == [
        {"before_header": str(tmp_path / "a.txt"), "after_header": str(tmp_path / "a.txt"), "before": "old\n", "after": "new\n"},
        {"before_header": "%s (absent)" % (tmp_path / "b.txt"), "after_header": str(tmp_path / "b.txt"), "before": "", "after": "b\n"},
    ]


def test_a_failed_write_leaves_no_temporary_file(tmp_path, monkeypatch):
    def broken(_src, _dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(_artifacts.os, "replace", broken)
    with pytest.raises(OSError):
        _artifacts.write(str(tmp_path), {"a.txt": "x"})
    assert os.listdir(tmp_path) == []
