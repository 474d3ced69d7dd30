"""roles/kubelet_transition/tasks/report.yml through real ansible-playbook: the record lands in the artifacts, once."""

import json
import os
import subprocess

from ansible_collections.gpusmith.numa_gate.tests.unit import ansible_run
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._node_state import backups, journal, transitions

PLAY = """- hosts: localhost
  gather_facts: false
  tasks:
    - name: Keep the transition record
      ansible.builtin.include_role:
        name: gpusmith.numa_gate.kubelet_transition
        tasks_from: report
"""
CONFIG = b"kind: KubeletConfiguration\nmaxPods: 110\n"


def play(tmp_path, extra, *flags):
    playbook = tmp_path / "play.yml"
    playbook.write_text(PLAY)
    variables = tmp_path / "vars.json"
    variables.write_text(json.dumps(dict(extra, numa_gate_artifacts_dir=str(tmp_path / "artifacts"))))
    argv = [os.path.join(ansible_run.BIN, "ansible-playbook"), "-i", "localhost,", "-c", "local", str(playbook), "-e", "@%s" % variables,
            "-e", "ansible_python_interpreter=%s" % ansible_run.PYTHON] + list(flags)
    done = subprocess.run(argv, cwd=ansible_run.REPO, env=ansible_run.environment(tmp_path), capture_output=True, text=True, timeout=300,
                          check=False)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    return json.loads(done.stdout[done.stdout.index("{"):])["stats"]["localhost"]


def test_the_record_is_kept_once_and_not_in_check_mode_for_a_transition_never_opened(tmp_path):
    state_dir = str(tmp_path / "numa-gate")
    (tmp_path / "config.yaml").write_bytes(CONFIG)
    transitions.open_transition("/", state_dir, "rollback", "20261201T090000Z")
    folder = transitions.folder("/", state_dir, "20261201T090000Z")
    path = os.path.join(folder, journal.JOURNAL)
    journal.append(path, "config", "started", at="2026-12-01T09:00:00Z")
    copy = backups.replace(str(tmp_path / "config.yaml"), CONFIG + b"cpuManagerPolicy: static\n", os.path.join(folder, "backups"))
    journal.append(path, "config", "finished", outcome="changed", at="2026-12-01T09:00:00.750000Z",
                   changed={"files": [{"path": str(tmp_path / "config.yaml"), "backup": copy}]})
    transitions.close("/", state_dir, "20261201T090000Z")
    extra = {"kubelet_transition_state_dir": state_dir, "__kubelet_transition_id": "20261201T090000Z", "kubelet_transition_target": "rollback",
             "kubelet_transition_node_name": "gpu-7"}
    stats = play(tmp_path, extra)
    host = tmp_path / "artifacts" / "localhost"
    assert sorted(os.listdir(str(host))) == ["transition-20261201T090000Z.json", "transition.json"]
    text = (host / "transition.json").read_text()
    assert (host / "transition-20261201T090000Z.json").read_text() == text and text.endswith("}\n")
    kept = json.loads(text)
    assert {key: kept[key] for key in ("transition", "target", "target_source", "node", "open", "outcome", "duration_s")} == {
        "transition": "20261201T090000Z", "target": "rollback", "target_source": "caller", "node": "gpu-7", "open": False,
        "outcome": "converged", "duration_s": 0.75}
    assert [(s["step"], s["duration_s"]) for s in kept["steps"]] == [("config", 0.75)]
    assert [(f["path"], f["backup"], f["changed"]) for f in kept["files"]] == [(str(tmp_path / "config.yaml"), copy, True)]
    assert stats["changed"] == 1
    # Again: the same record, nothing written.
    assert play(tmp_path, extra)["changed"] == 0
    # A check-mode run whose transition was never opened keeps nothing and leaves the latest record alone.
    stats = play(tmp_path, dict(extra, __kubelet_transition_id="20261201T100000Z"), "--check")
    assert (stats["changed"], stats["skipped"]) == (0, 1)
    assert sorted(os.listdir(str(host))) == ["transition-20261201T090000Z.json", "transition.json"]
    # Artifacts off: not even read.
    assert play(tmp_path, dict(extra, kubelet_transition_write_artifacts=False))["skipped"] == 2
