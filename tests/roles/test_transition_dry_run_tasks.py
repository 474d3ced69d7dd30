# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""roles/kubelet_transition's dry_run.yml, and drain_failed.yml after it refused, through real ansible-playbook against the API
server double (the controller is the node: -c local): a pod its budget keeps refuses before the cordon, naming the pod, the
budget and its disruptions allowed; the API saw no PATCH; the journal records the dry run's failure and the transition ends
(issue 28). A drain that would go through: the dry run's finished event is what the drain's run records before the cordon's.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from ansible_collections.gpusmith.numa_gate.tests.unit import ansible_run
from ansible_collections.gpusmith.numa_gate.tests.roles.test_transition_resume_journal_tasks import role_connection
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._transition.journal import journal, transitions

REPO = ansible_run.REPO
if os.path.join(REPO, "tests", "doubles") not in sys.path:
    sys.path.insert(0, os.path.join(REPO, "tests", "doubles"))

from apiserver import server  # noqa: E402 pylint: disable=wrong-import-position,import-error

T1 = "20261201T090000Z"
PLAY = """- hosts: localhost
  gather_facts: false
{connection}  tasks:
    - name: The dry run, as main.yml runs it with its rescue
      block:
        - name: The dry run step
          ansible.builtin.include_role:
            name: gpusmith.numa_gate.kubelet_transition
            tasks_from: dry_run
            public: true

        - name: What the drain's run would record before its own start
          ansible.builtin.debug:
            msg: "{{ __kubelet_transition_dry_run_event }}"
      rescue:
        - name: The failed drain's tasks
          ansible.builtin.include_role:
            name: gpusmith.numa_gate.kubelet_transition
            tasks_from: drain_failed
"""


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


def opened(double, tmp_path):
    """A transition opened on the node (its decide event), node n1 in the double, and the run's extra vars."""
    double.add_node("n1")
    state_dir = str(tmp_path / "state")
    transitions.open_transition("/", state_dir, "enable", T1)
    journal.append(transitions.journal_path("/", state_dir, T1), "decide", "finished", outcome="ok",
                   changed={"unschedulable_before": False, "cordons": True})
    return state_dir, {
        "kubelet_transition_kubeconfig": double.write_kubeconfig(tmp_path / "kubeconfig"),
        "kubelet_transition_node_name": "n1",
        "kubelet_transition_state_dir": state_dir,
        "kubelet_transition_artifacts_dir": str(tmp_path / "artifacts"),
        "__kubelet_transition_journal": {"transition": {"id": T1}, "resume": {
            "skip_drain": False, "skip_kubelet": False, "cordoned": False, "ended": None, "done": False, "reasons": []}},
    }


def events(state_dir):
    with open(transitions.journal_path("/", state_dir, T1), encoding="utf-8") as stream:
        return [(e["step"], e["event"], e.get("outcome")) for e in map(json.loads, stream)]


def test_a_budget_that_allows_no_disruption_refuses_before_the_cordon(double, tmp_path):
    state_dir, extra = opened(double, tmp_path)
    double.add_pod("ledger-0", "n1", owner_kind="ReplicaSet", owner_name="ledger", labels={"app": "ledger"})
    double.add_pdb("ledger-budget", {"app": "ledger"}, max_unavailable=0)
    rc, results = play(tmp_path, extra)
    assert rc == 2
    refusal = ("the drain of n1 would not go through now: default/ledger-0 cannot leave now: PodDisruptionBudget default/ledger-budget "
               "allows 0 disruptions (Cannot evict pod as it would violate the pod's disruption budget); checked before the cordon by a "
               "server-side dry run; nothing was cordoned or evicted")
    assert results["Check the drain before the cordon (dry-run evictions, pods summed per budget)"]["msg"] == refusal
    assert results["Stop here"]["msg"] == (
        "localhost: check the drain before the cordon (dry-run evictions, pods summed per budget) failed: %s. The kubelet was not touched and "
        "its configuration is unchanged; the node was not cordoned (refused before the cordon)." % refusal)
    assert [(m, p) for m, p in double.requests if m not in ("GET",)] == [("POST", "/api/v1/namespaces/default/pods/ledger-0/eviction")]
    assert double.node("n1")["spec"] == {}
    assert double.pod_names("n1") == ["default/ledger-0"]
    assert results["Record the failed drain"]["skipped"] is True
    assert events(state_dir)[1:] == [("dry_run", "finished", "failed")]
    assert transitions.current("/", state_dir) is None  # closed: the refusal ended it


def test_a_drain_that_would_go_through_hands_its_event_to_the_drain(double, tmp_path):
    state_dir, extra = opened(double, tmp_path)
    double.add_pod("web-1", "n1", owner_kind="ReplicaSet", owner_name="web", labels={"app": "web"})
    rc, results = play(tmp_path, extra)
    assert rc == 0
    assert results["What the drain's run would record before its own start"]["msg"] == [
        {"step": "dry_run", "event": "finished", "outcome": "ok",
         "changed": {"would_evict": ["default/web-1"], "budgets": [], "budget_waits": [], "staying": []}}]
    assert [(m, p) for m, p in double.requests if m not in ("GET",)] == [("POST", "/api/v1/namespaces/default/pods/web-1/eviction")]
    assert double.pod_names("n1") == ["default/web-1"]
    assert events(state_dir) == [("decide", "finished", "ok")]
