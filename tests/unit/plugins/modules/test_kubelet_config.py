"""Tests for the kubelet_config module, run in-process against a tmp_path root.

The root holds a kubelet main config, a drop-in directory and the sysfs/procfs
files the module reads; nothing outside tmp_path is touched.
"""

import copy
import hashlib
import json
import os
import shutil
import stat

import pytest
import yaml

from ansible.module_utils.testing import patch_module_args

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


@pytest.fixture
def root(tmp_path):
    base = tmp_path / "node"
    (base / "var/lib/kubelet").mkdir(parents=True)
    (base / MAIN).write_text(MAIN_TEXT)
    os.chmod(base / MAIN, 0o644)
    cpu = base / "sys/devices/system/cpu"
    cpu.mkdir(parents=True)
    (cpu / "online").write_text("0-15\n")
    for index in range(16):
        (cpu / ("cpu%d" % index)).mkdir()
    for node in (0, 1):
        path = base / ("sys/devices/system/node/node%d" % node)
        path.mkdir(parents=True)
        (path / "meminfo").write_text("Node %d MemTotal:       %d kB\nNode %d MemFree: 1 kB\n" % (node, 32 * GI // 1024, node))
    (base / "proc").mkdir()
    (base / "proc/meminfo").write_text("MemTotal:       %d kB\nMemFree:        1 kB\n" % (64 * GI // 1024))
    return base


def run(capsys, **args):
    with patch_module_args(args):
        with pytest.raises(SystemExit):
            kubelet_config.main()
    return json.loads(capsys.readouterr().out)


def args_for(root, **extra):
    out = {"root": str(root), "settings": copy.deepcopy(CANARY_SETTINGS)}
    out.update(extra)
    return out


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
        extra["numa_nodes"] = {str(i): 8 * GI for i in range(9)}
        changes = {"reservedMemory": [{"numaNode": 0, "limits": {"memory": "2148Mi"}}]}
    settings = kubelet_config._kubelet_merge.merge_patch(CANARY_SETTINGS, changes)
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
    result = run(capsys, root=str(root))
    assert result["failed"] is True
    assert "settings" in result["msg"]


def test_node_facts_from_arguments(capsys, root):
    os.unlink(root / "sys/devices/system/cpu/online")
    result = run(capsys, online_cpus="0-15", numa_nodes={"0": 32 * GI, "1": 32 * GI}, **args_for(root))
    assert result["changed"] is True


def test_missing_sysfs_fails_clearly(capsys, root):
    shutil.rmtree(root / "sys/devices/system/cpu")
    result = run(capsys, **args_for(root))
    assert result["failed"] is True
    assert result["msg"].startswith("%s: no CPU topology under root %s" % (root / "sys/devices/system/cpu", root))
    assert result["msg"].endswith("; pass online_cpus and numa_nodes; nothing was written")
    assert not (root / OURS).exists()


def test_single_node_machine_without_numa_sysfs(capsys, root):
    shutil.rmtree(root / "sys/devices/system/node")
    settings = copy.deepcopy(CANARY_SETTINGS)
    settings["reservedMemory"] = [{"numaNode": 0, "limits": {"memory": "2148Mi"}}]
    result = run(capsys, **args_for(root, settings=settings))
    assert result["changed"] is True


def test_apiversion_and_kind_in_settings_are_ignored(capsys, root):
    settings = copy.deepcopy(CANARY_SETTINGS)
    settings["apiVersion"] = "v1"
    settings["kind"] = "Other"
    result = run(capsys, **args_for(root, settings=settings))
    assert result["changed"] is True
    assert yaml.safe_load((root / OURS).read_text())["apiVersion"] == "kubelet.config.k8s.io/v1beta1"


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
    shutil.rmtree(root / "sys")
    result = run(capsys, root=str(root), state="absent")
    assert result["changed"] is True
    assert not (root / OURS).exists()


def test_absent_removes_a_symlinked_dropin_not_its_target(capsys, root):
    (root / DROPIN_DIR).mkdir(parents=True)
    elsewhere = root / "srv/ours.conf"
    elsewhere.parent.mkdir(parents=True)
    elsewhere.write_text("apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n")
    (root / OURS).symlink_to(elsewhere)
    result = run(capsys, root=str(root), state="absent")
    assert result["changed"] is True
    assert not os.path.lexists(root / OURS)
    assert elsewhere.exists()


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
    # reserved 1Gi each the reservation must total 6Gi; against the root's /proc/meminfo (64Gi) it is 34Gi.
    settings = dict(copy.deepcopy(CANARY_SETTINGS), evictionHard={"memory.available": "50%"},
                    reservedMemory=[{"numaNode": 0, "limits": {"memory": "4Gi"}}, {"numaNode": 1, "limits": {"memory": "2Gi"}}])
    numa = {"0": 64 * GI, "1": 64 * GI}
    accepted = run(capsys, online_cpus="0-15", numa_nodes=numa, memory_bytes=8 * GI, **args_for(root, settings=settings))
    assert accepted["changed"] is True, accepted.get("msg")
    (root / OURS).unlink()
    refused = run(capsys, online_cpus="0-15", numa_nodes=numa, **args_for(root, settings=settings))
    assert refused["failed"] is True
    assert 'the total amount "6Gi" of type "memory" is not equal to the value "34Gi"' in refused["msg"]
