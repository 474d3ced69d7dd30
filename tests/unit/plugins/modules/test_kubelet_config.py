"""Tests for the kubelet_config module, run in-process against a tmp_path root.

The root holds a kubelet main config and a drop-in directory; the machine comes in the
``node`` option (the module never reads sysfs). Nothing outside tmp_path is touched, and the
hostile-input tests (issue 7) check the sha256 of every file beside the root before and after.
"""

import copy
import hashlib
import json
import os
import stat

import pytest
import yaml

from ansible.module_utils.testing import patch_module_args

from ansible_collections.gpusmith.numa_gate.tests.unit.no_hang import no_hang
from ansible_collections.gpusmith.numa_gate.plugins.modules import kubelet_config
# The invalid configurations and the canary are shared with the validator's own tests.
from ansible_collections.gpusmith.numa_gate.tests.unit.plugins import kubelet_cases as CASES

GI = 1 << 30
MAIN_TEXT = (
    "# kubeadm wrote this\n"
    "apiVersion: kubelet.config.k8s.io/v1beta1\n"
    "kind: KubeletConfiguration\n"
    "cgroupDriver: systemd\n"
    "containerRuntimeEndpoint: unix:///run/containerd/containerd.sock\n"
    "kubeReserved:\n  memory: 1Gi\n"
    "systemReserved:\n  memory: 1Gi\n"
)
MAIN = "var/lib/kubelet/config.yaml"
DROPIN_DIR = "etc/kubernetes/kubelet.conf.d"
OURS = DROPIN_DIR + "/50-numa-gate.conf"


CANARY_SETTINGS = {k: v for k, v in CASES.CANARY.items() if k not in ("apiVersion", "kind")}
# The machine as the summary form of the node option (keys as strings, as Ansible passes them).
NODE = {"online_cpus": "0-15", "numa_nodes": {"0": 32 * GI, "1": 32 * GI}, "memory_bytes": 64 * GI}
TOKEN = "Bearer s3cr3t-t0ken-0123456789"


@pytest.fixture
def root(tmp_path):
    base = tmp_path / "node"
    (base / "var/lib/kubelet").mkdir(parents=True)
    (base / MAIN).write_text(MAIN_TEXT)
    os.chmod(base / MAIN, 0o644)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "victim.conf").write_text("apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nmaxPods: 7\n")
    (outside / "config.yaml").write_text(MAIN_TEXT)
    return base


def run(capsys, **args):
    with patch_module_args(args):
        with pytest.raises(SystemExit):
            kubelet_config.main()
    return json.loads(capsys.readouterr().out)


def args_for(root, **extra):
    out = {"root": str(root), "settings": copy.deepcopy(CANARY_SETTINGS), "node": copy.deepcopy(NODE)}
    out.update(extra)
    return out


def warning_texts(result):
    """The warnings' messages (this ansible-core reports each as a WarningSummary)."""
    return [w["event"]["msg"] if isinstance(w, dict) else w for w in result.get("warnings", [])]


def outside_hashes(root):
    """sha256 of every file beside the root (tmp_path/outside and anything else not under root)."""
    found = {}
    for directory, dirnames, filenames in os.walk(root.parent):
        dirnames[:] = [d for d in dirnames if os.path.join(directory, d) != str(root)]
        for name in filenames:
            path = os.path.join(directory, name)
            found[path] = sha(path) if stat.S_ISREG(os.lstat(path).st_mode) else os.readlink(path)
    return found


def snapshot(root):
    """Every path under root with its bytes and mode: 'nothing written' means this is unchanged."""
    state = {}
    for directory, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            path = os.path.join(directory, name)
            info = os.lstat(path)
            data = None
            if stat.S_ISREG(info.st_mode):
                with open(path, "rb") as handle:
                    data = handle.read()
            state[os.path.relpath(path, root)] = (stat.S_IMODE(info.st_mode), data)
    return state


def sha(path):
    with open(path, "rb") as handle:
        return hashlib.sha256(handle.read()).hexdigest()


# ---- invalid configurations: rejected with the kubelet's words, nothing written ----

@pytest.mark.parametrize("name, changes, key, message", CASES.INVALID, ids=[case[0] for case in CASES.INVALID])
def test_invalid_settings_fail_and_write_nothing(capsys, root, name, changes, key, message):
    extra = {}
    if name == "too many NUMA nodes":
        extra["node"] = dict(NODE, numa_nodes={str(i): 8 * GI for i in range(9)})
        changes = {"reservedMemory": [{"numaNode": 0, "limits": {"memory": "2148Mi"}}]}
    settings = kubelet_config.merge.merge_patch(CANARY_SETTINGS, changes)
    if name == "partial evictionHard zeroes memory.available":
        # A drop-in's partial evictionHard merges into the defaults; null is what removes the signal.
        assert settings["evictionHard"] == {"nodefs.available": "10%"}
        settings["evictionHard"] = {"memory.available": None, "nodefs.available": "10%"}
    before = snapshot(root)
    result = run(capsys, **args_for(root, settings=settings, **extra))
    assert result["failed"] is True
    assert result["msg"].startswith("the kubelet would refuse this configuration; nothing was written:\n- ")
    assert message in result["msg"]
    assert (key, message) in [(p["key"], p["message"]) for p in result["problems"]]
    assert snapshot(root) == before


# ---- the canary fragment ------------------------------------------------

def test_first_run_changes_second_does_not(capsys, root):
    first = run(capsys, **args_for(root))
    assert first["changed"] is True
    assert first["problems"] == []
    ours = root / OURS
    assert first["path"] == str(ours)
    assert first["backup_file"] is None
    assert stat.S_IMODE(os.stat(ours).st_mode) == 0o600
    text = ours.read_text()
    assert text.startswith("# Managed by the gpusmith.numa_gate collection (kubelet_config module).\n")
    assert yaml.safe_load(text) == CASES.CANARY
    assert first["effective"]["topologyManagerScope"] == "pod"
    assert first["effective"]["cgroupDriver"] == "systemd"
    assert first["sources"]["cgroupDriver"] == str(root / MAIN)
    assert first["sources"]["reservedMemory"] == str(ours)
    assert first["files"] == [str(root / MAIN), str(ours)]
    assert (root / MAIN).read_text() == MAIN_TEXT

    second = run(capsys, **args_for(root))
    assert second["changed"] is False
    assert "diff" not in second
    # content is the file as written, byte for byte (the kubelet_render role's kubelet-config.yaml artifact).
    assert first["content"] == second["content"] == text


def test_check_mode_changes_nothing(capsys, root):
    before = snapshot(root)
    result = run(capsys, _ansible_check_mode=True, _ansible_diff=True, **args_for(root))
    assert result["changed"] is True
    assert result["diff"]["before"] == ""
    assert "topologyManagerScope: pod" in result["diff"]["after"]
    assert snapshot(root) == before


def test_diff_shows_the_change(capsys, root):
    run(capsys, **args_for(root))
    settings = copy.deepcopy(CANARY_SETTINGS)
    settings["topologyManagerScope"] = "container"
    result = run(capsys, _ansible_diff=True, **args_for(root, settings=settings))
    assert result["changed"] is True
    assert result["diff"]["before_header"] == str(root / OURS)
    assert "topologyManagerScope: pod\n" in result["diff"]["before"]
    assert "topologyManagerScope: container\n" in result["diff"]["after"]
    with open(result["backup_file"], encoding="utf-8") as handle:
        assert handle.read() == result["diff"]["before"]


def test_absent_removes_the_dropin_and_restores_the_tree(capsys, root):
    before = snapshot(root)
    main_sha = sha(root / MAIN)
    run(capsys, **args_for(root))
    written = (root / OURS).read_bytes()
    result = run(capsys, root=str(root), state="absent")
    assert result["changed"] is True
    assert not (root / OURS).exists()
    assert result["content"] is None
    with open(result["backup_file"], "rb") as handle:
        assert handle.read() == written
    assert sha(root / MAIN) == main_sha
    after = snapshot(root)
    created = {path for path in after if path not in before}
    assert all(path.startswith(("etc", "var/lib/numa-gate")) for path in created)
    assert {path: value for path, value in after.items() if path in before} == before
    again = run(capsys, root=str(root), state="absent")
    assert again["changed"] is False


def test_absent_with_a_broken_remaining_config_only_warns(capsys, root):
    run(capsys, **args_for(root))
    (root / DROPIN_DIR / "90-site.conf").write_text(
        "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\ntopologyManagerScope: Pod\n")
    result = run(capsys, root=str(root), state="absent")
    assert result["changed"] is True
    assert not (root / OURS).exists()
    assert result["problems"][0]["source"] == str(root / DROPIN_DIR / "90-site.conf")
    assert "still breaks 1 rule(s)" in json.dumps(result["warnings"])


def test_a_later_dropin_overrides_ours_and_is_named(capsys, root):
    (root / DROPIN_DIR).mkdir(parents=True)
    (root / DROPIN_DIR / "90-site.conf").write_text(
        "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nmemoryManagerPolicy: static\n")
    (root / DROPIN_DIR / "README").write_text("not a drop-in: {{{")
    before = snapshot(root)
    result = run(capsys, **args_for(root))
    assert result["failed"] is True
    [problem] = result["problems"]
    assert problem["source"] == str(root / DROPIN_DIR / "90-site.conf")
    assert problem["message"] == 'unknown policy: "static"'
    assert snapshot(root) == before


def test_existing_dropin_keeps_owner_and_mode(capsys, root):
    run(capsys, **args_for(root))
    ours = root / OURS
    os.chmod(ours, 0o640)
    if os.geteuid() == 0:
        os.chown(ours, 1234, 5678)
    settings = copy.deepcopy(CANARY_SETTINGS)
    settings["topologyManagerScope"] = "container"
    result = run(capsys, **args_for(root, settings=settings))
    assert result["changed"] is True
    info = os.stat(ours)
    assert stat.S_IMODE(info.st_mode) == 0o640
    if os.geteuid() == 0:
        assert (info.st_uid, info.st_gid) == (1234, 5678)


# ---- main mode ------------------------------------------------------------

def test_main_mode_merges_and_restores_the_original_bytes(capsys, root):
    if os.geteuid() == 0:
        os.chown(root / MAIN, 1234, 5678)
    original = sha(root / MAIN)
    settings = {k: v for k, v in CANARY_SETTINGS.items() if k not in ("kubeReserved", "systemReserved")}
    result = run(capsys, mode="main", **args_for(root, settings=settings))
    assert result["changed"] is True
    assert result["path"] == str(root / MAIN)
    with open(result["backup_file"], "rb") as handle:
        assert hashlib.sha256(handle.read()).hexdigest() == original
    assert result["content"] == (root / MAIN).read_text()
    written = yaml.safe_load((root / MAIN).read_text())
    assert written["cgroupDriver"] == "systemd"
    assert written["cpuManagerPolicy"] == "static"
    assert list(written)[:2] == ["apiVersion", "kind"]
    info = os.stat(root / MAIN)
    assert stat.S_IMODE(info.st_mode) == 0o644
    if os.geteuid() == 0:
        assert (info.st_uid, info.st_gid) == (1234, 5678)
    assert not (root / DROPIN_DIR).exists()

    again = run(capsys, mode="main", **args_for(root, settings=settings))
    assert again["changed"] is False

    restored = run(capsys, root=str(root), mode="main", state="absent")
    assert restored["changed"] is True
    assert sha(root / MAIN) == original
    assert (root / MAIN).read_text() == MAIN_TEXT
    assert stat.S_IMODE(os.stat(root / MAIN).st_mode) == 0o644
    assert run(capsys, root=str(root), mode="main", state="absent")["changed"] is False


def test_main_mode_partial_eviction_hard_zeroes_the_rest(capsys, root):
    before = snapshot(root)
    settings = copy.deepcopy(CANARY_SETTINGS)
    settings["evictionHard"] = {"nodefs.available": "10%"}
    result = run(capsys, mode="main", **args_for(root, settings=settings))
    assert result["failed"] is True
    assert ('the total amount "2148Mi" of type "memory" is not equal to the value "2Gi" determined by Node Allocatable feature'
            in result["msg"])
    assert snapshot(root) == before


def test_main_mode_absent_without_backup_fails(capsys, root):
    result = run(capsys, root=str(root), mode="main", state="absent")
    assert result["failed"] is True
    assert result["msg"] == "%s: no baseline kept by this collection in %s: nothing to restore; nothing was written" % (
        root / MAIN, root / "var/lib/numa-gate/backups/baseline")


def test_main_mode_needs_the_main_file(capsys, root):
    os.unlink(root / MAIN)
    result = run(capsys, mode="main", **args_for(root))
    assert result["failed"] is True
    assert result["msg"] == "%s: does not exist; mode=main needs it; nothing was written" % (root / MAIN)


# ---- bad input --------------------------------------------------------------

def test_unparsable_main_config_names_the_file(capsys, root):
    (root / MAIN).write_text(MAIN_TEXT + "systemReserved: {memory: [1Gi\n")
    before = snapshot(root)
    result = run(capsys, **args_for(root))
    assert result["failed"] is True
    assert result["msg"].startswith("%s:11: cannot parse as YAML or JSON" % (root / MAIN))
    assert result["msg"].endswith("; nothing was written")
    assert snapshot(root) == before


def test_unparsable_dropin_names_the_file(capsys, root):
    (root / DROPIN_DIR).mkdir(parents=True)
    (root / DROPIN_DIR / "10-x.conf").write_text("maxPods: 10\n")
    before = snapshot(root)
    result = run(capsys, **args_for(root))
    assert result["failed"] is True
    assert result["msg"].startswith("%s: Object 'Kind' is missing" % (root / DROPIN_DIR / "10-x.conf"))
    assert snapshot(root) == before


def test_dropin_name_must_end_in_conf(capsys, root):
    result = run(capsys, dropin_name="50-numa-gate.yaml", **args_for(root))
    assert result["failed"] is True
    assert "must be a file name ending in .conf" in result["msg"]


def test_settings_required_for_present(capsys, root):
    result = run(capsys, root=str(root), node=NODE)
    assert result["failed"] is True
    assert "settings" in result["msg"]


def test_node_summary_is_the_machine(capsys, root):
    result = run(capsys, **args_for(root, node={"online_cpus": "0-15", "numa_nodes": {"0": 32 * GI, "1": 32 * GI}}))
    assert result["changed"] is True


def test_node_from_topology_facts(capsys, root):
    facts = {"schema_version": 1, "root": "/", "cpus": {"online": "0-15", "offline": "", "isolated": "", "present": "0-15"},
             "numa_nodes": [{"id": 0, "cpus": "0-7", "memory_bytes": 32 * GI}, {"id": 1, "cpus": "8-15", "memory_bytes": 32 * GI}],
             "memory_bytes": 64 * GI, "cores": [], "packages": [], "gpus": [], "nics": [], "warnings": []}
    result = run(capsys, **args_for(root, node=facts))
    assert result["changed"] is True, result.get("msg")


def test_node_is_required_for_present(capsys, root):
    before = snapshot(root)
    args = args_for(root)
    del args["node"]
    result = run(capsys, **args)
    assert result["failed"] is True
    assert result["msg"] == "state is present but all of the following are missing: node"
    assert snapshot(root) == before


def test_a_node_that_is_not_facts_fails_clearly(capsys, root):
    before = snapshot(root)
    result = run(capsys, **args_for(root, node={"online_cpus": "0-15"}))
    assert result["failed"] is True
    assert result["msg"].startswith("node summary numa_nodes None is not a dict")
    assert result["msg"].endswith("; nothing was written")
    assert snapshot(root) == before


def test_the_module_never_reads_sysfs(capsys, root):
    # Nothing under root/sys: the summary is all the module needs.
    assert not (root / "sys").exists()
    settings = copy.deepcopy(CANARY_SETTINGS)
    settings["reservedMemory"] = [{"numaNode": 0, "limits": {"memory": "2148Mi"}}]
    result = run(capsys, **args_for(root, settings=settings, node={"online_cpus": "0-15", "numa_nodes": {"0": 64 * GI}}))
    assert result["changed"] is True


def test_apiversion_and_kind_in_settings_are_refused(capsys, root):
    # Issue 7 rule 7: settings are KubeletConfiguration fields; apiVersion and kind are the file's, written by the module.
    settings = copy.deepcopy(CANARY_SETTINGS)
    settings["apiVersion"] = "v1"
    settings["kind"] = "Other"
    before = snapshot(root)
    result = run(capsys, **args_for(root, settings=settings))
    assert result["failed"] is True
    assert "- settings: apiVersion: apiVersion is not a setting" in result["msg"]
    assert "- settings: kind: kind is not a setting" in result["msg"]
    assert snapshot(root) == before


# ---- removal is never blocked ------------------------------------------------


def test_absent_removes_a_damaged_own_dropin(capsys, root):
    (root / DROPIN_DIR).mkdir(parents=True)
    (root / OURS).write_text("kind: [unclosed\n")
    result = run(capsys, root=str(root), state="absent")
    assert result["changed"] is True
    assert not (root / OURS).exists()
    with open(result["backup_file"]) as handle:
        assert handle.read() == "kind: [unclosed\n"


def test_absent_skips_other_broken_dropins_with_a_warning(capsys, root):
    run(capsys, **args_for(root))
    (root / DROPIN_DIR / "10-broken.conf").write_text("{not yaml: [\n")
    result = run(capsys, root=str(root), state="absent")
    assert result["changed"] is True
    assert not (root / OURS).exists()
    assert (root / DROPIN_DIR / "10-broken.conf").exists()
    assert any("skipped while removing: %s" % (root / DROPIN_DIR / "10-broken.conf") in str(w) for w in result["warnings"])


def test_absent_needs_no_node_facts(capsys, root):
    run(capsys, **args_for(root))
    result = run(capsys, root=str(root), state="absent")
    assert result["changed"] is True
    assert not (root / OURS).exists()


def test_absent_removes_a_symlinked_dropin_not_its_target(capsys, root):
    (root / DROPIN_DIR).mkdir(parents=True)
    elsewhere = root / "srv/ours.conf"
    elsewhere.parent.mkdir(parents=True)
    elsewhere.write_text("apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n")
    (root / OURS).symlink_to(elsewhere)
    outside = root.parent / "outside" / "victim.conf"
    (root / DROPIN_DIR / "60-out.conf").symlink_to(outside)
    before = outside_hashes(root)
    result = run(capsys, root=str(root), state="absent")
    assert result["changed"] is True
    assert not os.path.lexists(root / OURS)
    assert elsewhere.exists()
    # Issue 7 rule 1: the link is removed, never its target, and the module says so.
    assert ("%s is a symlink (to %s) that this collection did not create: removed the link only, its target is left as it is"
            % (root / OURS, elsewhere)) in warning_texts(result)
    with open(result["backup_file"], "rb") as handle:
        assert handle.read() == os.fsencode(str(elsewhere))
    assert outside_hashes(root) == before


# ---- the main file's baseline -----------------------------------------------


def test_main_mode_rollback_restores_the_baseline_after_two_cycles(capsys, root):
    original = sha(root / MAIN)
    settings = {k: v for k, v in CANARY_SETTINGS.items() if k not in ("kubeReserved", "systemReserved")}
    assert run(capsys, mode="main", **args_for(root, settings=settings))["changed"] is True
    other = dict(settings, cpuManagerPolicyOptions={"full-pcpus-only": "false"})
    assert run(capsys, mode="main", **args_for(root, settings=other))["changed"] is True
    restored = run(capsys, root=str(root), mode="main", state="absent")
    assert restored["changed"] is True
    assert sha(root / MAIN) == original


def test_main_mode_refuses_a_tampered_baseline(capsys, root):
    settings = {k: v for k, v in CANARY_SETTINGS.items() if k not in ("kubeReserved", "systemReserved")}
    run(capsys, mode="main", **args_for(root, settings=settings))
    (baseline,) = [p for p in (root / "var/lib/numa-gate/backups/baseline").iterdir() if p.name.endswith(".orig")]
    baseline.write_text("tampered\n")
    before = snapshot(root)
    result = run(capsys, root=str(root), mode="main", state="absent")
    assert result["failed"] is True
    assert "does not match its recorded sha256" in result["msg"]
    assert snapshot(root) == before


# ---- checkpoints the kubelet could not restore -----------------------------------


def _checkpoint(root, name, doc):
    state = root / "var/lib/kubelet" / name
    state.write_text(json.dumps(doc))
    return state


def test_stale_cpu_manager_checkpoint_refuses_and_writes_nothing(capsys, root):
    state = _checkpoint(root, "cpu_manager_state", {"policyName": "none", "defaultCpuSet": "", "checksum": 1})
    before = snapshot(root)
    result = run(capsys, **args_for(root))
    assert result["failed"] is True
    assert ('could not restore state from checkpoint: configured policy "static" differs from state checkpoint policy "none", '
            'please drain this node and delete the CPU manager checkpoint file "%s" before restarting Kubelet' % state) in result["msg"]
    assert snapshot(root) == before


def test_stale_checkpoints_reported_not_fatal_when_the_caller_removes_them(capsys, root):
    state = _checkpoint(root, "cpu_manager_state", {"policyName": "none", "defaultCpuSet": "", "checksum": 1})
    result = run(capsys, _ansible_check_mode=True, stale_checkpoints="report", **args_for(root))
    assert result.get("failed") is not True and result["changed"] is True
    assert result["stale_checkpoints"] == [
        'could not restore state from checkpoint: configured policy "static" differs from state checkpoint policy "none", '
        'please drain this node and delete the CPU manager checkpoint file "%s" before restarting Kubelet' % state]


def test_stale_memory_manager_checkpoint_in_the_137_format_refuses(capsys, root):
    inner = {"policyName": "None", "machineState": {}, "entries": {}, "checksum": 1}
    state = _checkpoint(root, "memory_manager_state", {"data": json.dumps(inner), "dataChecksum": 2})
    result = run(capsys, **args_for(root))
    assert result["failed"] is True
    assert 'configured policy "Static" differs from state checkpoint policy "None"' in result["msg"]
    assert "memory manager checkpoint file \"%s\"" % state in result["msg"]


def test_checkpoints_with_the_target_policies_are_fine(capsys, root):
    _checkpoint(root, "cpu_manager_state", {"policyName": "static", "defaultCpuSet": "0-15", "checksum": 1})
    _checkpoint(root, "memory_manager_state", {"policyName": "Static", "machineState": {}, "checksum": 1})
    result = run(capsys, **args_for(root))
    assert result["changed"] is True
    assert result["stale_checkpoints"] == []


# ---- memory capacity --------------------------------------------------------------


def test_percentage_eviction_is_resolved_against_memory_bytes(capsys, root):
    # 50% (exact in the kubelet's float32 arithmetic) of an 8Gi MemTotal is 4Gi: with kube and system
    # reserved 1Gi each the reservation must total 6Gi; against a 64Gi MemTotal it is 34Gi.
    settings = dict(copy.deepcopy(CANARY_SETTINGS), evictionHard={"memory.available": "50%"},
                    reservedMemory=[{"numaNode": 0, "limits": {"memory": "4Gi"}}, {"numaNode": 1, "limits": {"memory": "2Gi"}}])
    numa = {"0": 64 * GI, "1": 64 * GI}
    accepted = run(capsys, **args_for(root, settings=settings, node={"online_cpus": "0-15", "numa_nodes": numa, "memory_bytes": 8 * GI}))
    assert accepted["changed"] is True, accepted.get("msg")
    (root / OURS).unlink()
    refused = run(capsys, **args_for(root, settings=settings, node={"online_cpus": "0-15", "numa_nodes": numa, "memory_bytes": 64 * GI}))
    assert refused["failed"] is True
    assert 'the total amount "6Gi" of type "memory" is not equal to the value "34Gi"' in refused["msg"]


# ---- hostile input (issue 7) ----------------------------------------------------------


def test_a_symlinked_dropin_is_never_written_through(capsys, root):
    # Rule 1: the drop-in was a link to a file outside root; it used to be overwritten there.
    victim = root.parent / "outside" / "victim.conf"
    (root / DROPIN_DIR).mkdir(parents=True)
    (root / OURS).symlink_to(victim)
    before, inside = outside_hashes(root), snapshot(root)
    result = run(capsys, **args_for(root))
    assert result["failed"] is True
    assert result["msg"] == ("%s is a symlink (to %s) that this collection did not create; not replaced: remove the link or choose "
                             "another dropin_name; nothing was written" % (root / OURS, victim))
    assert outside_hashes(root) == before
    assert snapshot(root) == inside


def test_a_config_dir_with_dotdot_stays_inside_root(capsys, root):
    # Rule 1: "../.." once climbed out of root.
    before = outside_hashes(root)
    result = run(capsys, config_dir="/etc/../../../../../outside", **args_for(root))
    assert result["changed"] is True, result.get("msg")
    assert result["path"] == str(root / "outside" / "50-numa-gate.conf")
    assert (root / "outside" / "50-numa-gate.conf").exists()
    assert outside_hashes(root) == before


def test_a_symlinked_main_file_is_not_rewritten_in_main_mode(capsys, root):
    # Rule 1: a main file linked to a file outside root was rewritten there.
    target = root.parent / "outside" / "config.yaml"
    os.unlink(root / MAIN)
    (root / MAIN).symlink_to(target)
    before, inside = outside_hashes(root), snapshot(root)
    settings = {k: v for k, v in CANARY_SETTINGS.items() if k not in ("kubeReserved", "systemReserved")}
    result = run(capsys, mode="main", **args_for(root, settings=settings))
    assert result["failed"] is True
    assert result["msg"] == ("%s is a symlink (to %s); mode=main does not replace a link it did not create: set path to the file itself; "
                             "nothing was written" % (root / MAIN, target))
    assert outside_hashes(root) == before
    assert snapshot(root) == inside


def test_a_fifo_dropin_never_blocks(capsys, root):
    # Rule 3.
    (root / DROPIN_DIR).mkdir(parents=True)
    os.mkfifo(root / DROPIN_DIR / "10-fifo.conf")
    before = snapshot(root)
    with no_hang():
        result = run(capsys, **args_for(root))
    assert result["failed"] is True
    assert result["msg"] == "%s is a FIFO, not a regular file; not read; nothing was written" % (root / DROPIN_DIR / "10-fifo.conf")
    assert snapshot(root) == before
    with no_hang():
        removal = run(capsys, root=str(root), state="absent")
    assert removal["changed"] is False
    assert "skipped while removing: %s is a FIFO, not a regular file; not read" % (root / DROPIN_DIR / "10-fifo.conf") in warning_texts(removal)


def test_a_fifo_main_file_never_blocks(capsys, root):
    os.unlink(root / MAIN)
    os.mkfifo(root / MAIN)
    with no_hang():
        result = run(capsys, **args_for(root))
    assert result["failed"] is True
    assert result["msg"] == "%s is a FIFO, not a regular file; not read; nothing was written" % (root / MAIN)


def test_a_fifo_checkpoint_never_blocks(capsys, root):
    os.mkfifo(root / "var/lib/kubelet/cpu_manager_state")
    before = snapshot(root)
    with no_hang():
        result = run(capsys, **args_for(root))
    assert result["failed"] is True
    assert str(root / "var/lib/kubelet/cpu_manager_state") in result["msg"]
    assert "FIFO" in result["msg"]
    assert snapshot(root) == before


def test_an_alias_bomb_in_the_main_file_is_refused_quickly_and_writes_nothing(capsys, root):
    # Rule 4: a 411-byte "billion laughs" used to hang both config modules after the drop-in was written.
    bomb = MAIN_TEXT + 'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n'
    for index, name in enumerate("bcdefghi"):
        bomb += "%s: &%s [%s]\n" % (name, name, ",".join(["*" + "abcdefghi"[index]] * 9))
    (root / MAIN).write_text(bomb)
    before = snapshot(root)
    with no_hang():
        result = run(capsys, **args_for(root))
    assert result["failed"] is True
    assert result["msg"].startswith(str(root / MAIN))
    assert result["msg"].endswith("; nothing was written")
    assert len(json.dumps(result)) < 20000
    assert snapshot(root) == before


def test_a_refused_apply_prints_no_credential(capsys, root):
    # Rule 5: a failed apply printed the merged configuration with the bearer token.
    settings = dict(copy.deepcopy(CANARY_SETTINGS), staticPodURL="https://static.example/pods",
                    staticPodURLHeader={"Authorization": [TOKEN]}, topologyManagerScope="Pod")
    before = snapshot(root)
    result = run(capsys, _ansible_diff=True, **args_for(root, settings=settings))
    assert result["failed"] is True
    assert result["effective"]["staticPodURLHeader"] == {"Authorization": ["********"]}
    assert result["invocation"]["module_args"]["settings"]["staticPodURLHeader"] == {"Authorization": ["********"]}
    assert "s3cr3t-t0ken" not in json.dumps(result)
    assert snapshot(root) == before


def test_a_written_credential_is_masked_in_the_result_and_diff_but_kept_in_the_file(capsys, root):
    settings = dict(copy.deepcopy(CANARY_SETTINGS), staticPodURLHeader={"Authorization": [TOKEN]})
    result = run(capsys, _ansible_diff=True, **args_for(root, settings=settings))
    assert result["changed"] is True, result.get("msg")
    assert "s3cr3t-t0ken" not in json.dumps(result)
    assert "staticPodURLHeader" in result["diff"]["after"]
    assert "topologyManagerScope: pod" in result["diff"]["after"]
    assert yaml.safe_load((root / OURS).read_text())["staticPodURLHeader"] == {"Authorization": [TOKEN]}
    # Changing it again: the old value in the diff's "before" is masked too.
    settings["staticPodURLHeader"] = {"Authorization": ["Bearer another-t0ken-9876543210"]}
    again = run(capsys, _ansible_diff=True, **args_for(root, settings=settings))
    assert again["changed"] is True
    assert "s3cr3t-t0ken" not in json.dumps(again) and "another-t0ken" not in json.dumps(again)
    removed = run(capsys, _ansible_diff=True, root=str(root), state="absent")
    assert removed["changed"] is True
    assert "another-t0ken" not in json.dumps(removed)


def test_backups_are_private_and_a_long_config_dir_still_rolls_back(capsys, root):
    # Rule 6: backup_dir was 0755 in main mode, backups 0644; a long config_dir broke every later update.
    os.umask(0o022)
    long_dir = "/etc/" + "/".join("kubelet-drop-in-directory-level-%02d" % i for i in range(8))
    first = run(capsys, config_dir=long_dir, **args_for(root))
    assert first["changed"] is True, first.get("msg")
    settings = dict(copy.deepcopy(CANARY_SETTINGS), topologyManagerScope="container")
    second = run(capsys, config_dir=long_dir, **args_for(root, settings=settings))
    assert second["changed"] is True, second.get("msg")
    assert len(os.path.basename(second["backup_file"])) <= 255
    rollback = run(capsys, root=str(root), config_dir=long_dir, state="absent")
    assert rollback["changed"] is True, rollback.get("msg")
    assert not os.path.lexists(first["path"])
    backup_dir = root / "var/lib/numa-gate/backups"
    for folder in (root / "var/lib/numa-gate", backup_dir):
        assert stat.S_IMODE(os.stat(folder).st_mode) == 0o700
    assert sorted(stat.S_IMODE(os.stat(p).st_mode) for p in backup_dir.iterdir()) == [0o600] * 4


def test_main_mode_backup_dir_is_0700(capsys, root):
    os.umask(0o022)
    settings = {k: v for k, v in CANARY_SETTINGS.items() if k not in ("kubeReserved", "systemReserved")}
    result = run(capsys, mode="main", **args_for(root, settings=settings))
    assert result["changed"] is True
    for folder in ("var/lib/numa-gate", "var/lib/numa-gate/backups", "var/lib/numa-gate/backups/baseline"):
        assert stat.S_IMODE(os.stat(root / folder).st_mode) == 0o700, folder
    assert stat.S_IMODE(os.stat(result["backup_file"]).st_mode) == 0o600


@pytest.mark.parametrize("option", ["root", "path", "config_dir", "kubelet_root_dir", "backup_dir", "dropin_name"])
def test_an_empty_path_is_refused(capsys, root, option):
    # Rule 8: root "" silently targeted the live node's paths.
    before = snapshot(root)
    args = args_for(root)
    args[option] = ""
    result = run(capsys, **args)
    assert result["failed"] is True
    if option == "root":
        assert result["msg"] == ('root must not be empty (an empty value is not a default): give "/" for the node itself, or a folder; '
                                 "nothing was written")
    elif option == "dropin_name":
        assert result["msg"] == ("dropin_name '' must be a file name ending in .conf (the kubelet reads only *.conf drop-ins); "
                                 "nothing was written")
    else:
        assert result["msg"] == ("%s must not be empty (an empty value is not a default): give a path, or leave the option out; "
                                 "nothing was written" % option)
    assert snapshot(root) == before


def test_the_config_step_journals_the_file_it_creates_then_what_it_wrote(capsys, root):
    from ansible_collections.gpusmith.numa_gate.plugins.module_utils._transition.journal import transitions
    transitions.open_transition(str(root), "/var/lib/numa-gate", "enable", "20261201T090000Z")
    path = root / "var/lib/numa-gate/transitions/20261201T090000Z/journal.jsonl"
    option = {"transition": "20261201T090000Z", "step": "config"}
    checked = run(capsys, _ansible_check_mode=True, journal=option, **args_for(root))
    assert checked["changed"] is True and checked["journal"]["events"] == [] and not path.exists()
    first = run(capsys, journal=option, **args_for(root))
    written = [json.loads(line) for line in path.read_text().splitlines()]
    dropin = "/" + OURS
    assert [(e["step"], e["event"], e.get("outcome"), e["changed"]) for e in written] == [
        ("config", "started", None, {"files": [{"path": dropin, "backup": None}]}),
        ("config", "finished", "changed", {"files": [{"path": dropin, "backup": None}]})]
    assert first["journal"]["events"] == written
    # The step again on a node that holds the target: nothing to create, nothing written, the step recorded ok.
    run(capsys, journal=option, **args_for(root))
    again = [json.loads(line) for line in path.read_text().splitlines()][2:]
    assert [(e["event"], e.get("outcome"), e["changed"]) for e in again] == [("started", None, {"files": []}), ("finished", "ok", {"files": []})]


def test_a_refused_configuration_records_nothing(capsys, root):
    from ansible_collections.gpusmith.numa_gate.plugins.module_utils._transition.journal import transitions
    transitions.open_transition(str(root), "/var/lib/numa-gate", "enable", "20261201T090000Z")
    settings = dict(copy.deepcopy(CANARY_SETTINGS), cpuManagerPolicy="dynamic")
    result = run(capsys, journal={"transition": "20261201T090000Z", "step": "config"}, **args_for(root, settings=settings))
    assert result["failed"] is True
    assert result["msg"] == ('the kubelet would refuse this configuration; nothing was written:\n- %s: cpuManagerPolicy: unknown policy: "dynamic" '
                             '(policy names are case-sensitive: none | static)' % (root / OURS))
    assert not (root / "var/lib/numa-gate/transitions/20261201T090000Z/journal.jsonl").exists()
