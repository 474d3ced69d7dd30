"""roles/kubelet_transition/tasks/report.yml and ended.yml through real ansible-playbook: the record lands in the artifacts, once,
and it is kept before the transition is closed."""

import hashlib
import json
import os
import subprocess

from ansible_collections.gpusmith.numa_gate.tests.unit import ansible_run
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._node_files import backups
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._transition.journal import journal, transitions

PLAY = """- hosts: localhost
  gather_facts: false
  tasks:
    - name: Keep the transition record
      ansible.builtin.include_role:
        name: gpusmith.numa_gate.kubelet_transition
        tasks_from: report
"""
CONFIG = b"kind: KubeletConfiguration\nmaxPods: 110\n"


ENDED = PLAY.replace("Keep the transition record", "Close a transition a killed run had ended").replace("tasks_from: report", "tasks_from: ended")


def play(tmp_path, extra, *flags, text=PLAY, expect_rc=0):
    playbook = tmp_path / "play.yml"
    playbook.write_text(text)
    variables = tmp_path / "vars.json"
    # No API here: the lock's release where the transition closes is test_transition_lock_tasks.py's (kubelet_transition_lock off).
    variables.write_text(json.dumps(dict({"kubelet_transition_lock": False}, **dict(extra, numa_gate_artifacts_dir=str(tmp_path / "artifacts")))))
    argv = [os.path.join(ansible_run.BIN, "ansible-playbook"), "-i", "localhost,", "-c", "local", str(playbook), "-e", "@%s" % variables,
            "-e", "ansible_python_interpreter=%s" % ansible_run.PYTHON] + list(flags)
    done = subprocess.run(argv, cwd=ansible_run.REPO, env=ansible_run.environment(tmp_path), capture_output=True, text=True, timeout=300,
                          check=False)
    assert done.returncode == expect_rc, done.stdout[-3000:] + done.stderr[-2000:]
    if expect_rc:
        return json.loads(done.stdout[done.stdout.index("{"):])
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


def sha_tree(folder):
    """{relative path: sha256} of every file under ``folder``."""
    found = {}
    for parent, _dirs, names in os.walk(str(folder)):
        for name in names:
            path = os.path.join(parent, name)
            with open(path, "rb") as stream:
                found[os.path.relpath(path, str(folder))] = hashlib.sha256(stream.read()).hexdigest()
    return found


def ended_journal(state_dir, transition_id, last):
    """An open transition whose journal ends as a run killed before the close leaves it."""
    transitions.open_transition("/", state_dir, "enable", transition_id)
    path = transitions.journal_path("/", state_dir, transition_id)
    journal.append(path, "decide", "finished", outcome="changed", at="2026-12-01T09:00:00Z",
                   changed={"target": "enable", "unschedulable_before": False, "cordons": True})
    journal.append(path, "cordon", "finished", outcome="changed", at="2026-12-01T09:00:01Z", changed={"cordoned": True, "was_unschedulable": False})
    if last == "uncordon":
        journal.append(path, "verify", "finished", outcome="ok", at="2026-12-01T09:01:00Z")
        journal.append(path, "uncordon", "finished", outcome="changed", at="2026-12-01T09:01:00.500000Z")
    else:
        journal.append(path, "drain", "finished", outcome="failed", at="2026-12-01T09:01:00.500000Z", changed={"message": "timed out"})
    return path


def test_a_run_killed_between_the_uncordon_and_the_close_loses_no_record(tmp_path):
    state_dir = str(tmp_path / "numa-gate")
    path = ended_journal(state_dir, "20261201T090000Z", "uncordon")
    pointer = os.path.join(state_dir, "transitions", transitions.CURRENT)
    extra = {"kubelet_transition_state_dir": state_dir, "__kubelet_transition_id": "20261201T090000Z", "kubelet_transition_target": "enable",
             "kubelet_transition_node_name": "gpu-7"}
    # The record is read while the pointer is still there, as steps.yml now keeps it before the close: it reads as closed.
    play(tmp_path, extra)
    kept = json.loads((tmp_path / "artifacts" / "localhost" / "transition.json").read_text())
    assert os.path.isfile(pointer)
    assert {key: kept[key] for key in ("open", "outcome", "closed", "duration_s", "in_progress", "notes")} == {
        "open": False, "outcome": "converged", "closed": "2026-12-01T09:01:00.500000Z", "duration_s": 60.5, "in_progress": None,
        "notes": ["the journal ends with uncordon finished (changed): the transition is done, and this record was read before its pointer "
                  "(transitions/current) was removed"]}
    # The re-run after a kill right there: ended.yml keeps the record and closes; the journal gets nothing new.
    journal_before = sha_tree(os.path.dirname(path))
    (tmp_path / "artifacts" / "localhost" / "transition.json").unlink()
    stats = play(tmp_path, dict(extra, __kubelet_transition_resume={"ended": "uncordon", "done": True}), text=ENDED)
    assert not os.path.exists(pointer)
    assert sha_tree(os.path.dirname(path)) == journal_before
    again = json.loads((tmp_path / "artifacts" / "localhost" / "transition.json").read_text())
    assert again == kept
    assert (stats["changed"], stats["failures"]) == (2, 0)


def test_a_failed_drain_a_killed_run_left_open_is_recorded_closed_and_the_host_told(tmp_path):
    state_dir = str(tmp_path / "numa-gate")
    path = ended_journal(state_dir, "20261201T090000Z", "drain")
    extra = {"kubelet_transition_state_dir": state_dir, "__kubelet_transition_id": "20261201T090000Z", "kubelet_transition_target": "enable",
             "kubelet_transition_node_name": "gpu-7", "__kubelet_transition_resume": {"ended": "drain", "done": False}}
    journal_before = sha_tree(os.path.dirname(path))
    result = play(tmp_path, extra, text=ENDED, expect_rc=2)
    failed = result["plays"][0]["tasks"][-1]["hosts"]["localhost"]
    assert failed["msg"] == (
        "localhost: transition 20261201T090000Z ended with a failed drain (the kubelet was not touched) in a run that was killed before it "
        "closed it; its record is kept and it is closed now, and nothing else was changed. Re-run the playbook to try again.")
    assert not os.path.exists(os.path.join(state_dir, "transitions", transitions.CURRENT))
    assert sha_tree(os.path.dirname(path)) == journal_before
    kept = json.loads((tmp_path / "artifacts" / "localhost" / "transition.json").read_text())
    assert (kept["open"], kept["outcome"], kept["failed_steps"]) == (False, "failed-closed", ["drain"])


ENDING = """- hosts: localhost
  gather_facts: false
  tasks:
    - name: The uncordon step (the node was cordoned before the transition, so only its event is recorded)
      ansible.builtin.include_role:
        name: gpusmith.numa_gate.kubelet_transition
        tasks_from: uncordon
        public: true

    - name: Keep the record and close the transition
      ansible.builtin.include_role:
        name: gpusmith.numa_gate.kubelet_transition
        tasks_from: close
"""


def test_the_record_comes_back_with_the_uncordon_and_is_kept_before_the_close(tmp_path):
    """No module run reads the record: it comes back with the uncordon's event; it is kept, then the transition is closed."""
    state_dir = str(tmp_path / "numa-gate")
    path = ended_journal(state_dir, "20261201T090000Z", "drain")
    with open(path, "rb") as stream:
        lines = stream.read().splitlines()
    with open(path, "wb") as stream:  # a journal that is not ended yet: drop the drain's failure
        stream.write(b"\n".join(lines[:-1]) + b"\n")
    extra = {"kubelet_transition_state_dir": state_dir, "__kubelet_transition_id": "20261201T090000Z", "kubelet_transition_target": "enable",
             "kubelet_transition_node_name": "gpu-7", "__kubelet_transition_cordoned": False}
    stats = play(tmp_path, extra, text=ENDING)
    kept = json.loads((tmp_path / "artifacts" / "localhost" / "transition.json").read_text())
    assert {key: kept[key] for key in ("transition", "target", "node", "open", "outcome")} == {
        "transition": "20261201T090000Z", "target": "enable", "node": "gpu-7", "open": False, "outcome": "converged"}
    assert [(s["step"], s["outcome"]) for s in kept["steps"]] == [("decide", "changed"), ("cordon", "changed"), ("uncordon", "skipped")]
    assert transitions.current("/", state_dir) is None
    # the uncordon's record (1), the artifacts (2), the close (3); skipped: the cordoned path and the lock's release (lock off)
    assert (stats["changed"], stats["skipped"]) == (3, 2)
