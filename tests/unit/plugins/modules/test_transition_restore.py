"""transition_restore, in-process: every backup and every node file is checked before the first write (issue 16).

Each refusal asserts the exact message and that every file under the root (sha256, mode, owner; links and FIFOs by kind) is
as it was, the backup folder included. FIFOs are real and every call runs under a thread timeout.
"""

import hashlib
import json
import os

import pytest

from ansible.module_utils.testing import patch_module_args

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._node_files import backups
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._transition.journal import journal
from ansible_collections.gpusmith.numa_gate.plugins.modules import transition_journal, transition_restore
from ansible_collections.gpusmith.numa_gate.tests.unit.tree_state import bounded, snapshot

T1 = "20261201T090000Z"
TDIR = "var/lib/numa-gate/transitions/" + T1
CPU = "/var/lib/kubelet/cpu_manager_state"
MAIN = "/var/lib/kubelet/config.yaml"
CPU_BYTES = b'{"policyName":"none","defaultCpuSet":"0-7","checksum":0}'
MAIN_BYTES = b"kind: KubeletConfiguration\nmaxPods: 110\n"
RESTORE_DIR = "/var/lib/numa-gate/transitions/%s/restore" % T1


def run(capsys, module, **args):
    with patch_module_args(args):
        with pytest.raises(SystemExit):
            module.main()
    return json.loads(capsys.readouterr().out)


def node(root, real):
    return "/" + os.path.relpath(str(real), str(root))


@pytest.fixture(name="changed")
def fixture_changed(tmp_path, capsys):
    """An enable that removed the CPU checkpoint and replaced the main file, recorded in T1's journal, then failed."""
    kubelet = tmp_path / "var/lib/kubelet"
    kubelet.mkdir(parents=True)
    (kubelet / "config.yaml").write_bytes(MAIN_BYTES)
    (kubelet / "cpu_manager_state").write_bytes(CPU_BYTES)
    run(capsys, transition_journal, root=str(tmp_path), action="open", target="enable", new_id=T1)
    path = str(tmp_path / TDIR / journal.JOURNAL)
    kept = str(tmp_path / TDIR / "backups")
    cpu_copy = backups.remove(str(kubelet / "cpu_manager_state"), kept)
    journal.append(path, "state", "finished", outcome="changed", changed={"files": [{"path": CPU, "backup": node(tmp_path, cpu_copy)}]})
    main_copy = backups.replace(str(kubelet / "config.yaml"), MAIN_BYTES + b"cpuManagerPolicy: static\n", kept)
    journal.append(path, "config", "finished", outcome="changed", changed={"files": [{"path": MAIN, "backup": node(tmp_path, main_copy)}]})
    return tmp_path, cpu_copy, main_copy


def refused(capsys, root, message, **args):
    before = snapshot(root)
    result = bounded(lambda: run(capsys, transition_restore, root=str(root), backup_dir=RESTORE_DIR, **args))
    assert result["failed"] is True
    assert result["msg"] == message
    assert snapshot(root) == before
    assert not (root / TDIR / "restore").exists()
    return result


def test_puts_back_both(capsys, changed):
    root, _cpu_copy, _main_copy = changed
    result = run(capsys, transition_restore, root=str(root), transition=T1, backup_dir=RESTORE_DIR)
    assert [(r["path"], r["action"]) for r in result["restored"]] == [(CPU, "restored"), (MAIN, "restored")]
    assert (root / CPU.lstrip("/")).read_bytes() == CPU_BYTES and (root / MAIN.lstrip("/")).read_bytes() == MAIN_BYTES


def test_the_second_backup_mismatching_its_sha256_changes_nothing(capsys, changed):
    """The issue's example: the first file was replaced before the second backup's mismatch was found."""
    root, _cpu_copy, main_copy = changed
    with open(main_copy, "wb") as handle:
        handle.write(b"tampered\n")
    expected = hashlib.sha256(MAIN_BYTES).hexdigest()
    actual = hashlib.sha256(b"tampered\n").hexdigest()
    refused(capsys, root, "%s does not match its recorded sha256 (%s, found %s); not restoring it; nothing was put back"
            % (main_copy, expected, actual), transition=T1)


def test_a_backup_outside_the_state_folder(capsys, changed, tmp_path_factory):
    root = changed[0]
    outside = tmp_path_factory.mktemp("outside") / "shadow.bak"
    outside.write_bytes(b"root:x:0:0\n")
    files = [{"path": "/etc/shadow", "backup": node(root, outside)}]
    refused(capsys, root, "backup %s lies outside the state folder; not read; nothing was put back" % node(root, outside), files=files)


def test_a_backup_record_of_the_wrong_shape(capsys, changed):
    root, cpu_copy, _main_copy = changed
    meta = cpu_copy + ".meta"
    record = json.loads(open(meta).read())
    record["mode"] = 420
    with open(meta, "w") as handle:
        handle.write(json.dumps(record))
    refused(capsys, root, "%s.meta is not a backup record (mode 420 is not an octal mode such as 0600); not restoring %s; nothing was put back"
            % (cpu_copy, cpu_copy), transition=T1)


def test_a_deeply_nested_backup_record(capsys, changed):
    root, cpu_copy, _main_copy = changed
    with open(cpu_copy + ".meta", "w") as handle:
        handle.write("[" * 50000)
    refused(capsys, root, "%s.meta is not a backup record (nested too deeply to parse (more levels of arrays and objects than the "
            "parser's recursion limit)); not restoring %s; nothing was put back" % (cpu_copy, cpu_copy), transition=T1)


def test_a_node_file_that_is_a_fifo(capsys, changed):
    root = changed[0]
    os.mkfifo(str(root / CPU.lstrip("/")))
    refused(capsys, root, "%s is a FIFO, not a regular file or a symlink: not replaced; nothing was put back" % CPU, transition=T1)


def test_a_backup_that_is_a_symlink(capsys, changed, tmp_path_factory):
    root, cpu_copy, _main_copy = changed
    secret = tmp_path_factory.mktemp("secret") / "key"
    secret.write_bytes(CPU_BYTES)
    os.unlink(cpu_copy)
    os.symlink(str(secret), cpu_copy)
    refused(capsys, root, "backup %s is a symlink, not a regular file; not read; not restoring it; nothing was put back" % cpu_copy,
            transition=T1)


def test_a_transition_folder_writable_by_others(capsys, changed):
    root = changed[0]
    os.chmod(str(root / TDIR / "backups"), 0o777)
    refused(capsys, root, "state folder /var/lib/numa-gate/transitions/%s/backups is writable by group and others (mode 0777): the "
            "collection's state must be private (owned by the user running the module, folders 0700, files 0600, writable by no one "
            "else), so it is not trusted: give it back with chown and chmod, or remove it; nothing was changed" % T1, transition=T1)


def test_an_unrecorded_backup_naming_a_file_outside_the_root_is_not_used(capsys, changed):
    """A backup whose record says it is of /etc/passwd on the controller (outside root) is never put back anywhere."""
    root = changed[0]
    kept = root / TDIR / "backups"
    planted = kept / "etc__passwd.20261201T090000.000000Z.bak"
    planted.write_bytes(b"evil\n")
    os.chmod(str(planted), 0o600)
    record = {"kind": "file", "path": "/etc/passwd", "mode": "0644", "uid": 0, "gid": 0, "sha256": hashlib.sha256(b"evil\n").hexdigest()}
    (kept / (planted.name + ".meta")).write_text(json.dumps(record))
    os.chmod(str(kept / (planted.name + ".meta")), 0o600)
    result = run(capsys, transition_restore, root=str(root), transition=T1, backup_dir=RESTORE_DIR)
    assert [r["path"] for r in result["restored"]] == [CPU, MAIN]
    assert not (root / "etc/passwd").exists()


def test_files_entries_of_the_wrong_shape(capsys, changed):
    root = changed[0]
    path = root / TDIR / journal.JOURNAL
    lines = path.read_text().splitlines()
    first = json.loads(lines[0])
    first["changed"] = {"files": [{"path": 5}]}
    path.write_text("\n".join([json.dumps(first)] + lines[1:]) + "\n")
    refused(capsys, root, "the journal's state finished event at %s: changed.files[0] {'path': 5} is not {path: <node path>, backup: "
            "<node path> or null}; nothing was changed" % first["at"], transition=T1)
