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
import subprocess

import pytest

from ansible_collections.gpusmith.numa_gate.tests.unit import ansible_run, shared_paths

PLAY = """- hosts: all
  gather_facts: false
  roles:
    - role: gpusmith.numa_gate.topology
      vars:
        topology_root: {root}
        topology_gpu_source: sysfs
        topology_write_artifacts: false
    - role: gpusmith.numa_gate.acceptance_record
"""


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
    (tmp_path / "play.yml").write_text(PLAY.format(root=shared_paths.H200_VM))
    inventory = tmp_path / "inventory.json"
    inventory.write_text(json.dumps({"all": {"hosts": {host: {"ansible_connection": "local", "ansible_python_interpreter": ansible_run.PYTHON}}}}))
    before = tree(tmp_path)
    argv = [os.path.join(ansible_run.BIN, "ansible-playbook"), "-i", str(inventory), str(tmp_path / "play.yml"),
            "-e", "numa_gate_artifacts_dir=%s" % artifacts]
    done = subprocess.run(argv, cwd=ansible_run.REPO, env=ansible_run.environment(tmp_path), capture_output=True, text=True, timeout=300, check=False)
    output = json.loads(done.stdout[done.stdout.index("{"):])
    failed = [(task["task"]["name"], result) for play in output["plays"] for task in play["tasks"]
              for name, result in task["hosts"].items() if result.get("failed")]
    return done.returncode, failed, before, tree(tmp_path)


@pytest.mark.parametrize("host", ["../../x", "..", "node-b/../node-a"])
def test_a_host_named_as_a_path_fails_before_any_file_is_read_or_written(tmp_path, host):
    code, failed, before, after = run(tmp_path, host)
    assert code == 2
    (task, result), = failed
    assert task == "gpusmith.numa_gate.acceptance_record : Assemble the acceptance record"
    rule = "is not a name: '.' and '..' are the folder itself and its parent" if host == ".." else \
        "has a '/': it must be one name inside its folder, not a path"
    assert result["msg"] == ("Task failed: Finalization of task args for 'ansible.builtin.set_fact' failed: Error while resolving value for "
                             "'acceptance_record_record': The filter plugin 'gpusmith.numa_gate.artifacts_file' failed: "
                             "artifacts_file: artifacts: host name %r %s" % (host, rule))
    assert after == before
