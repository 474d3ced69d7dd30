# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Issue 16, rule 5 through real ansible-playbook: an inventory host name that is a path writes nothing, anywhere.

The acceptance_record role (the one that also reads a host's previous record and the other hosts' records) runs
for a host named ``../../x``, ``..`` and ``node-b/../node-a``; every file under the test's tree has the same
sha256 afterwards, and the task fails with the artifacts rule's exact message.
"""

import hashlib
import json
import os
import stat

import pytest

from ansible_collections.gpusmith.numa_gate.tests.unit import ansible_run, playbook_run


def tree(top):
    found = {}
    for directory, dirnames, filenames in os.walk(str(top)):
        dirnames[:] = [d for d in dirnames if d != "ansible-tmp"]
        for name in dirnames + filenames:
            path = os.path.join(directory, name)
            if stat.S_ISDIR(os.lstat(path).st_mode):
                found[os.path.relpath(path, str(top))] = "dir"
            else:
                with open(path, "rb") as handle:
                    found[os.path.relpath(path, str(top))] = hashlib.sha256(handle.read()).hexdigest()
    return found


def run(tmp_path, host):
    work = tmp_path / "a" / "b"
    artifacts = work / "artifacts"
    (artifacts / "node-a").mkdir(parents=True)
    (artifacts / "node-a" / "acceptance.json").write_text('{"host": "node-a"}\n')
    playbook = playbook_run.write_play(tmp_path, "gpusmith.numa_gate.acceptance_record", hosts="all")
    inventory = tmp_path / "inventory.json"
    inventory.write_text(json.dumps({"all": {"hosts": {host: {"ansible_connection": "local", "ansible_python_interpreter": ansible_run.PYTHON}}}}))
    before = tree(tmp_path)
    # 2: a task failed (the one the test names), so the play stopped there.
    output = playbook_run.run(tmp_path, playbook, "-i", str(inventory), "-e", "numa_gate_artifacts_dir=%s" % artifacts, returncode=2)
    failed = [(task["task"]["name"], result) for play in output["plays"] for task in play["tasks"]
              for name, result in task["hosts"].items() if result.get("failed")]
    return failed, before, tree(tmp_path)


@pytest.mark.parametrize("host", ["../../x", "..", "node-b/../node-a"])
def test_a_host_named_as_a_path_fails_before_any_file_is_read_or_written(tmp_path, host):
    failed, before, after = run(tmp_path, host)
    (task, result), = failed
    assert task == "gpusmith.numa_gate.acceptance_record : Assemble the acceptance record"
    rule = "is not a name: '.' and '..' are the folder itself and its parent" if host == ".." else \
        "has a '/': it must be one name inside its folder, not a path"
    assert result["msg"] == ("Task failed: Finalization of task args for 'ansible.builtin.set_fact' failed: Error while resolving value for "
                             "'acceptance_record_result': The filter plugin 'gpusmith.numa_gate.artifacts_file' failed: "
                             "artifacts_file: artifacts: host name %r %s" % (host, rule))
    assert after == before
