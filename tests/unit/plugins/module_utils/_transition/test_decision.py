# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The transition's one decision: converged or not, each reason in its exact words, and the refusal the role stops with.

The inputs have the shapes the role's tasks register (kubelet_render, kubelet_checkpoint, kubelet_baseline, kubelet_verify).
"""

import pytest

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base.errors import NumaGateError
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._transition import decision

DROPIN = "/etc/kubernetes/kubelet.conf.d/50-numa-gate.conf"
CONFIG_DIR = "/etc/kubernetes/kubelet.conf.d"
SAME = {"changed": False, "path": DROPIN}
CLEAN = {"would_refuse": False, "refusals": {"cpu": None, "memory": None}}
READY = {"ready": True, "mismatches": [], "healthz": "ok"}


def baseline(**changes):
    kept = {"intact": True, "problems": [], "open_transition": None, "drift": [],
            "manifest": {"facts": {"flags": {"config": "/var/lib/kubelet/config.yaml", "config_dir": CONFIG_DIR}, "flags_source": "process"}}}
    kept.update(changes)
    return kept


def decide(target="enable", render=None, checkpoints=None, kept=None, now=None, **options):
    options.setdefault("host", "gpu-7")
    options.setdefault("config_dir", CONFIG_DIR)
    return decision.decide(target, SAME if render is None else render, CLEAN if checkpoints is None else checkpoints,
                           baseline() if kept is None else kept, now=now, **options)


def test_a_node_at_its_target_is_converged_and_needs_no_leave():
    assert decide(now=READY) == {"converged": True, "target_in_place": True, "ask_api": True, "reasons": [], "notes": [], "refusal": None}
    assert decide("rollback", now=READY)["converged"] is True


def test_before_the_api_is_asked_the_files_say_whether_to_ask_it():
    assert decide() == {
        "converged": False, "target_in_place": True, "ask_api": True, "reasons": ["the node's readiness and /configz were not read through the API"],
        "notes": [],
        "refusal": "gpu-7: reaching the enable target needs a cordon, a drain and a kubelet restart (the node's readiness and /configz were not read "
                   "through the API), and kubelet_transition_allow_disruption is false; nothing was changed. Set kubelet_transition_allow_disruption=true "
                   "(playbooks/enable.yml and rollback.yml do) to let this run do it."}
    # A skipped kubelet_verify reads the same.
    assert decide(now={"skipped": True, "changed": False})["reasons"] == ["the node's readiness and /configz were not read through the API"]


def test_a_configuration_to_write_is_a_reason_and_the_api_is_not_asked():
    found = decide(render={"changed": True, "path": DROPIN}, now=READY, allow_disruption=True)
    assert found == {"converged": False, "target_in_place": False, "ask_api": False, "reasons": ["the configuration differs (%s)" % DROPIN],
                     "notes": [], "refusal": None}


def test_without_leave_a_needed_transition_is_refused_with_every_reason():
    found = decide(render={"changed": True, "path": DROPIN}, checkpoints={"would_refuse": True, "refusals": {"cpu": "could not restore", "memory": None}},
                   kept=baseline(open_transition={"id": "20261201T090000Z", "target": "enable"}))
    assert found["reasons"] == ["the configuration differs (%s)" % DROPIN, "a checkpoint would stop the kubelet (cpu)",
                                "transition 20261201T090000Z is still open"]
    assert found["refusal"] == (
        "gpu-7: reaching the enable target needs a cordon, a drain and a kubelet restart (the configuration differs (%s); a checkpoint would stop "
        "the kubelet (cpu); transition 20261201T090000Z is still open), and kubelet_transition_allow_disruption is false; nothing was changed. "
        "Set kubelet_transition_allow_disruption=true (playbooks/enable.yml and rollback.yml do) to let this run do it." % DROPIN)
    assert (found["converged"], found["ask_api"], found["target_in_place"]) == (False, False, False)


def test_rollback_drift_is_a_reason_in_the_decision_and_in_the_refusal_alike():
    drift = [{"path": "/var/lib/kubelet/config.yaml", "differs": "sha256 ab now, cd in the baseline"}]
    found = decide("rollback", kept=baseline(drift=drift), now=READY)
    assert found["converged"] is False and found["ask_api"] is False
    assert found["reasons"] == ["the node's files differ from the baseline (/var/lib/kubelet/config.yaml: sha256 ab now, cd in the baseline)"]
    assert found["refusal"].startswith("gpu-7: reaching the rollback target needs a cordon, a drain and a kubelet restart (the node's files differ "
                                       "from the baseline (/var/lib/kubelet/config.yaml: sha256 ab now, cd in the baseline)), and ")
    # Enable is not about the baseline: the same drift leaves an enabled node converged.
    assert decide("enable", kept=baseline(drift=drift), now=READY)["converged"] is True


NOT_READY = {"failed": True, "ready": False, "mismatches": [], "node_state": {"type": "Ready", "status": "False", "reason": "KubeletNotReady"},
             "msg": "verify gpu-7: not Ready and healthy for 0s in a row within 15s; last seen: Ready=False (KubeletNotReady: nvidia driver "
                    "failed) since 2026-12-01T09:14:53Z, healthz ok"}
UNREACHABLE = {"failed": True, "node": "gpu-7",
               "msg": "cannot reach the API server at https://10.0.0.1:6443 (GET /api/v1/nodes/gpu-7): Connection refused (4 attempts within "
                      "the 30s deadline)"}


@pytest.mark.parametrize("target", ["enable", "rollback"])
@pytest.mark.parametrize("allow_disruption", [True, False])
def test_a_node_whose_files_are_at_the_target_is_converged_whatever_its_readiness(target, allow_disruption):
    """A node at its baseline but NotReady for another reason (a GPU driver fault) is never cordoned, drained or restarted (issue 31,
    defect 2): the decision says why it is NotReady, and that the transition did not cause it."""
    found = decide(target, now=NOT_READY, allow_disruption=allow_disruption)
    assert found == {"converged": True, "target_in_place": True, "ask_api": True, "reasons": [], "refusal": None, "notes": [
        "the node is not Ready (verify gpu-7: not Ready and healthy for 0s in a row within 15s; last seen: Ready=False (KubeletNotReady: "
        "nvidia driver failed) since 2026-12-01T09:14:53Z, healthz ok), for a reason the transition did not cause: its files are at the "
        "target, so it is left alone (no cordon, no drain, no kubelet restart)"]}
    assert decide(target, now={"ready": False})["notes"] == [
        "the node is not Ready (the API did not say it was Ready), for a reason the transition did not cause: its files are at the target, "
        "so it is left alone (no cordon, no drain, no kubelet restart)"]


@pytest.mark.parametrize("target", ["enable", "rollback"])
def test_an_api_that_gave_no_answer_about_the_node_decides_nothing(target):
    """A failed API read is "cannot decide", never "not Ready": refused naming the error, even where disruption is allowed."""
    found = decide(target, now=UNREACHABLE, allow_disruption=True)
    assert found == {
        "converged": False, "target_in_place": True, "ask_api": True, "notes": [],
        "reasons": ["the API could not be read (%s)" % UNREACHABLE["msg"]],
        "refusal": "gpu-7: cannot decide whether the node is at its %s target: its files are, but the API gave no answer about the node (%s); "
                   "nothing was changed" % (target, UNREACHABLE["msg"])}
    assert decision.unread({"failed": True}) == "the API gave no answer about the node"
    assert decision.unread(NOT_READY) is None
    assert decision.unread(READY) is None
    # Files that differ need no API to decide: the transition's first API call (the cordon's read) meets the error itself.
    differs = decide(target, render={"changed": True, "path": DROPIN}, now=None, allow_disruption=True)
    assert (differs["ask_api"], differs["refusal"]) == (False, None)


def test_the_api_decides_when_the_files_are_at_the_target():
    shows = decide(now={"ready": True, "mismatches": [{"field": "cpuManagerPolicy", "expected": "static", "actual": "none"}]}, allow_disruption=True)
    assert shows["reasons"] == ["/configz does not show the target (cpuManagerPolicy: expected \"static\", /configz shows \"none\")"]
    assert shows["converged"] is False and shows["target_in_place"] is True and shows["refusal"] is None
    assert decide(now={"ready": True})["reasons"] == ["the API did not say what /configz shows"]


def test_a_baseline_that_does_not_match_its_manifest_is_refused_even_at_the_target():
    kept = baseline(intact=False, problems=["/var/lib/kubelet/config.yaml: its copy files/0 no longer matches the manifest's sha256 ab"])
    assert decide(kept=kept, now=READY, allow_disruption=True)["refusal"] == (
        "gpu-7: the baseline does not match its manifest (/var/lib/kubelet/config.yaml: its copy files/0 no longer matches the manifest's "
        "sha256 ab); nothing was changed")


def test_a_drop_in_the_kubelet_would_not_read_is_refused_for_enable_only():
    kept = baseline(manifest={"facts": {"flags": {"config": "/var/lib/kubelet/config.yaml", "config_dir": None}, "flags_source": "unit"}})
    assert decide(kept=kept, now=READY, allow_disruption=True)["refusal"] == (
        "gpu-7: the kubelet runs with --config-dir=unset (read from unit), so a drop-in in /etc/kubernetes/kubelet.conf.d would never be read; "
        "nothing was changed. Start the kubelet with --config-dir=/etc/kubernetes/kubelet.conf.d, or use kubelet_transition_mode=main.")
    assert decide(kept=kept, now=READY, mode="main")["refusal"] is None
    assert decide("rollback", kept=kept, now=READY)["refusal"] is None


def test_a_node_with_no_kubelet_unit_is_refused_saying_so():
    kept = baseline(manifest={"facts": {"flags": {"config": None, "config_dir": None}, "flags_source": "no kubelet unit found"}})
    assert decide(kept=kept, now=READY, allow_disruption=True)["refusal"] == (
        "gpu-7: no kubelet unit found, so whether a kubelet would read a drop-in in /etc/kubernetes/kubelet.conf.d cannot be told; "
        "nothing was changed. Install and start the kubelet with --config-dir=/etc/kubernetes/kubelet.conf.d, or use "
        "kubelet_transition_mode=main.")


@pytest.mark.parametrize("call, message", [
    (lambda: decide("up"), "target must be one of enable, rollback, not 'up'"),
    (lambda: decide(mode="both"), "mode must be one of dropin, main, not 'both'"),
    (lambda: decide(render={"changed": "yes"}), "render.changed must be true or false, not 'yes'"),
    (lambda: decide(render=["changed"]), "render must be a mapping (the task's registered result), not list"),
    (lambda: decide(checkpoints={"refusals": {}}), "checkpoints.would_refuse must be true or false, not None"),
    (lambda: decide(kept=baseline(open_transition="T1")), "baseline.open_transition must be null or a mapping with an id, not 'T1'"),
    (lambda: decide(kept=baseline(drift=["a"])), "baseline.drift must be a list of {path, differs}, not ['a']"),
    (lambda: decide(now={"ready": True, "mismatches": "none"}), "now.mismatches must be a list, not 'none'"),
    (lambda: decide(allow_disruption="true"), "allow_disruption must be true or false, not 'true'"),
])
def test_bad_input_is_refused_naming_it(call, message):
    with pytest.raises(NumaGateError) as caught:
        call()
    assert str(caught.value) == message
