# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The artifacts action plugin: arguments, check and diff mode, and failures as results."""

from __future__ import annotations

import os
from unittest import mock

import pytest

from ansible.errors import AnsibleActionFail
from ansible.playbook.task import Task

from ansible_collections.gpusmith.numa_gate.plugins.action.artifacts import ActionModule


def run(args, check_mode=False, diff=False):
    task = Task()
    task.action = "gpusmith.numa_gate.artifacts"
    task.args = args
    task.check_mode = check_mode
    task.diff = diff
    connection = mock.MagicMock()
    connection._shell.tmpdir = "/nonexistent"  # the action never needs one
    action = ActionModule(task, connection, mock.MagicMock(), mock.MagicMock(), mock.MagicMock(), None)
    result = action.run(task_vars={})
    assert not connection.exec_command.called
    assert not connection.put_file.called
    return result


def test_writes_every_file_in_one_call(tmp_path):
    dest = str(tmp_path / "node-1")
    result = run({"dest": dest, "files": {"b.txt": "b\n", "a.txt": "a\n"}})
    assert result["changed"] is True
    assert result["dest"] == dest
    assert result["files"] == ["a.txt", "b.txt"]
    assert result["changed_files"] == ["a.txt", "b.txt"]
    assert "diff" not in result
    assert sorted(os.listdir(dest)) == ["a.txt", "b.txt"]
    again = run({"dest": dest, "files": {"b.txt": "b\n", "a.txt": "a\n"}})
    assert again["changed"] is False
    assert again["changed_files"] == []


def test_check_and_diff_mode(tmp_path):
    dest = tmp_path / "node-1"
    result = run({"dest": str(dest), "files": {"a.txt": "a\n"}}, check_mode=True, diff=True)
    assert result["changed"] is True
    assert result["changed_files"] == ["a.txt"]
    assert result["diff"] == [{"before_header": "%s (absent)" % (dest / "a.txt"), "after_header": str(dest / "a.txt"),
                               "before": "", "after": "a\n"}]
    assert not dest.exists()


def test_a_refused_name_is_a_failed_result_not_a_traceback(tmp_path):
    result = run({"dest": str(tmp_path), "files": {"../x": "y"}})
    assert result["failed"] is True
    assert result["changed"] is False
    assert result["msg"] == "artifacts: file name '../x' has a '/': it must be one name inside its folder, not a path"
    assert os.listdir(tmp_path) == []


def test_host_and_subdir_name_the_folder_inside_dest(tmp_path):
    result = run({"dest": str(tmp_path), "host": "node-1", "subdir": "baseline", "files": {"manifest.json": "{}\n"}})
    assert (result["changed"], result["dest"], result["changed_files"]) == (True, str(tmp_path / "node-1" / "baseline"), ["manifest.json"])
    assert (tmp_path / "node-1" / "baseline" / "manifest.json").read_text() == "{}\n"


@pytest.mark.parametrize("host,message", [
    ("../../x", "artifacts: host name '../../x' has a '/': it must be one name inside its folder, not a path"),
    ("..", "artifacts: host name '..' is not a name: '.' and '..' are the folder itself and its parent"),
    ("node-b/../node-a", "artifacts: host name 'node-b/../node-a' has a '/': it must be one name inside its folder, not a path"),
    ("x" * 300, "artifacts: host name %r... is 300 bytes in UTF-8, over the 255-byte limit of one file name (NAME_MAX)" % ("x" * 40)),
])
def test_a_hostile_host_is_a_failed_result_and_nothing_is_written(tmp_path, host, message):
    dest = tmp_path / "a" / "artifacts"
    (dest / "node-a").mkdir(parents=True)
    (dest / "node-a" / "plan.json").write_text("a\n")
    result = run({"dest": str(dest), "host": host, "files": {"plan.json": "evil\n"}})
    assert (result["failed"], result["changed"], result["msg"]) == (True, False, message)
    assert sorted(os.path.relpath(os.path.join(d, n), str(tmp_path)) for d, ds, fs in os.walk(str(tmp_path)) for n in ds + fs) == [
        "a", "a/artifacts", "a/artifacts/node-a", "a/artifacts/node-a/plan.json"]
    assert (dest / "node-a" / "plan.json").read_text() == "a\n"


def test_arguments_are_checked(tmp_path):
    with pytest.raises(AnsibleActionFail) as caught:
        run({"dest": str(tmp_path), "files": {"a": "b"}, "mode": "0600"})
    assert str(caught.value).startswith("Invalid options for gpusmith.numa_gate.artifacts: mode")
    with pytest.raises(AnsibleActionFail) as caught:
        run({"files": {"a": "b"}})
    assert "missing required arguments: dest" in str(caught.value)
