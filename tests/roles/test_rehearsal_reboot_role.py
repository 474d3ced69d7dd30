# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The rehearsal role's reboot entry point where no reboot may happen: a node whose last transition is not a converged enable is
refused before anything is touched, and check mode reboots nothing. The reboot itself (ansible.builtin.reboot refuses a local
connection) runs in the molecule rehearse scenario, on a systemd node in podman."""

from __future__ import annotations

import json

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._transition.journal import journal, transitions
from ansible_collections.gpusmith.numa_gate.tests.unit import playbook_run

ROLLBACK = "20261201T091000Z"
PLAY = """- hosts: localhost
  gather_facts: false
  tasks:
    - name: Reboot the node after its enable
      ansible.builtin.include_role:
        name: gpusmith.numa_gate.rehearsal
        tasks_from: reboot
"""


def _node(tmp_path, target):
    """A state folder whose last transition is a closed ``target`` (what the transition role leaves)."""
    state_dir = str(tmp_path / "state")
    transitions.open_transition("/", state_dir, target, ROLLBACK)
    path = transitions.journal_path("/", state_dir, ROLLBACK)
    journal.append(path, "decide", "finished", outcome="ok", changed={"target": target}, at="2026-12-01T09:10:00Z")
    journal.append(path, "uncordon", "finished", outcome="changed", at="2026-12-01T09:10:21Z")
    transitions.close("/", state_dir, ROLLBACK)
    (tmp_path / "play.yml").write_text(PLAY)
    return state_dir


def _tasks(result):
    return {task["task"]["name"].split(" : ", 1)[-1]: task["hosts"]["localhost"] for play in result["plays"] for task in play["tasks"]}


def test_a_node_whose_last_transition_is_a_rollback_is_refused_before_anything(tmp_path):
    state_dir = _node(tmp_path, "rollback")
    result = playbook_run.run(tmp_path, tmp_path / "play.yml", *playbook_run.LOCALHOST, "-e", json.dumps(
        {"rehearsal_state_dir": state_dir, "rehearsal_node_name": "n1"}), returncode=2)
    tasks = _tasks(result)
    refused = tasks["Refuse a node whose last transition is not a converged enable"]
    assert refused["msg"] == ("n1's last transition is rollback %s, converged, not a converged enable: the reboot rehearses a node at its "
                              "target (enable.yml first); nothing was rebooted" % ROLLBACK)
    # Nothing after the refusal ran: no configuration read, no lock, no drain, no reboot.
    assert list(tasks)[-1] == "Refuse a node whose last transition is not a converged enable"
    assert sorted(p.name for p in (tmp_path / "state" / "transitions" / ROLLBACK).iterdir()) == ["journal.jsonl"]


def test_check_mode_reboots_nothing(tmp_path):
    state_dir = _node(tmp_path, "enable")
    result = playbook_run.run(tmp_path, tmp_path / "play.yml", *playbook_run.LOCALHOST, "--check", "-e", json.dumps(
        {"rehearsal_state_dir": state_dir, "rehearsal_node_name": "n1"}))
    tasks = _tasks(result)
    assert tasks["Say that check mode reboots nothing"]["msg"] == "check mode - the node is not rebooted and nothing is kept"
    assert tasks["Reboot the node"]["skipped"] is True
    assert sorted(p.name for p in (tmp_path / "state" / "transitions" / ROLLBACK).iterdir()) == ["journal.jsonl"]
