# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""kube_node with journal, through the real ``ansible`` (an ad-hoc play of the action) against the API server double:
the step's events land in the node's journal (here the controller is the node: -c local) in the same task, and nothing
is written in check mode."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from ansible_collections.gpusmith.numa_gate.tests.unit import ansible_run
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._transition.journal import transitions

if os.path.join(ansible_run.REPO, "tests", "doubles") not in sys.path:
    sys.path.insert(0, os.path.join(ansible_run.REPO, "tests", "doubles"))

from apiserver import server  # noqa: E402 pylint: disable=wrong-import-position,import-error

T1 = "20261201T090000Z"


@pytest.fixture(name="double")
def fixture_double():
    started = server.ApiServerDouble().start()
    try:
        yield started
    finally:
        started.stop()


def adhoc(args, tmp_path, check=False):
    """``ansible localhost -m kube_node -a <args>`` with the json callback: (rc, the host's result)."""
    argv = [os.path.join(ansible_run.BIN, "ansible"), "localhost", "-i", "localhost,", "-c", "local", "-m", "gpusmith.numa_gate.kube_node",
            "-a", json.dumps(args), "-e", "ansible_python_interpreter=%s" % ansible_run.PYTHON] + (["--check"] if check else [])
    done = subprocess.run(argv, cwd=ansible_run.REPO, env=ansible_run.environment(tmp_path), capture_output=True, text=True, timeout=120, check=False)
    start = done.stdout.index("\n{") + 1 if not done.stdout.startswith("{") else 0
    return done.returncode, json.loads(done.stdout[start:])["plays"][0]["tasks"][0]["hosts"]["localhost"]


def events(state_dir):
    with open(transitions.journal_path("/", state_dir, T1), encoding="utf-8") as stream:
        return [(e["step"], e["event"], e.get("outcome"), e.get("changed")) for e in map(json.loads, stream)]


def test_each_step_records_its_events_on_the_node_in_the_same_task(double, tmp_path):
    double.add_node("n1")
    double.add_pod("web-1", "n1", owner_kind="ReplicaSet", owner_name="web", labels={"app": "web"}, grace=1)
    kubeconfig = double.write_kubeconfig(tmp_path / "kubeconfig")
    state_dir = str(tmp_path / "state")
    transitions.open_transition("/", state_dir, "enable", T1)
    base = {"kubeconfig": kubeconfig, "node": "n1"}
    journal = {"transition": T1, "state_dir": state_dir}
    rc, cordoned = adhoc(dict(base, state="cordoned"), tmp_path)
    assert (rc, cordoned["changed"], cordoned["cordoned"]) == (0, True, True)
    cordon_event = {"step": "cordon", "event": "finished", "outcome": "changed", "changed": {"cordoned": True, "was_unschedulable": False}}
    rc, drained = adhoc(dict(base, state="drained", timeout=20, poll=1, journal=dict(journal, step="drain", events=[cordon_event])), tmp_path)
    assert (rc, drained["changed"], drained["evicted"], drained["journal"]["in_progress"]) == (0, True, ["default/web-1"], "drain")
    rc, uncordoned = adhoc(dict(base, state="uncordoned", journal=dict(journal, step="uncordon")), tmp_path)
    assert (rc, uncordoned["changed"], uncordoned["journal"]["last_finished"]) == (0, True, "uncordon")
    # The uncordon ends the transition: its record comes back in the same task, read after the event (so read as closed,
    # before the pointer is removed).
    record = uncordoned["transition_record"]
    assert (record["transition"], record["node"], record["target"], record["open"]) == (T1, "n1", "enable", False)
    assert [(step["step"], step["outcome"]) for step in record["steps"]] == [("cordon", "changed"), ("drain", None), ("uncordon", "changed")]
    assert "transition_record" not in drained
    assert events(state_dir) == [
        ("cordon", "finished", "changed", {"cordoned": True, "was_unschedulable": False}),
        ("drain", "started", None, None),
        ("uncordon", "finished", "changed", None)]


def test_check_mode_records_nothing_and_a_journal_that_cannot_be_written_fails_the_task(double, tmp_path):
    double.add_node("n1")
    kubeconfig = double.write_kubeconfig(tmp_path / "kubeconfig")
    state_dir = str(tmp_path / "state")
    journal = {"transition": T1, "state_dir": state_dir, "step": "uncordon"}
    assert adhoc({"kubeconfig": kubeconfig, "node": "n1", "state": "cordoned"}, tmp_path)[0] == 0
    rc, checked = adhoc({"kubeconfig": kubeconfig, "node": "n1", "state": "uncordoned", "journal": journal}, tmp_path, check=True)
    assert (rc, checked["changed"], "journal" in checked) == (0, True, False)
    assert not os.path.exists(state_dir)
    # Never opened: the uncordon went through, the task fails saying the journal could not take it, and says it changed the node.
    rc, failed = adhoc({"kubeconfig": kubeconfig, "node": "n1", "state": "uncordoned", "journal": journal}, tmp_path)
    assert (rc, failed["failed"], failed["changed"], failed["uncordoned"]) == (2, True, True, True)
    assert failed["msg"] == ("the uncordon step could not be recorded in transition %s's journal on the node: transition %s was never opened on "
                             "this node (%s/transitions/%s does not exist): open it first (action=open); nothing was recorded"
                             % (T1, T1, state_dir, T1))
    assert not double.node("n1")["spec"].get("unschedulable", False)
    rc, wrong = adhoc({"kubeconfig": kubeconfig, "node": "n1", "state": "cordoned", "journal": dict(journal, step="cordon")}, tmp_path)
    assert (rc, wrong["changed"]) == (2, False)
    assert wrong["msg"] == ("journal goes with state drained or uncordoned, not cordoned: the cordon's finished event is recorded by the next "
                            "task (the drain's events), so that a run killed right after the cordon's PATCH leaves none")
