# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""roles/kubelet_transition's drain.yml and verify.yml on a resumed transition, through real ansible-playbook against the API
server double (the controller is the node: -c local): what the journal holds when the verification fails, and what the stop
would record after a drain the journal said was done.

The two defects these pin (found by review): a resumed run that does not restart the kubelet carried the drain's ``finished``
event in the verification's node run, after the wait on the controller, so a failed wait lost it; and a resumed run that
skips the drain recorded the cordon's ``finished`` a second time, saying the node was unschedulable before the transition.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
import yaml

from ansible_collections.gpusmith.numa_gate.tests.unit import ansible_run
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._transition.journal import journal, transitions

REPO = ansible_run.REPO
if os.path.join(REPO, "tests", "doubles") not in sys.path:
    sys.path.insert(0, os.path.join(REPO, "tests", "doubles"))

from apiserver import server  # noqa: E402 pylint: disable=wrong-import-position,import-error

T1 = "20261201T090000Z"
PLAY = """- hosts: localhost
  gather_facts: false
{connection}  tasks:
    - name: The drain step
      ansible.builtin.include_role:
        name: gpusmith.numa_gate.kubelet_transition
        tasks_from: drain
        public: true

    - name: What the stop's run would record first
      ansible.builtin.debug:
        msg: "{{ __kubelet_transition_journal_of | combine({'step': 'stop', 'events': __kubelet_transition_drained}) }}"
      register: stop_journal

    - name: The verification step
      ansible.builtin.include_role:
        name: gpusmith.numa_gate.kubelet_transition
        tasks_from: verify
      when: run_verify | default(false) | bool
"""


def role_connection(role):
    """The module_defaults the role's tasks/main.yml sets around its tasks (its API connection), as a play's keyword: a task
    file run alone (tasks_from) is an internal step of the role and gets its connection from there."""
    with open(os.path.join(ansible_run.REPO, "roles", role, "tasks", "main.yml"), encoding="utf-8") as stream:
        return "  module_defaults: %s\n" % json.dumps(yaml.safe_load(stream)[0]["module_defaults"])


@pytest.fixture(name="double")
def fixture_double():
    started = server.ApiServerDouble().start()
    try:
        yield started
    finally:
        started.stop()


def play(tmp_path, extra):
    """Run PLAY with ``extra`` as extra vars: (rc, {task name: the host's result})."""
    playbook = tmp_path / "play.yml"
    playbook.write_text(PLAY.replace("{connection}", role_connection("kubelet_transition")))
    variables = tmp_path / "vars.json"
    variables.write_text(json.dumps(extra))
    argv = [os.path.join(ansible_run.BIN, "ansible-playbook"), "-i", "localhost,", "-c", "local", str(playbook), "-e", "@%s" % variables,
            "-e", "ansible_python_interpreter=%s" % ansible_run.PYTHON]
    done = subprocess.run(argv, cwd=ansible_run.REPO, env=ansible_run.environment(tmp_path), capture_output=True, text=True, timeout=300,
                          check=False)
    report = json.loads(done.stdout[done.stdout.index("{"):])
    results = {}
    for task in report["plays"][0]["tasks"]:
        results[task["task"]["name"].split(" : ")[-1]] = task["hosts"]["localhost"]
    return done.returncode, results


def events(state_dir):
    with open(transitions.journal_path("/", state_dir, T1), encoding="utf-8") as stream:
        return [(e["step"], e["event"], e.get("outcome"), e.get("changed")) for e in map(json.loads, stream)]


def resumed(double, tmp_path, skip_drain, skip_kubelet, unschedulable):
    """A transition opened on the node (its decide event only), the node in the double, and the extra vars of a resumed run."""
    double.add_node("n1", unschedulable=unschedulable)
    double.add_pod("web-1", "n1", owner_kind="ReplicaSet", owner_name="web", labels={"app": "web"}, grace=1)
    state_dir = str(tmp_path / "state")
    transitions.open_transition("/", state_dir, "enable", T1)
    journal.append(transitions.journal_path("/", state_dir, T1), "decide", "finished", outcome="ok",
                   changed={"unschedulable_before": False, "cordons": True})
    return state_dir, {
        "kubelet_transition_kubeconfig": double.write_kubeconfig(tmp_path / "kubeconfig"),
        "kubelet_transition_node_name": "n1",
        "kubelet_transition_state_dir": state_dir,
        "kubelet_transition_drain_timeout": 20,
        "kubelet_transition_drain_poll": 1,
        "kubelet_transition_verify_timeout": 1,
        "kubelet_transition_stable_s": 0,
        "kubelet_transition_settings": {"cpuManagerPolicy": "static"},
        "__kubelet_transition_journal": {"transition": {"id": T1}, "resume": {
            "skip_drain": skip_drain, "skip_kubelet": skip_kubelet, "cordoned": True, "ended": None, "done": False, "reasons": []}},
        # This run's cordon found the node cordoned (the transition's own cordon, from the killed run).
        "__kubelet_transition_cordon": {"changed": False, "cordoned": True, "was_unschedulable": True},
    }


def test_a_resumed_run_whose_verification_fails_keeps_the_drain_end(double, tmp_path):
    # The journal said the kubelet was started on the target, and the node was uncordoned since: drained again, not restarted.
    state_dir, extra = resumed(double, tmp_path, skip_drain=False, skip_kubelet=True, unschedulable=False)
    rc, results = play(tmp_path, dict(extra, run_verify=True))
    assert rc == 2
    assert results["Drain the node"]["evicted"] == ["default/web-1"]
    assert results["Wait for the node to be Ready with the target configuration"]["failed"] is True
    assert "Confirm the kubelet would start over the checkpoints it wrote" not in results
    assert events(state_dir) == [
        ("decide", "finished", "ok", {"unschedulable_before": False, "cordons": True}),
        ("cordon", "finished", "ok", {"cordoned": True, "was_unschedulable": True}),
        ("drain", "started", None, None),
        ("drain", "finished", "changed", {"evicted": ["default/web-1"]})]
    # The stop is not run on this path, and would carry nothing: the drain's end is recorded once.
    assert results["What the stop's run would record first"]["msg"]["events"] == []


def test_a_resume_that_skips_the_drain_records_no_second_cordon(double, tmp_path):
    # The journal said the drain finished and the node is still cordoned: not drained again; the kubelet is restarted.
    state_dir, extra = resumed(double, tmp_path, skip_drain=True, skip_kubelet=False, unschedulable=True)
    rc, results = play(tmp_path, extra)
    assert rc == 0
    assert results["Drain the node"]["skipped"] is True
    assert results["What the stop's run would record first"]["msg"] == {"transition": T1, "state_dir": state_dir, "step": "stop", "events": []}
    assert results["Record the drain's end (the kubelet is not restarted, so no node-side step carries it)"]["skipped"] is True
    assert events(state_dir) == [("decide", "finished", "ok", {"unschedulable_before": False, "cordons": True})]


def test_a_first_run_hands_the_drain_end_to_the_stop(double, tmp_path):
    state_dir, extra = resumed(double, tmp_path, skip_drain=False, skip_kubelet=False, unschedulable=False)
    extra["__kubelet_transition_cordon"] = {"changed": True, "cordoned": True, "was_unschedulable": False}
    rc, results = play(tmp_path, extra)
    assert rc == 0
    assert results["What the stop's run would record first"]["msg"]["events"] == [
        {"step": "drain", "event": "finished", "outcome": "changed", "changed": {"evicted": ["default/web-1"]}}]
    assert results["Record the drain's end (the kubelet is not restarted, so no node-side step carries it)"]["skipped"] is True
    assert events(state_dir) == [
        ("decide", "finished", "ok", {"unschedulable_before": False, "cordons": True}),
        ("cordon", "finished", "changed", {"cordoned": True, "was_unschedulable": False}),
        ("drain", "started", None, None)]
