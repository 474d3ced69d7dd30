"""The topology_facts module run through AnsibleModule, on real snapshots and bad roots."""

import json
import os

import pytest

from ansible.module_utils.testing import patch_module_args

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts import gather as _gather
from ansible_collections.gpusmith.numa_gate.plugins.modules import topology_facts
from ansible_collections.gpusmith.numa_gate.tests.unit import shared_paths


H200 = shared_paths.H200_VM
MINUS_ONE = "gpu 0000:00:06.0: sysfs numa_node is -1, which means unknown (not node 0): the kernel has no NUMA locality for this device"


def run_module(args, capsys):
    with patch_module_args(args):
        with pytest.raises(SystemExit) as exit_info:
            topology_facts.main()
    return exit_info.value.code, json.loads(capsys.readouterr().out)


def _warning_texts(result):
    """Module warnings as strings (ansible-core 2.19 returns WarningSummary dicts: {"event": {"msg": ...}})."""
    return [w if isinstance(w, str) else w.get("event", w).get("msg") for w in result.get("warnings", [])]


def test_snapshot_facts(capsys):
    code, result = run_module({"root": H200, "gpu_source": "sysfs"}, capsys)
    assert code == 0
    assert result["changed"] is False
    facts = result["ansible_facts"]["numa_gate_topology"]
    assert facts["schema_version"] == 1
    assert facts["root"] == H200
    assert facts["cpus"]["online"] == "0-15"
    assert [(g["pci_address"], g["numa_node"], g["numa_source"], g["sysfs_numa_node"]) for g in facts["gpus"]] == [
        ("0000:00:06.0", 0, "single-node", None)]
    assert facts["warnings"] == [MINUS_ONE, "nic eth0 0000:00:03.0: " + MINUS_ONE.split(": ", 1)[1]]
    assert _warning_texts(result) == facts["warnings"]


def test_snapshot_auto_does_not_run_vendor_tools(capsys, monkeypatch):
    def no_commands(self, *args, **kwargs):
        raise AssertionError("a command ran for a snapshot root: %r" % (args,))

    monkeypatch.setattr(topology_facts.AnsibleModule, "run_command", no_commands)
    code, result = run_module({"root": H200}, capsys)
    assert code == 0
    facts = result["ansible_facts"]["numa_gate_topology"]
    assert facts["gpus"][0]["source"] == "sysfs"
    assert any("vendor tools not consulted for root %s" % H200 in w for w in facts["warnings"])


def test_check_mode(capsys):
    code, result = run_module({"root": H200, "gpu_source": "none", "_ansible_check_mode": True}, capsys)
    assert code == 0
    assert result["changed"] is False
    assert result["ansible_facts"]["numa_gate_topology"]["gpus"] == []


def test_bad_root_fails_naming_it(capsys, tmp_path):
    missing = str(tmp_path / "no-such-root")
    code, result = run_module({"root": missing}, capsys)
    assert code == 1
    assert result["failed"] is True
    assert result["msg"] == "root %s does not exist or is not a directory" % missing
    assert "exception" not in result


def test_root_without_cpu_topology_fails(capsys, tmp_path):
    code, result = run_module({"root": str(tmp_path), "gpu_source": "none"}, capsys)
    assert code == 1
    cpu_dir = os.path.join(str(tmp_path), "sys/devices/system/cpu")
    assert result["msg"] == "%s: no CPU topology under root %s (%s: missing)" % (cpu_dir, tmp_path, cpu_dir)


def test_unexpected_os_error_is_reported_with_the_path(capsys, monkeypatch):
    def broken(**kwargs):
        raise OSError(5, "Input/output error", "/sys/devices/system/node/node3/meminfo")

    monkeypatch.setattr(topology_facts, "gather", broken)
    code, result = run_module({"root": H200}, capsys)
    assert code == 1
    assert result["msg"] == "reading the topology under %s failed: Input/output error (/sys/devices/system/node/node3/meminfo)" % H200


def test_unexpected_error_fails_naming_the_root_without_a_traceback(capsys, monkeypatch):
    def broken(**kwargs):
        raise RuntimeError("something nobody expected")

    monkeypatch.setattr(topology_facts, "gather", broken)
    code, result = run_module({"root": H200}, capsys)
    assert code == 1
    assert result["failed"] is True
    assert result["msg"] == "reading the topology under %s failed with an unexpected RuntimeError: something nobody expected" % H200
    assert result["root"] == H200
    assert "exception" not in result


def test_nic_driver_on_the_h200_snapshot(capsys):
    code, result = run_module({"root": H200, "gpu_source": "none"}, capsys)
    assert code == 0
    assert [(n["name"], n["driver"]) for n in result["ansible_facts"]["numa_gate_topology"]["nics"]] == [("eth0", "virtio-pci")]


def test_bad_gpu_source_is_refused(capsys):
    code, result = run_module({"root": H200, "gpu_source": "cuda"}, capsys)
    assert code == 1
    assert "value of gpu_source must be one of: auto, nvml, nvidia-smi, sysfs, none, got: cuda" in result["msg"]


def test_argument_spec_matches_gather():
    assert list(_gather.GPU_SOURCES) == ["auto", "nvml", "nvidia-smi", "sysfs", "none"]


def test_empty_root_is_refused(capsys):
    """Issue 7 rule 8: an empty root is not a default; it is refused, never read as "/"."""
    code, result = run_module({"root": "", "gpu_source": "none"}, capsys)
    assert code == 1
    assert result["failed"] is True
    assert result["msg"] == "root '' is not a path"
    assert result["root"] == ""
    assert "ansible_facts" not in result
