"""kubelet_checkpoint and kubelet_checkpoint_info, in-process, against a tmp_path root."""

import hashlib
import json
import os
import stat
import threading

import pytest

from ansible.module_utils.testing import patch_module_args

from ansible_collections.gpusmith.numa_gate.plugins.modules import kubelet_checkpoint, kubelet_checkpoint_info

V2_NONE = {"policyName": "none", "defaultCpuSet": "0-7", "entries": {}, "checksum": 0}
TARGET = {"cpuManagerPolicy": "static", "reservedSystemCPUs": "0-1", "memoryManagerPolicy": "None"}
NODE = {"online_cpus": "0-7", "numa_nodes": {"0": 2048}, "memory_bytes": 2048}


def run(capsys, module, **args):
    with patch_module_args(args):
        with pytest.raises(SystemExit):
            module.main()
    return json.loads(capsys.readouterr().out)


def _sha(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def root(tmp_path):
    state = tmp_path / "var/lib/kubelet"
    state.mkdir(parents=True)
    (state / "cpu_manager_state").write_text(json.dumps(V2_NONE))
    return tmp_path


@pytest.fixture
def kubelet_inactive(monkeypatch):
    """systemd says the kubelet is inactive (this machine has no kubelet unit: the real answer too)."""
    calls = []

    def run_command(self, argv, **kwargs):
        calls.append(argv)
        return 3, "inactive\n", ""
    monkeypatch.setattr("ansible.module_utils.basic.AnsibleModule.run_command", run_command)
    monkeypatch.setattr("ansible.module_utils.basic.AnsibleModule.get_bin_path", lambda self, name, **kw: "/usr/bin/" + name)
    return calls


def test_info_reports_and_decides(capsys, root):
    result = run(capsys, kubelet_checkpoint_info, root=str(root), config=TARGET, node=NODE)
    cpu = result["checkpoints"]["cpu"]
    assert result["changed"] is False
    assert (cpu["format"], cpu["policy"], cpu["load"], cpu["path"]) == ("V2", "none", True, "/var/lib/kubelet/cpu_manager_state")
    assert result["checkpoints"]["memory"]["present"] is False
    assert result["refusals"] == {
        "cpu": 'could not restore state from checkpoint: configured policy "static" differs from state checkpoint policy "none", '
               'please drain this node and delete the CPU manager checkpoint file "/var/lib/kubelet/cpu_manager_state" before '
               'restarting Kubelet',
        "memory": None}


def test_check_mode_reports_and_changes_nothing(capsys, root):
    before = _sha(root / "var/lib/kubelet/cpu_manager_state")
    result = run(capsys, kubelet_checkpoint, root=str(root), config=TARGET, node=NODE, state="absent",
                 backup_dir="/var/lib/numa-gate/t1", kubelet_stopped=True, _ansible_check_mode=True, _ansible_diff=True)
    assert result["changed"] is True and result["removed"] == ["/var/lib/kubelet/cpu_manager_state"]
    assert result["backups"] == {}
    assert result["diff"]["after"] == ""
    assert result["diff"]["before"] == "/var/lib/kubelet/cpu_manager_state %s\n" % before
    assert _sha(root / "var/lib/kubelet/cpu_manager_state") == before
    assert not (root / "var/lib/numa-gate").exists()


def test_removal_backs_up_byte_for_byte_and_is_idempotent(capsys, root, kubelet_inactive):
    original = (root / "var/lib/kubelet/cpu_manager_state").read_bytes()
    result = run(capsys, kubelet_checkpoint, root=str(root), config=TARGET, node=NODE, state="absent",
                 backup_dir="/var/lib/numa-gate/t1")
    assert result["changed"] is True and result["would_refuse"] is True
    assert not (root / "var/lib/kubelet/cpu_manager_state").exists()
    saved = result["backups"]["/var/lib/kubelet/cpu_manager_state"]
    assert saved.startswith(str(root / "var/lib/numa-gate/t1") + "/")
    assert open(saved, "rb").read() == original
    assert stat.S_IMODE(os.stat(saved).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(root / "var/lib/numa-gate/t1").st_mode) == 0o700
    assert kubelet_inactive == [["/usr/bin/systemctl", "is-active", "kubelet"]]
    again = run(capsys, kubelet_checkpoint, root=str(root), config=TARGET, node=NODE, state="absent",
                backup_dir="/var/lib/numa-gate/t1")
    assert again["changed"] is False and again["removed"] == [] and again["would_refuse"] is False


def test_nothing_removed_when_the_kubelet_would_start(capsys, root, kubelet_inactive):
    config = dict(TARGET, cpuManagerPolicy="none")
    result = run(capsys, kubelet_checkpoint, root=str(root), config=config, node=NODE, state="absent", backup_dir="/b")
    assert result["changed"] is False and result["refusals"] == {"cpu": None, "memory": None}
    assert (root / "var/lib/kubelet/cpu_manager_state").exists()
    assert kubelet_inactive == []


def test_remove_all(capsys, root, kubelet_inactive):
    config = dict(TARGET, cpuManagerPolicy="none")
    result = run(capsys, kubelet_checkpoint, root=str(root), config=config, node=NODE, state="absent", backup_dir="/b", remove="all")
    assert result["removed"] == ["/var/lib/kubelet/cpu_manager_state"]
    assert not (root / "var/lib/kubelet/cpu_manager_state").exists()


def test_refuses_while_the_kubelet_is_active(capsys, root, monkeypatch):
    monkeypatch.setattr("ansible.module_utils.basic.AnsibleModule.run_command", lambda self, argv, **kw: (0, "active\n", ""))
    monkeypatch.setattr("ansible.module_utils.basic.AnsibleModule.get_bin_path", lambda self, name, **kw: "/usr/bin/" + name)
    before = _sha(root / "var/lib/kubelet/cpu_manager_state")
    result = run(capsys, kubelet_checkpoint, root=str(root), config=TARGET, node=NODE, state="absent", backup_dir="/b",
                 kubelet_stopped=True)
    assert result["failed"] is True
    assert result["msg"] == ("the kubelet service is active: stop it before removing /var/lib/kubelet/cpu_manager_state "
                             "(the kubelet would rewrite them); nothing was removed")
    assert _sha(root / "var/lib/kubelet/cpu_manager_state") == before


def test_absent_needs_a_backup_dir(capsys, root):
    result = run(capsys, kubelet_checkpoint, root=str(root), config=TARGET, state="absent")
    assert result["msg"] == "backup_dir is required with state=absent: a checkpoint is never removed without a backup"


def test_fifo_checkpoint_is_a_finding_not_a_hang(capsys, root, kubelet_inactive):
    os.mkfifo(root / "var/lib/kubelet/memory_manager_state")
    outcome = []
    worker = threading.Thread(target=lambda: outcome.append(run(capsys, kubelet_checkpoint_info, root=str(root), config=TARGET)))
    worker.start()
    worker.join(timeout=10)
    assert not worker.is_alive(), "reading a FIFO checkpoint blocked"
    memory = outcome[0]["checkpoints"]["memory"]
    assert memory["load"] is False
    assert memory["problem"] == "/var/lib/kubelet/memory_manager_state is a FIFO, not a regular file; not read"
    assert outcome[0]["refusals"]["memory"].startswith(
        "could not restore state from checkpoint: /var/lib/kubelet/memory_manager_state is a FIFO")


def test_symlinked_checkpoint_outside_the_root_is_not_followed(capsys, tmp_path, kubelet_inactive):
    root = tmp_path / "root"
    (root / "var/lib/kubelet").mkdir(parents=True)
    outside = tmp_path / "precious"
    outside.write_text(json.dumps(V2_NONE))
    os.symlink(str(outside), root / "var/lib/kubelet/cpu_manager_state")
    before = _sha(outside)
    result = run(capsys, kubelet_checkpoint, root=str(root), config=TARGET, state="absent", backup_dir="/b")
    assert result["checkpoints"]["cpu"]["problem"] == "/var/lib/kubelet/cpu_manager_state is a symlink, not a regular file; not read"
    # The link itself is taken away (backed up as a link); what it points to is untouched.
    assert result["removed"] == ["/var/lib/kubelet/cpu_manager_state"]
    assert not os.path.lexists(root / "var/lib/kubelet/cpu_manager_state")
    assert _sha(outside) == before


def test_empty_root_is_refused(capsys):
    result = run(capsys, kubelet_checkpoint_info, root="")
    assert result["failed"] is True and result["msg"] == "root must be a non-empty path, got ''"


# Issue 16: every checkpoint file is checked before any is removed.

def test_a_fifo_memory_checkpoint_refuses_the_removal_of_both(capsys, root, kubelet_inactive):
    """The issue's example: cpu_manager_state was removed, then memory_manager_state (a FIFO) failed."""
    from ansible_collections.gpusmith.numa_gate.tests.unit.tree_state import bounded, snapshot
    os.mkfifo(str(root / "var/lib/kubelet/memory_manager_state"))
    before = snapshot(root)
    result = bounded(lambda: run(capsys, kubelet_checkpoint, root=str(root), config=TARGET, node=NODE, state="absent",
                                 backup_dir="/var/lib/numa-gate/t1"))
    assert result["failed"] is True
    assert result["msg"] == ("/var/lib/kubelet/memory_manager_state is a FIFO, not a regular file or a symlink: it cannot be backed up "
                             "byte for byte, so it is not removed (take it away by hand once you know what it is); nothing was removed")
    assert snapshot(root) == before
    assert kubelet_inactive == []  # refused before the service was even asked


def test_a_backup_folder_that_is_not_private(capsys, root, kubelet_inactive):
    from ansible_collections.gpusmith.numa_gate.tests.unit.tree_state import snapshot
    (root / "b").mkdir(mode=0o700)
    os.chmod(str(root / "b"), 0o757)
    before = snapshot(root)
    result = run(capsys, kubelet_checkpoint, root=str(root), config=TARGET, node=NODE, state="absent", backup_dir="/b")
    assert result["msg"] == ("state folder /b is writable by others (mode 0757): the collection's state must be private (owned by the user "
                             "running the module, folders 0700, files 0600, writable by no one else), so it is not trusted: give it back "
                             "with chown and chmod, or remove it; nothing was changed")
    assert snapshot(root) == before


def test_wrong_types_inside_v4_data_name_the_field(capsys, root, kubelet_inactive):
    from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kubelet.checkpoints.checksum import data_checksum
    data = json.dumps({"policyName": "static", "defaultCPUSet": "0-7", "entries": ["pod"]})
    (root / "var/lib/kubelet/cpu_manager_state").write_text(json.dumps(dict(V2_NONE, data=data, dataChecksum=data_checksum(data))))
    result = run(capsys, kubelet_checkpoint, root=str(root), config=TARGET, node=NODE)
    assert result["refusals"]["cpu"] == (
        "could not restore state from checkpoint: could not load v4 checkpoint: failed to deserialize cpu manager checkpoint data: "
        "cpu_manager_state data.entries is ['pod'], not a JSON object, please drain this node and delete the CPU manager checkpoint file "
        "\"/var/lib/kubelet/cpu_manager_state\" before restarting Kubelet")


def test_a_config_of_the_wrong_shape_is_named(capsys, root):
    result = run(capsys, kubelet_checkpoint_info, root=str(root), config={"reservedMemory": [{"numaNode": "zero", "limits": {}}]})
    assert result["failed"] is True
    assert result["msg"] == "config reservedMemory[0].numaNode 'zero' is not a NUMA node id (a whole number of at least 0)"


def test_the_state_step_journals_the_backups_it_made(capsys, root, kubelet_inactive):
    from ansible_collections.gpusmith.numa_gate.plugins.module_utils._transition.journal import transitions
    transitions.open_transition(str(root), "/var/lib/numa-gate", "enable", "20261201T090000Z")
    path = root / "var/lib/numa-gate/transitions/20261201T090000Z/journal.jsonl"
    result = run(capsys, kubelet_checkpoint, root=str(root), config=TARGET, node=NODE, state="absent", backup_dir="/var/lib/numa-gate/t1",
                 journal={"transition": "20261201T090000Z", "step": "state"})
    written = [json.loads(line) for line in path.read_text().splitlines()]
    saved = result["backups"]["/var/lib/kubelet/cpu_manager_state"]
    assert [(e["step"], e["event"], e.get("outcome"), e.get("changed")) for e in written] == [
        ("state", "started", None, None),
        ("state", "finished", "changed", {"files": [{"path": "/var/lib/kubelet/cpu_manager_state", "backup": saved}]})]
    assert kubelet_inactive == [["/usr/bin/systemctl", "is-active", "kubelet"]]


def test_fail_on_refusal_names_each_refusal_and_records_no_verification(capsys, root):
    from ansible_collections.gpusmith.numa_gate.plugins.module_utils._transition.journal import transitions
    transitions.open_transition(str(root), "/var/lib/numa-gate", "enable", "20261201T090000Z")
    path = root / "var/lib/numa-gate/transitions/20261201T090000Z/journal.jsonl"
    option = {"transition": "20261201T090000Z", "step": "verify"}
    result = run(capsys, kubelet_checkpoint, root=str(root), config=TARGET, node=NODE, fail_on_refusal=True, journal=option)
    assert result["failed"] is True
    assert result["msg"] == (
        'the kubelet would refuse its checkpoints under the target configuration: cpu: could not restore state from checkpoint: configured '
        'policy "static" differs from state checkpoint policy "none", please drain this node and delete the CPU manager checkpoint file '
        '"/var/lib/kubelet/cpu_manager_state" before restarting Kubelet')
    assert not path.exists()
    # Under a configuration the checkpoint fits, the verification records its end only.
    fits = run(capsys, kubelet_checkpoint, root=str(root), config=dict(TARGET, cpuManagerPolicy="none"), node=NODE, fail_on_refusal=True,
               journal=option)
    assert fits["changed"] is False
    assert [(e["step"], e["event"], e["outcome"]) for e in map(json.loads, path.read_text().splitlines())] == [("verify", "finished", "ok")]
