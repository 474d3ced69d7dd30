# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""kubelet_service, in-process: stop and confirm, start, check mode, its own journal events, and systemctl's failures named.

systemctl is answered by a table of the unit's ActiveState (this machine has no kubelet unit): ``show`` prints it,
``stop`` makes it inactive (or leaves it as a unit that will not stop would), ``start`` makes it active.
"""

import json
import os

import pytest

from ansible.module_utils.testing import patch_module_args

from ansible_collections.gpusmith.numa_gate.plugins.modules import kubelet_service
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._transition.journal import transitions

T1 = "20261201T090000Z"


def run(capsys, **args):
    with patch_module_args(args):
        with pytest.raises(SystemExit):
            kubelet_service.main()
    return json.loads(capsys.readouterr().out)


@pytest.fixture(name="unit")
def fixture_unit(monkeypatch):
    """The kubelet unit's ActiveState and every systemctl argv run."""
    state = {"active": "active", "stays": None, "calls": [], "fail": None, "load": "loaded"}

    def run_command(self, argv):
        assert argv[-2] == "--"
        state["calls"].append(argv[1:])
        verb = argv[1]
        if state["fail"] == verb:
            return 5, "", "Failed to %s kubelet.service: Unit kubelet.service not found.\n" % verb
        if verb == "show":
            return 0, "LoadState=%s\nActiveState=%s\n" % (state["load"], state["active"] if state["load"] == "loaded" else "inactive"), ""
        if verb == "stop":
            state["active"] = state["stays"] or "inactive"
        elif verb == "start":
            state["active"] = "active"
        return 0, "", ""
    monkeypatch.setattr(kubelet_service.service.TimedRunner, "run", run_command)
    monkeypatch.setattr("ansible.module_utils.basic.AnsibleModule.get_bin_path", lambda self, name, **kw: "/usr/bin/" + name)
    return state


@pytest.fixture(name="opened")
def fixture_opened(tmp_path):
    state_dir = str(tmp_path / "state")
    transitions.open_transition("/", state_dir, "enable", T1)
    return state_dir, transitions.journal_path("/", state_dir, T1)


def events(path):
    with open(path, encoding="utf-8") as stream:
        return [(entry["step"], entry["event"], entry.get("outcome")) for entry in map(json.loads, stream)]


def test_stop_confirms_and_journals_around_it(capsys, unit, opened):
    state_dir, path = opened
    result = run(capsys, state="stopped", journal={"transition": T1, "step": "stop", "state_dir": state_dir})
    assert (result["changed"], result["before"], result["after"]) == (True, "active", "inactive")
    assert unit["calls"] == [["show", "--property", "LoadState,ActiveState", "--", "kubelet"], ["stop", "--", "kubelet"],
                             ["show", "--property", "LoadState,ActiveState", "--", "kubelet"]]
    assert events(path) == [("stop", "started", None), ("stop", "finished", "changed")]
    assert [entry["event"] for entry in result["journal"]["events"]] == ["started", "finished"]
    # Again: already down, nothing run, the step still recorded (ok).
    again = run(capsys, state="stopped", journal={"transition": T1, "step": "stop", "state_dir": state_dir})
    assert (again["changed"], again["before"]) == (False, "inactive")
    assert events(path)[2:] == [("stop", "started", None), ("stop", "finished", "ok")]


def test_start_and_check_mode(capsys, unit, opened):
    state_dir, path = opened
    unit["active"] = "failed"
    checked = run(capsys, state="started", _ansible_check_mode=True, _ansible_diff=True,
                  journal={"transition": T1, "step": "start", "state_dir": state_dir})
    assert (checked["changed"], checked["before"], checked["after"]) == (True, "failed", "active")
    assert checked["diff"] == {"before": "kubelet: failed\n", "after": "kubelet: active\n"}
    assert unit["calls"] == [["show", "--property", "LoadState,ActiveState", "--", "kubelet"]] and not os.path.exists(path)
    started = run(capsys, state="started", journal={"transition": T1, "step": "start", "state_dir": state_dir})
    assert (started["changed"], started["after"]) == (True, "active")
    assert events(path) == [("start", "started", None), ("start", "finished", "changed")]
    # The start rate limit a refusing kubelet's Restart= loop hit is reset before the start.
    assert unit["calls"][-3:] == [["reset-failed", "--", "kubelet"], ["start", "--", "kubelet"],
                                  ["show", "--property", "LoadState,ActiveState", "--", "kubelet"]]


def test_a_unit_that_does_not_stop_fails_the_step_with_no_finished_event(capsys, unit, opened):
    state_dir, path = opened
    unit["stays"] = "deactivating"
    result = run(capsys, state="stopped", journal={"transition": T1, "step": "stop", "state_dir": state_dir})
    assert result["failed"] is True
    assert result["msg"] == "the kubelet service is deactivating after systemctl stop, not inactive or failed"
    assert events(path) == [("stop", "started", None)]


def test_systemctl_failures_are_named(capsys, unit):
    unit["fail"] = "show"
    result = run(capsys, state="stopped", service="kubelet")
    assert result["msg"] == "systemctl show kubelet failed (rc 5): Failed to show kubelet.service: Unit kubelet.service not found."
    unit["fail"], unit["active"] = "start", "inactive"
    assert run(capsys, state="started")["msg"] == "systemctl start kubelet failed (rc 5): Failed to start kubelet.service: Unit kubelet.service not found."
    unit["fail"] = "reset-failed"
    assert run(capsys, state="started")["msg"] == (
        "systemctl reset-failed kubelet failed (rc 5): Failed to reset-failed kubelet.service: Unit kubelet.service not found.")


def test_a_transition_never_opened_is_refused_before_systemctl_runs(capsys, unit, tmp_path):
    state_dir = str(tmp_path / "state")
    result = run(capsys, state="stopped", journal={"transition": T1, "step": "stop", "state_dir": state_dir})
    assert result["msg"] == ("transition %s was never opened on this node (%s/transitions/%s does not exist): open it first "
                             "(transition_journal action=open); nothing was changed" % (T1, state_dir, T1))
    assert unit["calls"] == []


def test_a_unit_systemd_does_not_know_is_refused_not_taken_for_stopped(capsys, unit, opened):
    state_dir, path = opened
    unit["load"] = "not-found"
    result = run(capsys, state="stopped", journal={"transition": T1, "step": "stop", "state_dir": state_dir})
    assert result["failed"] is True
    assert result["msg"] == "the kubelet service is not a unit systemd knows (LoadState=not-found); nothing was changed"
    assert unit["calls"] == [["show", "--property", "LoadState,ActiveState", "--", "kubelet"]]
    assert not os.path.exists(path) or events(path) == []


RULE = "give one unit name, such as kubelet or kubelet.service; nothing was changed"


@pytest.mark.parametrize("value, message", [
    ("*", "service '*' is a unit pattern (it has '*'): systemctl would stop or start every unit it matches; " + RULE),
    ("kube?et", "service 'kube?et' is a unit pattern (it has '?'): systemctl would stop or start every unit it matches; " + RULE),
    ("kubelet[12]", "service 'kubelet[12]' is a unit pattern (it has '['): systemctl would stop or start every unit it matches; " + RULE),
    ("-H", "service '-H' starts with '-': systemctl would take it for an option; " + RULE),
    ("--host=root@10.0.0.1", "service '--host=root@10.0.0.1' starts with '-': systemctl would take it for an option; " + RULE),
    ("kubelet service", "service 'kubelet service' has ' ' at offset 7: a unit name has only ASCII letters, digits, ':', '-', '_', '.', "
                        "'\\' and one '@' before an instance (systemd's unit name rules); " + RULE),
    ("kubelet\nsshd", "service 'kubelet\\nsshd' has '\\n' at offset 7: a unit name has only ASCII letters, digits, ':', '-', '_', '.', "
                      "'\\' and one '@' before an instance (systemd's unit name rules); " + RULE),
    ("kubelet/../sshd", "service 'kubelet/../sshd' has '/' at offset 7: a unit name has only ASCII letters, digits, ':', '-', '_', '.', "
                        "'\\' and one '@' before an instance (systemd's unit name rules); " + RULE),
    ("kübelet", "service 'kübelet' has 'ü' at offset 1: a unit name has only ASCII letters, digits, ':', '-', '_', '.', "
                "'\\' and one '@' before an instance (systemd's unit name rules); " + RULE),
    ("multi-user.target", "service 'multi-user.target' is a .target unit, not a service: the kubelet runs as a service unit; " + RULE),
    ("k" * 248, "service %r... is 256 characters long as ....service, over systemd's limit of 255 for a unit name; %s" % ("k" * 64, RULE)),
    (".service", "service '.service' has no name before its suffix: " + RULE),
    ("@x.service", "service '@x.service' has no name before its '@': " + RULE),
    ("kubelet@.service", "service 'kubelet@.service' is a template (nothing between '@' and the suffix): a template is not a unit that "
                         "runs; give an instance such as kubelet@1.service; nothing was changed"),
    ("", "service must not be empty (an empty value is not a default): " + RULE),
])
def test_a_unit_name_that_is_not_one_service_is_refused_before_systemctl_runs(capsys, unit, value, message):
    result = run(capsys, state="stopped", service=value)
    assert (result["failed"], result["msg"]) == (True, message)
    assert unit["calls"] == []


@pytest.mark.parametrize("value", ["kubelet", "kubelet.service", "k" * 247, "kubelet@gpu-0.service", "kubelet@a@b", "snap.kubelet.daemon",
                                   "kubelet\\x2dgpu.service", "node:kubelet_1"])
def test_valid_unit_names_pass_after_double_dash(capsys, unit, value):
    result = run(capsys, state="stopped", service=value)
    assert result["changed"] is True
    assert unit["calls"][1] == ["stop", "--", value]


@pytest.mark.parametrize("timeout", [0, -1, float("nan"), float("inf")])
def test_a_timeout_that_is_no_deadline_is_refused(capsys, unit, timeout):
    result = run(capsys, state="stopped", timeout=timeout)
    assert result["msg"] == "timeout must be a finite number of seconds above 0, not %r" % (float(timeout),)
    assert unit["calls"] == []
