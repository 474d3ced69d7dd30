"""kubelet_baseline and transition_journal, in-process, against a tmp_path root."""

import base64
import os
import hashlib
import json

import pytest

from ansible.module_utils.testing import patch_module_args

from ansible_collections.gpusmith.numa_gate.plugins.modules import kubelet_baseline, transition_journal

FLAGS = {"config": "/var/lib/kubelet/config.yaml", "config_dir": "/etc/kubernetes/kubelet.conf.d"}
MAIN = b"apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nmaxPods: 110\n"


def run(capsys, module, **args):
    with patch_module_args(args):
        with pytest.raises(SystemExit):
            module.main()
    return json.loads(capsys.readouterr().out)


@pytest.fixture
def root(tmp_path):
    (tmp_path / "var/lib/kubelet").mkdir(parents=True)
    (tmp_path / "var/lib/kubelet/config.yaml").write_bytes(MAIN)
    dropins = tmp_path / "etc/kubernetes/kubelet.conf.d"
    (dropins / "sub").mkdir(parents=True)
    (dropins / "20-site.conf").write_bytes(b"kind: KubeletConfiguration\n")
    (dropins / "sub/05-deep.conf").write_bytes(b"kind: KubeletConfiguration\n")
    (dropins / "README").write_bytes(b"not a drop-in\n")
    (tmp_path / "var/lib/kubelet/cpu_manager_state").write_bytes(b'{"policyName":"none","defaultCpuSet":"0-7","checksum":0}')
    return tmp_path


def _tree(path):
    return {str(p.relative_to(path)): hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(path.rglob("*")) if p.is_file()}


def test_check_mode_writes_nothing(capsys, root):
    result = run(capsys, kubelet_baseline, root=str(root), kubelet_flags=FLAGS, _ansible_check_mode=True)
    assert result["changed"] is True and result["created"] is False
    assert not (root / "var/lib/numa-gate").exists()


def test_written_once_then_left_byte_identical(capsys, root):
    first = run(capsys, kubelet_baseline, root=str(root), kubelet_flags=FLAGS)
    assert first["changed"] is True and first["created"] is True and first["intact"] is True
    assert [(f["path"], f["role"]) for f in first["manifest"]["files"]] == [
        ("/var/lib/kubelet/config.yaml", "main"),
        ("/etc/kubernetes/kubelet.conf.d/20-site.conf", "dropin"),
        ("/etc/kubernetes/kubelet.conf.d/sub/05-deep.conf", "dropin"),
        ("/var/lib/kubelet/cpu_manager_state", "checkpoint"),
        ("/var/lib/kubelet/memory_manager_state", "checkpoint")]
    assert first["manifest"]["facts"]["flags"] == FLAGS
    assert base64.b64decode(first["content"]["/var/lib/kubelet/config.yaml"]) == MAIN
    kept = _tree(root / "var/lib/numa-gate/baseline")
    (root / "var/lib/kubelet/config.yaml").write_bytes(MAIN + b"cpuManagerPolicy: static\n")
    (root / "etc/kubernetes/kubelet.conf.d/50-numa-gate.conf").write_bytes(b"kind: KubeletConfiguration\n")
    second = run(capsys, kubelet_baseline, root=str(root), kubelet_flags=FLAGS)
    assert second["changed"] is False and second["created"] is False and second["intact"] is True
    assert _tree(root / "var/lib/numa-gate/baseline") == kept
    assert base64.b64decode(second["content"]["/var/lib/kubelet/config.yaml"]) == MAIN


def test_tampering_is_reported(capsys, root):
    first = run(capsys, kubelet_baseline, root=str(root), kubelet_flags=FLAGS)
    (root / "var/lib/numa-gate/baseline/files/0").write_bytes(b"tampered\n")
    second = run(capsys, kubelet_baseline, root=str(root), kubelet_flags=FLAGS, return_content=False)
    assert second["changed"] is False and second["intact"] is False
    assert second["problems"] == ["/var/lib/kubelet/config.yaml: its copy files/0 no longer matches the manifest's sha256 %s"
                                  % first["manifest"]["files"][0]["sha256"]]


def test_state_dir_that_is_a_file(capsys, root):
    (root / "var/lib/numa-gate").write_text("x")
    result = run(capsys, kubelet_baseline, root=str(root), kubelet_flags=FLAGS)
    assert result["failed"] is True
    assert result["msg"] == "baseline /var/lib/numa-gate/baseline: a folder on its path is not a folder; nothing was changed"
    assert (root / "var/lib/numa-gate").read_text() == "x"


def test_journal_open_record_resume_close(capsys, root):
    opened = run(capsys, transition_journal, root=str(root), action="open", target="enable", new_id="20261201T090000Z")
    assert opened["changed"] is True and opened["resumed"] is False
    assert opened["transition"] == {"id": "20261201T090000Z", "target": "enable"}
    for step in ("baseline", "decide", "cordon"):
        run(capsys, transition_journal, root=str(root), action="record", transition="20261201T090000Z", step=step, event="started")
        run(capsys, transition_journal, root=str(root), action="record", transition="20261201T090000Z", step=step, event="finished",
            outcome="changed", changed={"step": step})
    # A second run (the first was killed after the cordon) finds the open transition.
    again = run(capsys, transition_journal, root=str(root), action="open", target="enable", new_id="20261201T091500Z")
    assert again["changed"] is False and again["resumed"] is True and again["transition"]["id"] == "20261201T090000Z"
    assert again["journal"]["last_finished"] == "cordon"
    assert again["journal"]["steps"]["cordon"]["changed"] == {"step": "cordon"}
    refused = run(capsys, transition_journal, root=str(root), action="open", target="rollback", new_id="x1")
    assert refused["msg"] == ("transition 20261201T090000Z to enable is still open on this node; re-run enable to finish it "
                              "before a rollback")
    closed = run(capsys, transition_journal, root=str(root), action="close", transition="20261201T090000Z")
    assert closed["changed"] is True
    assert run(capsys, transition_journal, root=str(root), action="close", transition="20261201T090000Z")["changed"] is False
    fresh = run(capsys, transition_journal, root=str(root), action="open", target="rollback", new_id="20261201T100000Z")
    assert fresh["resumed"] is False and fresh["journal"]["steps"] == {}


@pytest.mark.parametrize("new_id", ["../../etc", "a/b", ".hidden", "x" * 65])
def test_transition_ids_are_names_not_paths(capsys, root, new_id):
    before = sorted(str(p) for p in root.rglob("*"))
    result = run(capsys, transition_journal, root=str(root), action="open", target="enable", new_id=new_id)
    assert result["failed"] is True
    assert result["msg"] == ("transition id %r must be 1-64 letters, digits, '.', '_' or '-', not starting with a punctuation mark"
                             % new_id)
    assert sorted(str(p) for p in root.rglob("*")) == before


def test_garbage_journal_is_a_clear_error(capsys, root):
    run(capsys, transition_journal, root=str(root), action="open", target="enable", new_id="t1")
    (root / "var/lib/numa-gate/transitions/t1/journal.jsonl").write_text("garbage\n")
    result = run(capsys, transition_journal, root=str(root), action="read", transition="t1")
    assert result["msg"] == "line 1 of journal %s is not a journal entry: 'garbage'; nothing was changed" % (
        root / "var/lib/numa-gate/transitions/t1/journal.jsonl")


def test_rollback_restores_the_baseline_bytes_and_removes_our_dropin(capsys, root):
    run(capsys, kubelet_baseline, root=str(root), kubelet_flags=FLAGS)
    main = root / "var/lib/kubelet/config.yaml"
    os.chmod(main, 0o640)
    main.write_bytes(MAIN + b"cpuManagerPolicy: static\n")
    ours = root / "etc/kubernetes/kubelet.conf.d/50-numa-gate.conf"
    ours.write_bytes(b"kind: KubeletConfiguration\ncpuManagerPolicy: static\n")
    theirs = root / "etc/kubernetes/kubelet.conf.d/60-theirs.conf"
    theirs.write_bytes(b"kind: KubeletConfiguration\n")
    args = dict(root=str(root), kubelet_flags=FLAGS, state="restored", backup_dir="/var/lib/numa-gate/transitions/t1/backups",
                remove=["/etc/kubernetes/kubelet.conf.d/50-numa-gate.conf"], return_content=False)
    check = run(capsys, kubelet_baseline, _ansible_check_mode=True, _ansible_diff=True, **args)
    assert check["changed"] is True and main.read_bytes() != MAIN and ours.exists()
    assert check["diff"]["before"] == "/var/lib/kubelet/config.yaml\n/etc/kubernetes/kubelet.conf.d/50-numa-gate.conf\n"
    result = run(capsys, kubelet_baseline, **args)
    assert result["changed"] is True
    assert [(r["path"], r["action"]) for r in result["restored"]] == [
        ("/var/lib/kubelet/config.yaml", "restored"), ("/etc/kubernetes/kubelet.conf.d/50-numa-gate.conf", "removed")]
    assert main.read_bytes() == MAIN
    assert oct(os.stat(main).st_mode & 0o777) == "0o644"
    assert not ours.exists() and theirs.exists()
    saved = result["restored"][0]["backup"]
    assert open(saved, "rb").read() == MAIN + b"cpuManagerPolicy: static\n"
    assert result["drift"] == []
    again = run(capsys, kubelet_baseline, **args)
    assert again["changed"] is False and again["restored"] == []


def test_restore_refuses_a_tampered_baseline(capsys, root):
    run(capsys, kubelet_baseline, root=str(root), kubelet_flags=FLAGS)
    (root / "var/lib/numa-gate/baseline/files/0").write_bytes(b"tampered\n")
    (root / "var/lib/kubelet/config.yaml").write_bytes(b"changed\n")
    result = run(capsys, kubelet_baseline, root=str(root), kubelet_flags=FLAGS, state="restored", backup_dir="/b")
    assert result["failed"] is True and result["msg"].startswith("the baseline at /var/lib/numa-gate/baseline does not match its manifest")
    assert (root / "var/lib/kubelet/config.yaml").read_bytes() == b"changed\n"


def test_transition_restore_puts_back_and_removes(capsys, root):
    from ansible_collections.gpusmith.numa_gate.plugins.modules import transition_restore
    from ansible_collections.gpusmith.numa_gate.plugins.module_utils._node_files import backups
    state = root / "var/lib/kubelet/cpu_manager_state"
    original = state.read_bytes()
    saved = backups.remove(str(state), str(root / "var/lib/numa-gate/transitions/t1/backups"))
    state.write_bytes(b'{"policyName":"static"}')
    ours = root / "etc/kubernetes/kubelet.conf.d/50-numa-gate.conf"
    ours.write_bytes(b"kind: KubeletConfiguration\n")
    files = [{"path": "/var/lib/kubelet/cpu_manager_state", "backup": saved[len(str(root)):]},
             {"path": "/etc/kubernetes/kubelet.conf.d/50-numa-gate.conf", "backup": None}]
    args = dict(root=str(root), files=files, backup_dir="/var/lib/numa-gate/transitions/t1/restore")
    check = run(capsys, transition_restore, _ansible_check_mode=True, **args)
    assert [r["action"] for r in check["restored"]] == ["would restore", "would remove"] and ours.exists()
    result = run(capsys, transition_restore, **args)
    assert [(r["path"], r["action"]) for r in result["restored"]] == [
        ("/var/lib/kubelet/cpu_manager_state", "restored"), ("/etc/kubernetes/kubelet.conf.d/50-numa-gate.conf", "removed")]
    assert state.read_bytes() == original and not ours.exists()
    assert open(result["restored"][0]["saved"], "rb").read() == b'{"policyName":"static"}'
    again = run(capsys, transition_restore, **args)
    assert again["changed"] is False and again["restored"] == []


# Issue 16: nothing in a kept manifest is taken on trust; a restore checks everything before its first write.

def _manifest(root):
    return root / "var/lib/numa-gate/baseline/manifest.json"


def _edit_manifest(root, index, **fields):
    manifest = json.loads(_manifest(root).read_text())
    manifest["files"][index].update(fields)
    for key in [key for key, value in fields.items() if value is None]:
        del manifest["files"][index][key]
    _manifest(root).write_text(json.dumps(manifest))


def _refused(capsys, root, message, **args):
    from ansible_collections.gpusmith.numa_gate.tests.unit.tree_state import bounded, snapshot
    before = snapshot(root)
    result = bounded(lambda: run(capsys, kubelet_baseline, root=str(root), kubelet_flags=FLAGS, **args))
    assert result["failed"] is True
    assert result["msg"] == message
    assert snapshot(root) == before
    return result


@pytest.mark.parametrize("copy, shown", [("/etc/shadow", "'/etc/shadow'"), ("files/../../../../etc/shadow", "'files/../../../../etc/shadow'"),
                                         ("../manifest.json", "'../manifest.json'")])
def test_a_manifest_copy_out_of_the_store_is_refused_and_never_returned(capsys, root, copy, shown):
    run(capsys, kubelet_baseline, root=str(root), kubelet_flags=FLAGS)
    (root / "etc/shadow").write_text("root:secret-hash:0:0\n")
    _edit_manifest(root, 0, copy=copy)
    result = _refused(capsys, root, "baseline /var/lib/numa-gate/baseline/manifest.json: files[0].copy %s is not a copy of the store "
                      "(files/<n>): never an absolute path or one with '..'; nothing was changed" % shown)
    assert "secret-hash" not in json.dumps(result) and base64.b64encode(b"root:secret-hash").decode()[:12] not in json.dumps(result)


@pytest.mark.parametrize("fields, message", [
    ({"mode": 420}, "files[0].mode 420 is not an octal mode such as 0600"),
    ({"uid": "root"}, "files[0].uid 'root' is not a whole number of at least 0"),
    ({"role": "evil"}, "files[0].role 'evil' is not one of main, dropin, checkpoint"),
    ({"path": "etc/x"}, "files[0].path 'etc/x' is not an absolute node path"),
    ({"sha256": None}, "files[0].sha256 None is not 64 hex digits"),
])
def test_manifest_entries_of_the_wrong_shape(capsys, root, fields, message):
    run(capsys, kubelet_baseline, root=str(root), kubelet_flags=FLAGS)
    _edit_manifest(root, 0, **fields)
    _refused(capsys, root, "baseline /var/lib/numa-gate/baseline/manifest.json: %s; nothing was changed" % message)


def test_a_manifest_entry_that_is_not_a_mapping(capsys, root):
    run(capsys, kubelet_baseline, root=str(root), kubelet_flags=FLAGS)
    manifest = json.loads(_manifest(root).read_text())
    manifest["files"][2] = ["/etc/shadow"]
    _manifest(root).write_text(json.dumps(manifest))
    _refused(capsys, root, "baseline /var/lib/numa-gate/baseline/manifest.json: files[2] is a list, not a mapping; nothing was changed")


def test_a_deeply_nested_manifest(capsys, root):
    run(capsys, kubelet_baseline, root=str(root), kubelet_flags=FLAGS)
    _manifest(root).write_text('{"files": ' + "[" * 100000)
    _refused(capsys, root, "baseline /var/lib/numa-gate/baseline/manifest.json is not JSON (nested too deeply to parse (more levels of "
             "arrays and objects than the parser's recursion limit)); nothing was changed")


def test_a_symlinked_files_folder_is_not_read(capsys, root, tmp_path_factory):
    run(capsys, kubelet_baseline, root=str(root), kubelet_flags=FLAGS)
    store = root / "var/lib/numa-gate/baseline"
    outside = tmp_path_factory.mktemp("planted")
    for copy in (store / "files").iterdir():
        (outside / copy.name).write_bytes(copy.read_bytes())
    import shutil
    shutil.rmtree(str(store / "files"))
    os.symlink(str(outside), str(store / "files"))
    _refused(capsys, root, "baseline /var/lib/numa-gate/baseline/files is a symlink, not a folder; not read")


def test_a_restore_refuses_before_its_first_write(capsys, root):
    """The main file and a drop-in differ; the drop-in's path is now a FIFO: nothing is restored, nothing is backed up."""
    run(capsys, kubelet_baseline, root=str(root), kubelet_flags=FLAGS)
    (root / "var/lib/kubelet/config.yaml").write_bytes(MAIN + b"cpuManagerPolicy: static\n")
    os.unlink(str(root / "etc/kubernetes/kubelet.conf.d/20-site.conf"))
    os.mkfifo(str(root / "etc/kubernetes/kubelet.conf.d/20-site.conf"))
    _refused(capsys, root, "/etc/kubernetes/kubelet.conf.d/20-site.conf is a FIFO, not a regular file; not read; nothing was changed",
             state="restored", backup_dir="/var/lib/numa-gate/transitions/t1/backups", return_content=False)
    assert not (root / "var/lib/numa-gate/transitions").exists()


def test_a_restore_over_a_symlink_is_refused_up_front(capsys, root):
    run(capsys, kubelet_baseline, root=str(root), kubelet_flags=FLAGS)
    (root / "var/lib/kubelet/config.yaml").write_bytes(MAIN + b"cpuManagerPolicy: static\n")
    os.unlink(str(root / "etc/kubernetes/kubelet.conf.d/20-site.conf"))
    os.symlink("/etc/passwd", str(root / "etc/kubernetes/kubelet.conf.d/20-site.conf"))
    _refused(capsys, root, "/etc/kubernetes/kubelet.conf.d/20-site.conf is a symlink now (to /etc/passwd) where the baseline has a file: "
             "not written through it; remove the link and re-run; nothing was restored",
             state="restored", backup_dir="/var/lib/numa-gate/transitions/t1/backups", return_content=False)


def test_a_store_writable_by_group_is_not_restored_from(capsys, root):
    run(capsys, kubelet_baseline, root=str(root), kubelet_flags=FLAGS)
    (root / "var/lib/kubelet/config.yaml").write_bytes(b"changed\n")
    os.chmod(str(root / "var/lib/numa-gate/baseline/files"), 0o770)
    _refused(capsys, root, "state folder /var/lib/numa-gate/baseline/files is writable by group (mode 0770): the collection's state must "
             "be private (owned by the user running the module, folders 0700, files 0600, writable by no one else), so it is not trusted: "
             "give it back with chown and chmod, or remove it; nothing was changed",
             state="restored", backup_dir="/b", return_content=False)


def test_a_baseline_symlink_is_refused_before_the_main_file_is_restored(capsys, root):
    dropin = root / "etc/kubernetes/kubelet.conf.d/20-site.conf"
    os.unlink(str(dropin))
    os.symlink("sub/05-deep.conf", str(dropin))
    run(capsys, kubelet_baseline, root=str(root), kubelet_flags=FLAGS)
    (root / "var/lib/kubelet/config.yaml").write_bytes(MAIN + b"cpuManagerPolicy: static\n")
    os.unlink(str(dropin))
    dropin.write_bytes(b"kind: KubeletConfiguration\n")
    _refused(capsys, root, "/etc/kubernetes/kubelet.conf.d/20-site.conf was a symlink (to sub/05-deep.conf) in the baseline; restore it by "
             "hand; nothing was restored", state="restored", backup_dir="/var/lib/numa-gate/transitions/t1/backups", return_content=False)


def test_a_rollbacks_config_step_journals_what_it_put_back(capsys, root):
    run(capsys, kubelet_baseline, root=str(root), kubelet_flags=FLAGS)
    run(capsys, transition_journal, root=str(root), action="open", target="rollback", new_id="t1")
    main = root / "var/lib/kubelet/config.yaml"
    main.write_bytes(MAIN + b"cpuManagerPolicy: static\n")
    option = {"transition": "t1", "step": "config"}
    args = dict(root=str(root), kubelet_flags=FLAGS, state="restored", backup_dir="/var/lib/numa-gate/transitions/t1/backups", return_content=False)
    journal_file = root / "var/lib/numa-gate/transitions/t1/journal.jsonl"
    run(capsys, kubelet_baseline, _ansible_check_mode=True, journal=option, **args)
    assert not journal_file.exists()
    result = run(capsys, kubelet_baseline, journal=option, **args)
    written = [json.loads(line) for line in journal_file.read_text().splitlines()]
    assert [(e["step"], e["event"], e.get("outcome")) for e in written] == [("config", "started", None), ("config", "finished", "changed")]
    assert written[1]["changed"] == {"files": result["restored"]} and result["restored"][0]["path"] == "/var/lib/kubelet/config.yaml"
    assert result["journal"]["events"] == written
    refused = run(capsys, kubelet_baseline, root=str(root), kubelet_flags=FLAGS, journal=option)
    assert refused["msg"] == "journal goes with state=restored (the rollback's config step), not state=present; nothing was changed"
