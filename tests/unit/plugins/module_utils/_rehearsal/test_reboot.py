"""The rehearsed reboot's document: its state from what it observed, a kept one re-checked, and folded into the rollback evidence."""

import copy
import datetime

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._rehearsal import reboot, workloads as rehearsal_workloads
from ansible_collections.gpusmith.numa_gate.tests.unit.plugins.module_utils._rehearsal import rehearsal_cases
from ansible_collections.gpusmith.numa_gate.tests.unit.plugins.module_utils._rehearsal.rehearsal_pods import CACHE, NODE, WEB, pod

ENABLE = rehearsal_cases.ENABLE_ID
NOW = datetime.datetime(2026, 12, 1, 9, 30, tzinfo=datetime.timezone.utc)
AT = "2026-12-01T09:05:00.000000Z"
MEMORY = "[memorymanager] the expected machine state is different from the real one"
BEFORE = rehearsal_workloads.workloads([pod("web-7c9f5d-q2xkp", "u-web-1", WEB), pod("cache-5b8d4c-w7rtl", "u-cache-1", CACHE)], NODE)
BACK = [pod("web-7c9f5d-bz4kq", "u-web-3", WEB), pod("cache-5b8d4c-pq7rs", "u-cache-2", CACHE)]


def observed(**changes):
    """What the reboot entry point registers when the node came back whole: rebooted, nothing refused, Ready, both workloads back."""
    found = {"reboot": {"rebooted": True, "elapsed": 41, "changed": True}, "refusals": {"cpu": None, "memory": None}, "recovery": None,
             "verify": {"ready": True, "mismatches": [], "msg": None},
             "workloads": rehearsal_workloads.came_back(BEFORE, BACK, NODE)}
    found.update(changes)
    return found


def test_a_node_that_came_back_whole():
    document = reboot.check(ENABLE, NODE, observed(), AT)
    assert (document["state"], document["problems"], document["enable"], document["reboot"]) == (
        "came back", [], ENABLE, {"rebooted": True, "elapsed_s": 41, "error": None})
    assert [(w["owner"], w["state"], w["before"], w["now"]) for w in document["workloads"]] == [
        ("ReplicaSet/default/cache-5b8d4c", "back", ["cache-5b8d4c-w7rtl"], ["cache-5b8d4c-pq7rs"]),
        ("ReplicaSet/default/web-7c9f5d", "back", ["web-7c9f5d-q2xkp"], ["web-7c9f5d-bz4kq"])]
    assert reboot.recheck(document, rehearsal_cases.TRANSITIONS[0], NOW) == []


def test_the_memory_manager_refusal_recovered_by_removing_its_state():
    document = reboot.check(ENABLE, NODE, observed(refusals={"cpu": None, "memory": MEMORY},
                                                   recovery={"removed": ["/var/lib/kubelet/memory_manager_state"], "changed": True}), AT)
    assert (document["state"], document["problems"], document["recovery"]) == (
        "recovered", [], {"removed": ["/var/lib/kubelet/memory_manager_state"], "error": None})
    folded = reboot.fold(rehearsal_cases.rehearsed(), document, now=NOW)
    assert (folded["state"], folded["rehearsed"], folded["problems"], folded["reboot"]["state"]) == ("rehearsed", True, [], "recovered")
    assert folded["notes"] == ["after the reboot the kubelet refused memory: %s; the recovery removed /var/lib/kubelet/memory_manager_state "
                               "and it came back" % MEMORY]


def test_each_way_of_not_coming_back_is_named():
    cases = {
        "refused, no recovery": (observed(refusals={"cpu": None, "memory": MEMORY}),
                                 ["after the boot the kubelet refused memory: %s, and no recovery ran" % MEMORY]),
        "not read": (observed(refusals=None),
                     ["the kubelet's checkpoints were not read after the boot: whether the kubelet refuses them is unknown"]),
        "recovery failed": (observed(refusals={"memory": MEMORY}, recovery={"failed": True, "msg": "the kubelet is running"}),
                            ["the recovery failed: the kubelet is running"]),
        "nothing removed": (observed(refusals={"memory": MEMORY}, recovery={"removed": []}),
                            ["the recovery removed no file, and the kubelet refused memory"]),
        "other policies": (observed(verify={"ready": True, "mismatches": [{"key": "cpuManagerPolicy", "expected": "static", "actual": "none"}],
                                            "msg": "verify gpu-1: settings differ"}),
                           ["the kubelet did not come back Ready with the policies it had: verify gpu-1: settings differ; mismatches "
                            "[{'actual': 'none', 'expected': 'static', 'key': 'cpuManagerPolicy'}]"]),
        "cache missing": (observed(workloads=rehearsal_workloads.came_back(BEFORE, BACK[:1], NODE)),
                          ["not back after the reboot: ReplicaSet/default/cache-5b8d4c"]),
    }
    for name, (found, problems) in cases.items():
        document = reboot.check(ENABLE, NODE, found, AT)
        assert (name, document["state"], document["problems"]) == (name, "not back", problems)
        assert reboot.recheck(document, rehearsal_cases.TRANSITIONS[0], NOW) == []
        folded = reboot.fold(rehearsal_cases.rehearsed(), document, now=NOW)
        assert (folded["state"], folded["rehearsed"], folded["problems"]) == ("not reconciled", False, problems)
    unreachable = reboot.check(ENABLE, NODE, observed(reboot={"rebooted": False, "failed": True, "msg": "Timed out waiting for last boot time check"}), AT)
    assert (unreachable["state"], unreachable["problems"]) == ("not rebooted", ["the node did not reboot: Timed out waiting for last boot time check"])
    timed_out = reboot.check(ENABLE, NODE, observed(reboot={"rebooted": True, "failed": True, "msg": "Timed out waiting for last boot time check"}), AT)
    assert (timed_out["state"], timed_out["reboot"]) == ("not rebooted", {"rebooted": False, "elapsed_s": None,
                                                                          "error": "Timed out waiting for last boot time check"})


def test_a_kept_reboot_is_believed_only_from_its_observations():
    honest = reboot.check(ENABLE, NODE, observed(refusals={"memory": MEMORY}), AT)
    enable = rehearsal_cases.TRANSITIONS[0]
    typed = dict(copy.deepcopy(honest), state="came back", problems=[])
    assert reboot.recheck(typed, enable, NOW) == [
        "it states 'came back' (no problem), but its observations give not back (after the boot the kubelet refused memory: %s, "
        "and no recovery ran)" % MEMORY]
    folded = reboot.fold(rehearsal_cases.rehearsed(), typed, now=NOW)
    assert (folded["state"], folded["reboot"]["state"]) == ("not reconciled", "refused")
    assert folded["problems"][0].startswith("the reboot kept after enable %s is refused: it states 'came back'" % ENABLE)
    two_keys = {"enable": ENABLE, "state": "came back"}
    assert reboot.recheck(two_keys, enable, NOW) == [
        "its observations are missing: observed_at, reboot, refusals, recovery, verify, workloads, problems "
        "(a reboot's state is recomputed from what it observed)"]
    early = dict(copy.deepcopy(reboot.check(ENABLE, NODE, observed(), AT)), observed_at="2026-12-01T08:00:00.000000Z")
    assert reboot.recheck(early, enable, NOW) == [
        "observed_at 2026-12-01T08:00:00.000000Z is before enable %s closed (2026-12-01T09:00:22.5Z): the reboot follows the enable" % ENABLE]
    later = dict(copy.deepcopy(reboot.check(ENABLE, NODE, observed(), AT)), observed_at="2026-12-02T08:00:00.000000Z")
    assert reboot.recheck(later, enable, NOW) == [
        "observed_at 2026-12-02T08:00:00.000000Z is later than now: a reboot cannot have been observed in the future"]
    more_ready = copy.deepcopy(reboot.check(ENABLE, NODE, observed(), AT))
    more_ready["workloads"][0]["ready"] = 3
    assert reboot.recheck(more_ready, enable, NOW) == [
        "workloads[0] ('ReplicaSet/default/cache-5b8d4c') counts 3 pods Ready but names 1 on the node after the rollback "
        "(cache-5b8d4c-pq7rs): it cannot count more pods than it saw"]
    assert reboot.recheck([], enable, NOW) == ["the reboot document is [], not a mapping of observations"]


def test_no_reboot_kept_changes_nothing_and_a_private_problem_refuses():
    evidence = rehearsal_cases.rehearsed()
    assert reboot.fold(evidence, None) == dict(evidence, reboot=None)
    document = reboot.check(ENABLE, NODE, observed(), AT)
    folded = reboot.fold(evidence, document, distrust=["reboot.json is writable by group or others (0o666)"], now=NOW)
    assert (folded["state"], folded["reboot"]) == ("not reconciled", {"state": "refused", "problems": [
        "the reboot kept after enable %s is refused: reboot.json is writable by group or others (0o666)" % ENABLE]})
    # A rehearsal that does not count already stays what it is; the reboot's problems are added.
    missing = reboot.fold(rehearsal_cases.cache_missing(), reboot.check(ENABLE, NODE, observed(refusals=None), AT), now=NOW)
    assert missing["state"] == "not reconciled"
    assert missing["problems"][-1] == "the kubelet's checkpoints were not read after the boot: whether the kubelet refuses them is unknown"
