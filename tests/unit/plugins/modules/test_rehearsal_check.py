"""rehearsal_check and rehearsal_info, in-process, on a tmp_path root holding the transitions a rehearsal leaves on a node."""

import json
import os

import pytest

from ansible.module_utils.testing import patch_module_args

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._rehearsal import workloads as rehearsal_workloads
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._transition.journal import journal, transitions
from ansible_collections.gpusmith.numa_gate.plugins.modules import rehearsal_check, rehearsal_info
from ansible_collections.gpusmith.numa_gate.tests.unit.plugins.module_utils._rehearsal.rehearsal_pods import CACHE, NODE, WEB, pod

STATE = "/var/lib/numa-gate"
ENABLE = "20261201T090000Z"
ROLLBACK = "20261201T091000Z"
AGAIN = "20261201T092000Z"
BEFORE = rehearsal_workloads.workloads([pod("web-7c9f5d-q2xkp", "u-web-1", WEB), pod("cache-5b8d4c-w7rtl", "u-cache-1", CACHE)], NODE)
PODRESOURCES = {"reachable": True, "findings": [], "pods": [
    {"name": "web-7c9f5d-bz4kq", "namespace": "default", "cpu_ids": "", "memory": [], "containers": [{"name": "c", "cpu_ids": ""}]},
    {"name": "cache-5b8d4c-pq7rs", "namespace": "default", "cpu_ids": "", "memory": [], "containers": [{"name": "c", "cpu_ids": ""}]}]}


def run(capsys, module, **args):
    with patch_module_args(args):
        with pytest.raises(SystemExit):
            module.main()
    return json.loads(capsys.readouterr().out)


def transition(root, transition_id, target, minute, seconds, close=True, outcome="changed"):
    """What the kubelet_transition role leaves: the decide event with its target, the steps, the uncordon; closed."""
    transitions.open_transition(str(root), STATE, target, transition_id)
    path = transitions.journal_path(str(root), STATE, transition_id)
    journal.append(path, "decide", "finished", outcome="ok", changed={"target": target}, at="2026-12-01T09:%02d:00Z" % minute)
    journal.append(path, "stop", "started", at="2026-12-01T09:%02d:05Z" % minute)
    journal.append(path, "stop", "finished", outcome="changed", at="2026-12-01T09:%02d:06Z" % minute)
    journal.append(path, "uncordon", "finished", outcome=outcome, at="2026-12-01T09:%02d:%06.3fZ" % (minute, seconds))
    if close:
        transitions.close(str(root), STATE, transition_id)


def after(now):
    return dict(rehearsal_workloads.came_back(BEFORE, now, NODE), unowned=[], observed_at="2026-12-01T09:10:30.000000Z", waited_s=6.0, timeout_s=120)


ALL_BACK = [pod("web-7c9f5d-bz4kq", "u-web-3", WEB), pod("cache-5b8d4c-pq7rs", "u-cache-2", CACHE)]


def test_a_rehearsal_kept_on_the_node_and_read_back(capsys, tmp_path):
    transition(tmp_path, ENABLE, "enable", 0, 22.5)
    transition(tmp_path, ROLLBACK, "rollback", 10, 21.6)
    before_check = run(capsys, rehearsal_info, root=str(tmp_path), node=NODE)
    assert (before_check["rollback"]["state"], before_check["rollback"]["rollback"]["transition"]) == ("unchecked", ROLLBACK)

    args = dict(root=str(tmp_path), transition=ROLLBACK, node=NODE, workloads=after(ALL_BACK), pod_resources=PODRESOURCES)
    checked = run(capsys, rehearsal_check, _ansible_check_mode=True, _ansible_diff=True, **args)
    assert checked["changed"] is True and checked["diff"]["before"] == {}
    kept = tmp_path / "var/lib/numa-gate/transitions" / ROLLBACK / "rehearsal.json"
    assert not kept.exists()
    checked = run(capsys, rehearsal_check, **args)
    assert (checked["changed"], checked["path"], checked["check"]["reconciled"]) == (
        True, "/var/lib/numa-gate/transitions/%s/rehearsal.json" % ROLLBACK, True)
    assert json.loads(kept.read_text()) == checked["check"]
    assert oct(os.lstat(kept).st_mode & 0o777) == "0o600"
    assert run(capsys, rehearsal_check, **args)["changed"] is False

    transition(tmp_path, AGAIN, "enable", 20, 19.0)
    found = run(capsys, rehearsal_info, root=str(tmp_path), node=NODE)
    assert found["changed"] is False
    rollback = found["rollback"]
    assert (rollback["state"], rollback["rehearsed"], rollback["transitions"]) == ("rehearsed", True, [ENABLE, ROLLBACK, AGAIN])
    assert [(rollback[key]["transition"], rollback[key]["outcome"], rollback[key]["duration_s"]) for key in ("enable", "rollback", "re_enable")] == [
        (ENABLE, "converged", 22.5), (ROLLBACK, "converged", 21.6), (AGAIN, "converged", 19.0)]
    assert [(w["owner"], w["state"], w["now"]) for w in rollback["check"]["workloads"]] == [
        ("ReplicaSet/default/cache-5b8d4c", "back", ["cache-5b8d4c-pq7rs"]), ("ReplicaSet/default/web-7c9f5d", "back", ["web-7c9f5d-bz4kq"])]
    assert [(t["transition"], t["target"], t["outcome"], t["opened"]) for t in found["transitions"]] == [
        (ENABLE, "enable", "converged", "2026-12-01T09:00:00Z"), (ROLLBACK, "rollback", "converged", "2026-12-01T09:10:00Z"),
        (AGAIN, "enable", "converged", "2026-12-01T09:20:00Z")]


def test_a_workload_that_did_not_come_back_is_kept_and_named(capsys, tmp_path):
    transition(tmp_path, ENABLE, "enable", 0, 22.5)
    transition(tmp_path, ROLLBACK, "rollback", 10, 21.6)
    run(capsys, rehearsal_check, root=str(tmp_path), transition=ROLLBACK, node=NODE, workloads=after(ALL_BACK[:1]), pod_resources=PODRESOURCES)
    rollback = run(capsys, rehearsal_info, root=str(tmp_path), node=NODE)["rollback"]
    assert (rollback["state"], rollback["missing"], rollback["problems"]) == (
        "not reconciled", ["ReplicaSet/default/cache-5b8d4c"],
        ["ReplicaSet/default/cache-5b8d4c: missing, 0 of 1 pods Ready on the node (before: cache-5b8d4c-w7rtl)"])


def test_a_recreated_pod_that_is_ready_but_placed_wrong_or_whose_restart_moved_it_is_not_reconciled(capsys, tmp_path):
    transition(tmp_path, ENABLE, "enable", 0, 22.5)
    transition(tmp_path, ROLLBACK, "rollback", 10, 21.6)
    problem = "default/web-7c9f5d-bz4kq: recheck_cgroup unknown: pod default/web-7c9f5d-bz4kq (uid u-web-3): placement_info found no cgroup for it"
    pods = [{"pod": "default/web-7c9f5d-bz4kq", "owner": "ReplicaSet/default/web-7c9f5d",
             "findings": [{"check": "recheck_cgroup", "container": None, "result": "unknown"}]}]
    placement = {"checked": 1, "problems": [problem], "pods": pods}
    restarts = [{"pod": "default/web-7c9f5d-bz4kq", "container": "c", "restarted": True, "restart_count": 1, "error": None,
                 "changes": ["pod default/web-7c9f5d-bz4kq container c: its exclusive CPUs changed with the restart: 2 before, 3 after"]}]
    checked = run(capsys, rehearsal_check, root=str(tmp_path), transition=ROLLBACK, node=NODE, workloads=after(ALL_BACK), pod_resources=PODRESOURCES,
                  placement=placement, restarts=restarts)
    assert checked["check"]["placement"]["pods"] == [
        {"pod": "default/web-7c9f5d-bz4kq", "owner": "ReplicaSet/default/web-7c9f5d", "checks": [["recheck_cgroup", None, "unknown"]]}]
    rollback = run(capsys, rehearsal_info, root=str(tmp_path), node=NODE)["rollback"]
    assert (rollback["state"], rollback["missing"], rollback["problems"]) == ("not reconciled", [], [
        problem, "after the restart of default/web-7c9f5d-bz4kq's container c: pod default/web-7c9f5d-bz4kq container c: its exclusive CPUs "
        "changed with the restart: 2 before, 3 after"])
    bad = run(capsys, rehearsal_check, root=str(tmp_path), transition=ROLLBACK, node=NODE, workloads=after(ALL_BACK), placement={"pods": []})
    assert bad["msg"] == "placement has no problems: the placement_recheck result has pods, problems"


def test_the_check_goes_only_with_a_closed_rollback_of_this_node(capsys, tmp_path):
    transition(tmp_path, ENABLE, "enable", 0, 22.5)
    transition(tmp_path, ROLLBACK, "rollback", 10, 21.6, close=False, outcome="failed")
    base = dict(root=str(tmp_path), node=NODE, workloads=after(ALL_BACK), pod_resources=PODRESOURCES)
    said = {name: run(capsys, rehearsal_check, transition=name, **base)["msg"] for name in (ENABLE, ROLLBACK, "20261201T000000Z")}
    assert said == {
        ENABLE: "transition %s is an enable, not a rollback: the rehearsal's check goes with the rollback it checked; nothing was kept" % ENABLE,
        ROLLBACK: "rollback %s is still open on this node: finish it (rollback.yml) before its check is kept; nothing was kept" % ROLLBACK,
        "20261201T000000Z": "no transition 20261201T000000Z on this node (/var/lib/numa-gate/transitions/20261201T000000Z); nothing was kept"}
    assert not (tmp_path / "var/lib/numa-gate/transitions" / ROLLBACK / "rehearsal.json").exists()
    shapeless = dict(base, transition=ROLLBACK)
    shapeless["workloads"] = {"workloads": [{"owner": "x"}]}
    bad = run(capsys, rehearsal_check, **shapeless)
    assert bad["msg"] == ("workloads.workloads[0] has no kind: a workload after the rollback has before, expected, kind, name, namespace, now, "
                          "owner, ready, state")
    rollback = run(capsys, rehearsal_info, root=str(tmp_path), node=NODE)["rollback"]
    assert (rollback["state"], rollback["problems"]) == ("not converged", ["rollback %s ended failed-open (failed: uncordon)" % ROLLBACK])


def test_no_transition_at_all_is_not_rehearsed(capsys, tmp_path):
    found = run(capsys, rehearsal_info, root=str(tmp_path), node=NODE)
    assert (found["rollback"]["state"], found["rollback"]["transitions"], found["transitions"]) == ("not rehearsed", [], [])
