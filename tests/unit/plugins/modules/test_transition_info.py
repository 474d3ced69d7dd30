"""transition_info, in-process, against a tmp_path root holding what a real transition leaves on a node."""

import hashlib
import json
import os

import pytest

from ansible.module_utils.testing import patch_module_args

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._node_files import backups
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._transition.journal import journal
from ansible_collections.gpusmith.numa_gate.plugins.modules import transition_info, transition_journal

CONFIG = b"apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nmaxPods: 110\n"
TARGET = CONFIG + b"cpuManagerPolicy: static\n"
CPU_STATE = b'{"policyName":"none","defaultCpuSet":"0-7","checksum":1353318690}'
STATE = "/var/lib/numa-gate"
CPU = "/var/lib/kubelet/cpu_manager_state"
MAIN = "/var/lib/kubelet/config.yaml"


def run(capsys, module, **args):
    with patch_module_args(args):
        with pytest.raises(SystemExit):
            module.main()
    return json.loads(capsys.readouterr().out)


def sha(data):
    return hashlib.sha256(data).hexdigest()


@pytest.fixture(name="root")
def fixture_root(tmp_path):
    (tmp_path / "var/lib/kubelet").mkdir(parents=True)
    (tmp_path / "var/lib/kubelet/config.yaml").write_bytes(CONFIG)
    (tmp_path / "var/lib/kubelet/cpu_manager_state").write_bytes(CPU_STATE)
    os.chmod(tmp_path / "var/lib/kubelet/config.yaml", 0o644)
    return tmp_path


def open_transition(capsys, root, new_id, target="enable"):
    result = run(capsys, transition_journal, root=str(root), action="open", target=target, new_id=new_id)
    assert result["transition"] == {"id": new_id, "target": target}
    return str(root / STATE.lstrip("/") / "transitions" / new_id)


def node(root, real):
    return "/" + os.path.relpath(real, root)


def enable_through_config(root, folder):
    """The state and config steps as the role runs them, on the node's files, recorded with fixed times."""
    path = os.path.join(folder, journal.JOURNAL)
    kept = os.path.join(folder, "backups")
    journal.append(path, "stop", "started", at="2026-12-01T09:00:00Z")
    journal.append(path, "stop", "finished", outcome="changed", at="2026-12-01T09:00:01.500000Z")
    journal.append(path, "state", "started", at="2026-12-01T09:00:02Z")
    cpu_copy = backups.remove(str(root / CPU.lstrip("/")), kept)
    journal.append(path, "state", "finished", outcome="changed", at="2026-12-01T09:00:02.250000Z",
                   changed={"files": [{"path": CPU, "backup": node(root, cpu_copy)}]})
    journal.append(path, "config", "started", at="2026-12-01T09:00:03Z", changed={"files": []})
    main_copy = backups.replace(str(root / MAIN.lstrip("/")), TARGET, kept)
    journal.append(path, "config", "finished", outcome="changed", at="2026-12-01T09:00:03.125000Z",
                   changed={"files": [{"path": MAIN, "backup": node(root, main_copy)}]})
    return node(root, cpu_copy), node(root, main_copy)


def test_a_closed_enable(capsys, root):
    folder = open_transition(capsys, root, "20261201T090000Z")
    cpu_copy, main_copy = enable_through_config(root, folder)
    journal.append(os.path.join(folder, journal.JOURNAL), "uncordon", "finished", outcome="skipped", at="2026-12-01T09:00:30Z")
    run(capsys, transition_journal, root=str(root), action="close", transition="20261201T090000Z")
    result = run(capsys, transition_info, root=str(root), transition="20261201T090000Z", node="gpu-1", target="enable")
    assert (result["changed"], result["found"], result["transition"]) == (False, True, "20261201T090000Z")
    built = result["record"]
    assert {key: built[key] for key in ("schema_version", "transition", "target", "target_source", "node", "open", "opened", "closed",
                                        "duration_s", "outcome", "failed_steps", "in_progress", "notes")} == {
        "schema_version": 1, "transition": "20261201T090000Z", "target": "enable", "target_source": "caller", "node": "gpu-1",
        "open": False, "opened": "2026-12-01T09:00:00Z", "closed": "2026-12-01T09:00:30Z", "duration_s": 30.0,
        "outcome": "converged", "failed_steps": [], "in_progress": None, "notes": []}
    assert [(s["step"], s["duration_s"], s["outcome"], s["start_recorded"]) for s in built["steps"]] == [
        ("stop", 1.5, "changed", True), ("state", 0.25, "changed", True), ("config", 0.125, "changed", True),
        ("uncordon", 26.875, "skipped", False)]
    owner = {"uid": os.getuid(), "gid": os.getgid()}
    cpu_mode = "%04o" % (0o666 & ~_umask())
    assert built["files"] == [
        {"path": CPU, "backup": cpu_copy, "recorded": True, "sha256_before": sha(CPU_STATE), "sha256_after": None, "changed": True,
         "original": dict(kind="file", mode=cpu_mode, **owner), "problem": None},
        {"path": MAIN, "backup": main_copy, "recorded": True, "sha256_before": sha(CONFIG), "sha256_after": sha(TARGET), "changed": True,
         "original": dict(kind="file", mode="0644", **owner), "problem": None}]
    # Check mode reads the same; the default transition is the only one.
    again = run(capsys, transition_info, root=str(root), node="gpu-1", target="enable", _ansible_check_mode=True)
    del again["invocation"], result["invocation"]
    assert again == result


def _umask():
    mask = os.umask(0)
    os.umask(mask)
    return mask


def test_killed_in_the_state_step_finds_the_unrecorded_backup(capsys, root):
    """The checkpoint was backed up and removed, then the run was killed before the state step recorded it."""
    folder = open_transition(capsys, root, "t-killed", target="rollback")
    path = os.path.join(folder, journal.JOURNAL)
    journal.append(path, "stop", "started", at="2026-12-01T09:00:00Z")
    journal.append(path, "stop", "finished", outcome="changed", at="2026-12-01T09:00:01Z")
    journal.append(path, "state", "started", at="2026-12-01T09:00:02Z")
    copy = backups.remove(str(root / CPU.lstrip("/")), os.path.join(folder, "backups"))
    with open(path, "ab") as handle:
        handle.write(b'{"at": "2026-12-01T09:00:0')  # the finish line, cut by the kill
    built = run(capsys, transition_info, root=str(root), node="gpu-1")["record"]
    assert (built["transition"], built["target"], built["target_source"]) == ("t-killed", "rollback", "open transition")
    assert (built["open"], built["outcome"], built["in_progress"], built["closed"]) == (True, "failed-open", "state", None)
    assert built["notes"] == ["the last line of %s was cut short (the run was killed while writing it) and is ignored" % os.path.realpath(path)]
    assert built["files"] == [
        {"path": CPU, "backup": node(os.path.realpath(root), copy), "recorded": False, "sha256_before": sha(CPU_STATE), "sha256_after": None,
         "changed": True, "original": {"kind": "file", "mode": "%04o" % (0o666 & ~_umask()), "uid": os.getuid(), "gid": os.getgid()},
         "problem": None}]


def test_the_default_is_the_open_one_else_the_last_to_end(capsys, root):
    first = open_transition(capsys, root, "b-first")
    journal.append(os.path.join(first, journal.JOURNAL), "stop", "started", at="2026-12-01T09:00:00Z")
    run(capsys, transition_journal, root=str(root), action="close", transition="b-first")
    second = open_transition(capsys, root, "a-second")
    journal.append(os.path.join(second, journal.JOURNAL), "stop", "started", at="2026-12-01T10:00:00.5Z")
    assert run(capsys, transition_info, root=str(root))["transition"] == "a-second"
    run(capsys, transition_journal, root=str(root), action="close", transition="a-second")
    # Closed: the journal that ends last, though its name sorts first.
    assert run(capsys, transition_info, root=str(root))["transition"] == "a-second"
    journal.append(os.path.join(first, journal.JOURNAL), "stop", "finished", outcome="ok", at="2026-12-01T11:00:00Z")
    result = run(capsys, transition_info, root=str(root))
    assert (result["transition"], result["record"]["node"]) == ("b-first", os.uname().nodename)


def test_nothing_to_read(capsys, root):
    assert run(capsys, transition_info, root=str(root)) == {"changed": False, "found": False, "transition": None, "record": None,
                                                            "invocation": run_args(root)}
    assert run(capsys, transition_info, root=str(root), transition="nope")["found"] is False
    (root / STATE.lstrip("/") / "transitions" / "~not-an-id").mkdir(parents=True)
    assert run(capsys, transition_info, root=str(root))["found"] is False
    result = run(capsys, transition_info, root=str(root), transition="../../etc")
    assert result["failed"] is True
    assert result["msg"] == ("transition id '../../etc' must be 1-64 letters, digits, '.', '_' or '-', not starting with a punctuation mark")


def run_args(root):
    return {"module_args": {"root": str(root), "state_dir": STATE, "transition": None, "node": None, "target": None}}


def test_symlinks_out_of_the_state_folder_are_not_followed(capsys, root, tmp_path_factory):
    outside = tmp_path_factory.mktemp("outside")
    (outside / journal.JOURNAL).write_text('{"at": "2026-12-01T09:00:00Z", "event": "started", "step": "stop"}\n')
    transitions_dir = root / STATE.lstrip("/") / "transitions"
    transitions_dir.mkdir(parents=True)
    os.symlink(str(outside), str(transitions_dir / "t-link"))
    result = run(capsys, transition_info, root=str(root), transition="t-link")
    assert result["failed"] is True and result["msg"] == "%s/transitions/t-link is a symlink; not read" % STATE
    # A journal naming a backup outside the state folder: not read, said so.
    folder = open_transition(capsys, root, "t-out")
    (outside / "config.bak.meta").write_text(json.dumps({"sha256": sha(b"secret")}))
    journal.append(os.path.join(folder, journal.JOURNAL), "config", "finished", outcome="changed", at="2026-12-01T09:00:00Z",
                   changed={"files": [{"path": MAIN, "backup": node(root, str(outside / "config.bak"))}]})
    built = run(capsys, transition_info, root=str(root), transition="t-out")["record"]
    assert built["files"] == [
        {"path": MAIN, "backup": node(root, str(outside / "config.bak")), "recorded": True, "sha256_before": None,
         "sha256_after": sha(CONFIG), "changed": None, "original": None,
         "problem": "backup %s lies outside the state folder; not read" % node(root, str(outside / "config.bak"))}]


def test_a_transitions_folder_that_leads_out(capsys, root, tmp_path_factory):
    outside = tmp_path_factory.mktemp("elsewhere")
    (outside / "t1").mkdir()
    (root / STATE.lstrip("/")).mkdir(parents=True)
    os.symlink("/" + os.path.relpath(str(outside), str(root)), str(root / STATE.lstrip("/") / "transitions"))
    result = run(capsys, transition_info, root=str(root), transition="t1")
    assert result["failed"] is True and result["msg"] == "%s/transitions leads out of %s (a symlink); not read" % (STATE, STATE)


def test_a_node_file_that_is_a_symlink_or_a_fifo(capsys, root):
    folder = open_transition(capsys, root, "t-kinds")
    os.unlink(str(root / MAIN.lstrip("/")))
    os.symlink("../shared/config.yaml", str(root / MAIN.lstrip("/")))
    os.mkfifo(str(root / "var/lib/kubelet/memory_manager_state"))
    journal.append(os.path.join(folder, journal.JOURNAL), "config", "finished", outcome="changed", at="2026-12-01T09:00:00Z",
                   changed={"files": [{"path": MAIN, "backup": None}, {"path": "/var/lib/kubelet/memory_manager_state", "backup": None}]})
    built = run(capsys, transition_info, root=str(root), transition="t-kinds")["record"]
    fifo = os.path.join(os.path.realpath(root), "var/lib/kubelet/memory_manager_state")
    assert [(f["path"], f["sha256_after"], f["changed"], f["problem"]) for f in built["files"]] == [
        (MAIN, sha(b"../shared/config.yaml"), True, None),
        ("/var/lib/kubelet/memory_manager_state", None, False, "%s is a FIFO, not a regular file; not read" % fifo)]


def test_state_that_is_not_private_is_read_and_said_so(capsys, root):
    """transition_info reads (it writes nothing) but notes what transition_journal and transition_restore would refuse."""
    open_transition(capsys, root, "t-open")
    os.chmod(str(root / STATE.lstrip("/") / "transitions/t-open"), 0o775)
    built = run(capsys, transition_info, root=str(root), transition="t-open")["record"]
    assert built["notes"] == ["not private: state folder /var/lib/numa-gate/transitions/t-open is writable by group (mode 0775)"]
