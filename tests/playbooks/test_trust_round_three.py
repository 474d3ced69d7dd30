# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Issue 29, class 5 (evidence that states its own answer), through the real ``ansible``: rehearsal_info recomputes the
check kept after a rehearsed rollback from its observations and refuses one that only states its answer (a two-key
``rehearsal.json``), one whose statements its observations do not give, and one whose file another user owns or others
may write, naming each; the sha256 (mode, owner, kind) of every file under the root is the same before and after. The
check itself is written by rehearsal_check through ``ansible`` too."""

from __future__ import annotations

import copy
import json
import os
import subprocess

import pytest

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._rehearsal import workloads as rehearsal_workloads
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._transition.journal import journal, transitions
from ansible_collections.gpusmith.numa_gate.tests.unit import ansible_run
from ansible_collections.gpusmith.numa_gate.tests.unit.plugins.module_utils._record import test_verdict as verdict_cases
from ansible_collections.gpusmith.numa_gate.tests.unit.tree_state import snapshot

STATE = "/var/lib/numa-gate"
NODE = "gpu-node-1"
ENABLE, ROLLBACK = "20261201T090000Z", "20261201T091000Z"
KEPT = "var/lib/numa-gate/transitions/%s/rehearsal.json" % ROLLBACK
REFUSED = "the check kept after rollback %s is refused: " % ROLLBACK
OWNER = {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web-7c9f5d", "uid": "rs-web", "controller": True}


def adhoc(tmp_path, module, args):
    name = module if "." in module else "gpusmith.numa_gate." + module
    argv = [os.path.join(ansible_run.BIN, "ansible"), "localhost", "-i", "localhost,", "-c", "local", "-m", name, "-a", json.dumps(args),
            "-e", "ansible_python_interpreter=%s" % ansible_run.PYTHON]
    done = subprocess.run(argv, cwd=ansible_run.REPO, env=ansible_run.environment(tmp_path / "run"), capture_output=True, text=True,
                          timeout=120, check=False)
    return json.loads(done.stdout[done.stdout.index("{"):])["plays"][0]["tasks"][0]["hosts"]["localhost"]


def pod(name, uid):
    return {"metadata": {"name": name, "namespace": "default", "uid": uid, "ownerReferences": [OWNER]},
            "spec": {"nodeName": NODE}, "status": {"phase": "Running", "conditions": [{"type": "Ready", "status": "True"}]}}


def transition(root, transition_id, target, minute):
    transitions.open_transition(str(root), STATE, target, transition_id)
    path = transitions.journal_path(str(root), STATE, transition_id)
    journal.append(path, "decide", "finished", outcome="ok", changed={"target": target}, at="2026-12-01T09:%02d:00Z" % minute)
    journal.append(path, "uncordon", "finished", outcome="changed", at="2026-12-01T09:%02d:20Z" % minute)
    transitions.close(str(root), STATE, transition_id)


@pytest.fixture(name="root")
def fixture_root(tmp_path):
    """A node's state after enable then rollback, the check after the rollback kept by rehearsal_check through ansible."""
    root = tmp_path / "root"
    root.mkdir()
    transition(root, ENABLE, "enable", 0)
    transition(root, ROLLBACK, "rollback", 10)
    before = rehearsal_workloads.workloads([pod("web-7c9f5d-q2xkp", "u-web-1")], NODE)
    observed = dict(rehearsal_workloads.came_back(before, [pod("web-7c9f5d-bz4kq", "u-web-2")], NODE), unowned=[],
                    observed_at="2026-12-01T09:10:30.000000Z", waited_s=6.0, timeout_s=120)
    pod_resources = {"reachable": True, "findings": [], "pods": [{"name": "web-7c9f5d-bz4kq", "namespace": "default", "cpu_ids": "",
                                                                  "memory": [], "containers": []}]}
    kept = adhoc(tmp_path, "rehearsal_check", {"root": str(root), "transition": ROLLBACK, "node": NODE, "workloads": observed,
                                               "pod_resources": pod_resources})
    assert (kept.get("changed"), kept["check"]["reconciled"]) == (True, True), json.dumps(kept)
    return root


def read(tmp_path, root):
    """rehearsal_info's rollback evidence, and that it changed no file."""
    before = snapshot(root)
    result = adhoc(tmp_path, "rehearsal_info", {"root": str(root), "node": NODE})
    assert snapshot(root) == before
    assert (result.get("failed"), result["changed"]) == (None, False), json.dumps(result)
    return result["rollback"]


def refused(tmp_path, root):
    found = read(tmp_path, root)
    assert (found["state"], found["rehearsed"], found["check"], found["missing"]) == ("refused", False, None, [])
    return found["problems"]


def rewrite(root, document):
    path = root / KEPT
    mode = os.stat(str(path)).st_mode & 0o777
    path.write_text(json.dumps(document), encoding="utf-8")
    os.chmod(str(path), mode)


def test_the_check_kept_by_rehearsal_check_is_rehearsed(tmp_path, root):
    found = read(tmp_path, root)
    assert (found["state"], found["rehearsed"], found["problems"], found["check"]["workloads"]) == ("rehearsed", True, [], [
        {"owner": "ReplicaSet/default/web-7c9f5d", "state": "back", "expected": 1, "ready": 1, "before": ["web-7c9f5d-q2xkp"],
         "now": ["web-7c9f5d-bz4kq"]}])


def test_a_two_key_rehearsal_json_is_refused_naming_what_it_lacks(tmp_path, root):
    rewrite(root, {"rollback": ROLLBACK, "reconciled": True})
    assert refused(tmp_path, root) == [
        REFUSED + "its observations are missing: observed_at, workloads, pod_resources, came_back, missing (a check's states are "
        "recomputed from what it observed, never taken as stated)"]


def test_a_check_whose_observations_give_another_state_is_refused(tmp_path, root):
    document = json.loads((root / KEPT).read_text(encoding="utf-8"))
    document["workloads"][0].update(ready=0, now=[])
    rewrite(root, document)
    assert refused(tmp_path, root) == [
        REFUSED + "workloads[0] ('ReplicaSet/default/web-7c9f5d') states 'back', but its observations (0 of 1 pods Ready, 0 on the node) "
        "give missing"]
    document["workloads"][0].update(ready=3, now=["web-7c9f5d-bz4kq"])
    document["observed_at"] = "2026-12-01T08:00:00Z"
    rewrite(root, document)
    assert refused(tmp_path, root) == [REFUSED + "; ".join([
        "workloads[0] ('ReplicaSet/default/web-7c9f5d') counts 3 pods Ready but names 1 on the node after the rollback (web-7c9f5d-bz4kq): "
        "it cannot count more pods than it saw",
        "observed_at 2026-12-01T08:00:00Z is before rollback %s closed (2026-12-01T09:10:20Z): a check after the rollback cannot look "
        "before it ended" % ROLLBACK])]


def test_a_world_writable_check_is_refused_naming_its_mode(tmp_path, root):
    os.chmod(str(root / KEPT), 0o666)
    assert refused(tmp_path, root) == [
        REFUSED + "state file %s/transitions/%s/rehearsal.json is writable by group and others (mode 0666)" % (STATE, ROLLBACK)]


@pytest.mark.skipif(os.geteuid() != 0, reason="giving a file to another user needs root")
def test_a_check_owned_by_another_user_is_refused_naming_its_owner(tmp_path, root):
    os.chown(str(root / KEPT), 65534, 65534)
    assert refused(tmp_path, root) == [
        REFUSED + "state file %s/transitions/%s/rehearsal.json is owned by uid 65534, not by uid 0 that runs this module" % (STATE, ROLLBACK)]


def verdict(tmp_path, evidence):
    """The acceptance_verdict filter through the real ``ansible`` on ``evidence`` (written to a file, read with the file lookup)."""
    path = tmp_path / "evidence.json"
    path.write_text(json.dumps(evidence), encoding="utf-8")
    return adhoc(tmp_path, "ansible.builtin.debug", {"msg": "{{ lookup('ansible.builtin.file', '%s') | from_json "
                                                            "| gpusmith.numa_gate.acceptance_verdict }}" % path})


FILTER = "Task failed: Finalization of task args for 'ansible.builtin.debug' failed: Error while resolving value for 'msg': The filter plugin " \
         "'gpusmith.numa_gate.acceptance_verdict' failed: acceptance_verdict: "


def test_a_held_comparison_passed_as_a_value_adopts_only_from_its_own_windows(tmp_path):
    evidence = verdict_cases.evidence(tmp_path)
    measured = verdict(tmp_path, evidence)
    assert [r for r in measured["msg"]["reasons"] if r["criterion"] == "service"] == [{"criterion": "service", "effect": "adopt", "message": (
        "service objectives held (3 baseline and 3 canary repetitions): p95 ttft <= 0.5 s: canary held: worst repetition 0.496032 "
        "(median 0.477273)")}]
    stated = dict(evidence, service_objectives={key: evidence["service_objectives"][key] for key in ("state", "reasons", "repetitions")})
    assert verdict(tmp_path, stated)["msg"] == FILTER + (
        "service_objectives states held, but carries no runs or objectives (observations.runs, observations.objectives): a comparison's "
        "state is recomputed from its windows and objectives, never taken as stated")
    tampered = copy.deepcopy(evidence)
    tampered["service_objectives"]["observations"]["objectives"][0]["at_most"] = 0.01
    assert verdict(tmp_path, tampered)["msg"] == FILTER + (
        "service_objectives states held (p95 ttft <= 0.5 s: canary held: worst repetition 0.496032 (median 0.477273)), but its windows "
        "and objectives give not held (p95 ttft <= 0.01 s: canary did not hold: worst repetition 0.496032 (median 0.477273)): a "
        "comparison's state is recomputed from its observations")


def test_a_stated_rehearsal_is_refused_by_the_verdict(tmp_path):
    evidence = verdict_cases.evidence(tmp_path)
    evidence["rollback"]["check"] = {"reconciled": True}
    assert verdict(tmp_path, evidence)["msg"] == FILTER + (
        "rollback states rehearsed, but its check is not believed: its observations are missing: observed_at, workloads, pod_resources, "
        "came_back, missing (a check's states are recomputed from what it observed, never taken as stated): a rehearsal's state is "
        "recomputed from its observations, not stated")
