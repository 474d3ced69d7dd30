# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The kube_node action plugin in-process (through the real ``ansible``: tests/playbooks/test_kube_node_adhoc.py)."""

from __future__ import annotations

import json
import os
import subprocess

import pytest

from ansible.errors import AnsibleActionFail
from ansible.utils.display import Display

from ansible_collections.gpusmith.numa_gate.tests.unit import ansible_run
from ansible_collections.gpusmith.numa_gate.tests.unit.plugins.action import in_process
from ansible_collections.gpusmith.numa_gate.plugins.action import kube_node as action_file
from ansible_collections.gpusmith.numa_gate.plugins.modules import kube_node as module_file


@pytest.fixture(name="double")
def fixture_double():
    with in_process.api_double() as started:
        yield started


@pytest.fixture(name="kubeconfig")
def fixture_kubeconfig(double, tmp_path):
    return double.write_kubeconfig(tmp_path / "kubeconfig")


def run_in_process(args, check_mode=False):
    return in_process.run(action_file, args, check_mode)


def test_check_mode_in_process_changes_nothing(double, kubeconfig, monkeypatch):
    lines = []
    monkeypatch.setattr(Display, "display", lambda self, msg, *a, **k: lines.append(msg))
    double.add_node("n1")
    double.add_pod("web-1", "n1", owner_kind="ReplicaSet", owner_name="web", labels={"app": "web"})
    result = run_in_process({"kubeconfig": kubeconfig, "node": "n1", "state": "drained"}, check_mode=True)
    assert result["changed"] is True
    assert (result["cordoned"], result["evicted"], result["waited_s"]) == (True, ["default/web-1"], 0.0)
    assert [m for m, _p in double.requests if m != "GET"] == []
    assert lines == []


def test_cordon_and_uncordon_report_what_they_did(double, kubeconfig):
    double.add_node("n1")
    base = {"kubeconfig": kubeconfig, "node": "n1"}
    assert run_in_process(dict(base, state="cordoned")) == {"changed": True, "node": "n1", "state": "cordoned", "was_unschedulable": False,
                                                            "cordoned": True}
    assert run_in_process(dict(base, state="cordoned"))["changed"] is False
    drained = run_in_process(dict(base, state="drained"))
    assert (drained["changed"], drained["cordoned"], drained["was_unschedulable"]) == (False, False, True)
    assert run_in_process(dict(base, state="uncordoned")) == {"changed": True, "node": "n1", "state": "uncordoned", "was_unschedulable": True,
                                                              "uncordoned": True}
    assert run_in_process(dict(base, state="uncordoned")) == {"changed": False, "node": "n1", "state": "uncordoned", "was_unschedulable": False,
                                                              "uncordoned": False}
    assert [m for m, _p in double.requests if m != "GET"] == ["PATCH", "PATCH"]


def test_refusals_and_bad_values_are_failed_results(double, kubeconfig, tmp_path):
    double.add_node("n1")
    double.add_pod("lonely", "n1")
    refused = run_in_process({"kubeconfig": kubeconfig, "node": "n1", "state": "drained"})
    assert refused["failed"] is True
    assert refused["msg"] == ("drain n1 refused: cannot delete Pods that declare no controller (use force=true to override): default/lonely; "
                              "nothing was evicted; node n1 stays cordoned (this task cordoned it)")
    assert (refused["changed"], refused["cordoned"]) == (True, True)
    bad_poll = run_in_process({"kubeconfig": kubeconfig, "node": "n1", "state": "drained", "poll": 0})
    assert (bad_poll["failed"], bad_poll["changed"], bad_poll["msg"]) == (True, False, "poll must be more than 0 seconds, not 0.0")
    missing = run_in_process({"kubeconfig": str(tmp_path / "none"), "node": "n1", "state": "cordoned"})
    assert missing["msg"] == "cannot load the kubeconfig %s (context (current)): kubeconfig %s: No such file or directory" % (
        tmp_path / "none", tmp_path / "none")
    with pytest.raises(AnsibleActionFail) as caught:
        run_in_process({"kubeconfig": kubeconfig, "node": "n1", "state": "gone"})
    assert "value of state must be one of: cordoned, drained, uncordoned, drainable, got: gone" in str(caught.value)


def test_the_module_file_documents_the_action_and_refuses_to_run_on_a_host(tmp_path):
    assert module_file.ARGUMENT_SPEC == action_file.ARGUMENT_SPEC
    args = tmp_path / "args.json"
    args.write_text(json.dumps({"ANSIBLE_MODULE_ARGS": {"node": "n1", "state": "drained"}}))
    # As AnsiballZ would, the module file finds the collection's module_utils (connection_spec) on its path.
    env = dict(os.environ, PYTHONPATH=ansible_run.COLLECTIONS)
    done = subprocess.run([ansible_run.PYTHON, module_file.__file__, str(args)], capture_output=True, text=True, timeout=60, check=False, env=env)
    answer = json.loads(done.stdout)
    assert answer["failed"] is True
    assert answer["msg"] == ("gpusmith.numa_gate.kube_node runs as an action plugin on the controller; "
                             "this module file only holds its documentation")
