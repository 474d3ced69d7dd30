"""rehearsal_reboot and rehearsal_info, in-process, on a tmp_path root holding the transitions a rehearsal with a reboot leaves on a node."""

import json
import os

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._rehearsal import workloads as rehearsal_workloads
from ansible_collections.gpusmith.numa_gate.plugins.modules import rehearsal_check, rehearsal_info, rehearsal_reboot
from ansible_collections.gpusmith.numa_gate.tests.unit.plugins.module_utils._rehearsal.rehearsal_pods import CACHE, NODE, WEB, pod
from ansible_collections.gpusmith.numa_gate.tests.unit.plugins.modules.test_rehearsal_check import (
    AGAIN, ALL_BACK, BEFORE, ENABLE, PODRESOURCES, ROLLBACK, after, run, transition)

MEMORY = "[memorymanager] the expected machine state is different from the real one"
STATE_FILE = "/var/lib/kubelet/memory_manager_state"


def rebooted(**changes):
    """The reboot entry point's registered results: the memory manager refused after the boot, its state removed, Ready, workloads back."""
    args = dict(reboot={"rebooted": True, "elapsed": 38, "changed": True}, refusals={"cpu": None, "memory": MEMORY},
                recovery={"changed": True, "removed": [STATE_FILE], "backups": {STATE_FILE: "/x"}},
                verify={"ready": True, "mismatches": [], "node": NODE, "waited_s": 4.0},
                workloads=dict(rehearsal_workloads.came_back(BEFORE, [pod("web-7c9f5d-m4n8x", "u-web-2", WEB),
                                                                      pod("cache-5b8d4c-k2j5h", "u-cache-3", CACHE)], NODE),
                               observed_at="2026-12-01T09:05:00.000000Z"))
    args.update(changes)
    return args


def test_a_recovered_reboot_kept_beside_the_enable_and_read_back(capsys, tmp_path):
    transition(tmp_path, ENABLE, "enable", 0, 22.5)
    args = dict(root=str(tmp_path), transition=ENABLE, node=NODE, **rebooted())
    planned = run(capsys, rehearsal_reboot, _ansible_check_mode=True, **args)
    kept = tmp_path / "var/lib/numa-gate/transitions" / ENABLE / "reboot.json"
    assert (planned["changed"], kept.exists()) == (True, False)
    done = run(capsys, rehearsal_reboot, **args)
    assert (done["changed"], done["path"], done["reboot"]["state"], done["reboot"]["observed_at"]) == (
        True, "/var/lib/numa-gate/transitions/%s/reboot.json" % ENABLE, "recovered", "2026-12-01T09:05:00.000000Z")
    assert json.loads(kept.read_text()) == done["reboot"]
    assert oct(os.lstat(kept).st_mode & 0o777) == "0o600"
    assert run(capsys, rehearsal_reboot, **args)["changed"] is False

    transition(tmp_path, ROLLBACK, "rollback", 10, 21.6)
    run(capsys, rehearsal_check, root=str(tmp_path), transition=ROLLBACK, node=NODE, workloads=after(ALL_BACK), pod_resources=PODRESOURCES)
    transition(tmp_path, AGAIN, "enable", 20, 19.0)
    found = run(capsys, rehearsal_info, root=str(tmp_path), node=NODE)["rollback"]
    assert (found["state"], found["problems"], found["reboot"]["state"], found["reboot"]["recovery"]) == (
        "rehearsed", [], "recovered", {"removed": [STATE_FILE], "error": None})
    assert found["notes"] == ["after the reboot the kubelet refused memory: %s; the recovery removed %s and it came back" % (MEMORY, STATE_FILE)]

    # Edited on the node to say it came back: not believed, and the rehearsal does not count.
    document = json.loads(kept.read_text())
    kept.write_text(json.dumps(dict(document, state="came back")))
    found = run(capsys, rehearsal_info, root=str(tmp_path), node=NODE)["rollback"]
    assert (found["state"], found["rehearsed"], found["reboot"]["state"]) == ("not reconciled", False, "refused")
    assert found["problems"] == ["the reboot kept after enable %s is refused: it states 'came back' (no problem), but its observations give "
                                 "recovered (no problem)" % ENABLE]
    # The honest document, readable by others: not private, so not this collection's observation.
    kept.write_text(json.dumps(document))
    os.chmod(kept, 0o666)
    found = run(capsys, rehearsal_info, root=str(tmp_path), node=NODE)["rollback"]
    assert (found["state"], found["reboot"]["state"]) == ("not reconciled", "refused")
    assert found["problems"] == ["the reboot kept after enable %s is refused: state file /var/lib/numa-gate/transitions/%s/reboot.json is "
                                 "writable by group and others (mode 0666)" % (ENABLE, ENABLE)]


def test_a_reboot_that_did_not_come_back_defers_the_rehearsal(capsys, tmp_path):
    transition(tmp_path, ENABLE, "enable", 0, 22.5)
    done = run(capsys, rehearsal_reboot, root=str(tmp_path), transition=ENABLE, node=NODE,
               **rebooted(recovery=None, verify={"ready": False, "mismatches": [], "msg": "verify gpu-1: not Ready within 60s"}))
    assert (done["reboot"]["state"], done["reboot"]["problems"]) == ("not back", [
        "after the boot the kubelet refused memory: %s, and no recovery ran" % MEMORY,
        "the kubelet did not come back Ready with the policies it had: verify gpu-1: not Ready within 60s"])
    transition(tmp_path, ROLLBACK, "rollback", 10, 21.6)
    run(capsys, rehearsal_check, root=str(tmp_path), transition=ROLLBACK, node=NODE, workloads=after(ALL_BACK), pod_resources=PODRESOURCES)
    found = run(capsys, rehearsal_info, root=str(tmp_path), node=NODE)["rollback"]
    assert (found["state"], found["rehearsed"], found["problems"]) == ("not reconciled", False, done["reboot"]["problems"])


def test_the_reboot_goes_with_a_closed_enable_and_bad_input_changes_nothing(capsys, tmp_path):
    transition(tmp_path, ENABLE, "enable", 0, 22.5)
    transition(tmp_path, ROLLBACK, "rollback", 10, 21.6)
    transition(tmp_path, AGAIN, "enable", 20, 19.0, close=False, outcome="failed")
    folder = tmp_path / "var/lib/numa-gate/transitions"
    refused = run(capsys, rehearsal_reboot, root=str(tmp_path), transition=ROLLBACK, node=NODE, **rebooted())
    assert refused["msg"] == ("transition %s is a rollback, not an enable: the rehearsed reboot goes with the enable it followed; nothing was kept"
                              % ROLLBACK)
    still_open = run(capsys, rehearsal_reboot, root=str(tmp_path), transition=AGAIN, node=NODE, **rebooted())
    assert still_open["msg"] == "enable %s is still open on this node: finish it (enable.yml) before its reboot is kept; nothing was kept" % AGAIN
    shaped = run(capsys, rehearsal_reboot, root=str(tmp_path), transition=ENABLE, node=NODE, **rebooted(refusals={"memory": 3}))
    assert shaped["msg"] == "refusals.memory must be a string, got the number 3"
    assert sorted(os.listdir(folder / ENABLE)) == ["journal.jsonl"]
