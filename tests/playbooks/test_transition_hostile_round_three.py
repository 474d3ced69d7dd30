# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Issue 29, class 7, through the real ``ansible``: a backup record whose mode is above 0777 or whose link is not its
copy's checked bytes, a file that cannot be put back, a journal refusal and a lone surrogate in a checkpoint. Each
refusal asserts the exact message and the sha256 (mode, owner, kind) of every file under the root before and after:
no ``restore/`` folder, no new ``.lock``. In-process: tests/unit/plugins/module_utils/_transition/test_restore_plan.py."""

from __future__ import annotations

import json
import os
import subprocess

import pytest

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._node_files import backups
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._transition.journal import journal, transitions
from ansible_collections.gpusmith.numa_gate.tests.unit import ansible_run
from ansible_collections.gpusmith.numa_gate.tests.unit.tree_state import snapshot

T1 = "20261201T090000Z"
STATE = "/var/lib/numa-gate"
TDIR = "var/lib/numa-gate/transitions/" + T1
RESTORE_DIR = STATE + "/transitions/%s/restore" % T1
MAIN = "/var/lib/kubelet/config.yaml"
MAIN_BYTES = b"kind: KubeletConfiguration\nmaxPods: 110\n"


def adhoc(tmp_path, module, args):
    argv = [os.path.join(ansible_run.BIN, "ansible"), "localhost", "-i", "localhost,", "-c", "local", "-m", "gpusmith.numa_gate." + module,
            "-a", json.dumps(args), "-e", "ansible_python_interpreter=%s" % ansible_run.PYTHON]
    done = subprocess.run(argv, cwd=ansible_run.REPO, env=ansible_run.environment(tmp_path / "run"), capture_output=True, text=True,
                          timeout=120, check=False)
    return json.loads(done.stdout[done.stdout.index("{"):])["plays"][0]["tasks"][0]["hosts"]["localhost"]


def refused(tmp_path, root, module, args, message):
    before = snapshot(root)
    result = adhoc(tmp_path, module, dict(args, root=str(root)))
    assert (result.get("failed"), result.get("msg")) == (True, message), json.dumps(result)
    assert snapshot(root) == before
    assert not (root / TDIR / "restore").exists()
    return result


def node(root, real):
    return "/" + os.path.relpath(str(real), str(root))


@pytest.fixture(name="root")
def fixture_root(tmp_path):
    root = tmp_path / "root"
    kubelet = root / "var/lib/kubelet"
    kubelet.mkdir(parents=True)
    (kubelet / "config.yaml").write_bytes(MAIN_BYTES)
    transitions.open_transition(str(root), STATE, "enable", T1)
    return root


def replaced(root):
    """The main file replaced by the transition, its backup recorded; returns the backup copy."""
    path = str(root / TDIR / journal.JOURNAL)
    copy = backups.replace(str(root / MAIN.lstrip("/")), MAIN_BYTES + b"cpuManagerPolicy: static\n", str(root / TDIR / "backups"))
    journal.append(path, "config", "finished", outcome="changed", changed={"files": [{"path": MAIN, "backup": node(root, copy)}]})
    return copy


def tamper(copy, **fields):
    with open(copy + ".meta", encoding="utf-8") as stream:
        record = json.load(stream)
    record.update(fields)
    with open(copy + ".meta", "w", encoding="utf-8") as stream:
        json.dump(record, stream)


@pytest.mark.parametrize("mode", ["4755", "2644", "1600", "7777"])
def test_a_mode_above_0777_is_not_restored(tmp_path, root, mode):
    copy = replaced(root)
    tamper(copy, mode=mode)
    shown = copy
    refused(tmp_path, root, "transition_restore", {"transition": T1, "backup_dir": RESTORE_DIR},
            "%s.meta is not a backup record (mode %s is above 0777 (setuid, setgid or sticky): the collection backs up kubelet files, "
            "never restores those bits); not restoring %s; nothing was put back" % (shown, mode, shown))


def test_a_symlink_record_whose_link_is_not_its_checked_bytes_is_not_restored(tmp_path, root):
    link = root / "var/lib/kubelet/kubeconfig"
    os.symlink("config.yaml", str(link))
    copy = backups.remove(str(link), str(root / TDIR / "backups"))
    journal.append(str(root / TDIR / journal.JOURNAL), "state", "finished", outcome="changed",
                   changed={"files": [{"path": "/var/lib/kubelet/kubeconfig", "backup": node(root, copy)}]})
    tamper(copy, link="/etc/shadow")
    shown = copy
    refused(tmp_path, root, "transition_restore", {"transition": T1, "backup_dir": RESTORE_DIR},
            "%s.meta is not a backup record (its link '/etc/shadow' is not the link text its copy holds, b'config.yaml'); not restoring %s; "
            "nothing was put back" % (shown, shown))
    assert not os.path.lexists(str(link))


def test_a_file_whose_folder_is_gone_leaves_no_restore_folder(tmp_path, root):
    copy = backups.remove(str(root / MAIN.lstrip("/")), str(root / TDIR / "backups"))
    journal.append(str(root / TDIR / journal.JOURNAL), "state", "finished", outcome="changed",
                   changed={"files": [{"path": MAIN, "backup": node(root, copy)}]})
    os.rmdir(str(root / "var/lib/kubelet"))
    refused(tmp_path, root, "transition_restore", {"transition": T1, "backup_dir": RESTORE_DIR},
            "%s cannot be put back: its folder /var/lib/kubelet is missing; nothing was put back" % MAIN)


def test_a_refused_open_leaves_no_new_lock(tmp_path, root):
    lock = root / STATE.lstrip("/") / "transitions/.lock"
    os.unlink(str(lock))  # opened before the lock existed
    refused(tmp_path, root, "transition_journal", {"action": "open", "target": "rollback", "new_id": "20261202T090000Z"},
            "transition %s to enable is still open on this node; re-run enable to finish it before a rollback" % T1)
    (root / STATE.lstrip("/") / "transitions/current").write_text("{\"id\": 5}\n")
    refused(tmp_path, root, "transition_journal", {"action": "open", "target": "enable", "new_id": "20261202T090000Z"},
            "%s/transitions/current does not name a transition (b'{\"id\": 5}\\n'); nothing was changed" % STATE)
    assert not os.path.lexists(str(lock))


@pytest.mark.parametrize("blob, where", [
    (b'{"data": "{\\"policyName\\":\\"\\ud800\\"}", "dataChecksum": 1}', "cpu_manager_state.data has a lone UTF-16 surrogate \\ud800 at offset 15"),
    (b'{"policyName": "none", "defaultCpuSet": "", "entries": {"\\udc80": {}}, "checksum": 1}',
     "a key of cpu_manager_state.entries has a lone UTF-16 surrogate \\udc80 at offset 0"),
])
def test_a_lone_surrogate_in_a_checkpoint_is_named(tmp_path, root, blob, where):
    (root / "var/lib/kubelet/cpu_manager_state").write_bytes(blob)
    before = snapshot(root)
    result = adhoc(tmp_path, "kubelet_checkpoint_info", {"root": str(root)})
    assert snapshot(root) == before
    assert (result["checkpoints"]["cpu"]["load"], result["checkpoints"]["cpu"]["problem"]) == (
        False, "%s (a JSON escape without its pair: Go's encoding/json reads it as U+FFFD and the kubelet never writes one); "
        "not read as a checkpoint" % where), json.dumps(result)
