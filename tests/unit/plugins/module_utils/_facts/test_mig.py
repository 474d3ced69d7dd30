"""Unit tests for the MIG devices the facts keep per NVIDIA GPU (_facts/mig.py), from recorded ``nvidia-smi -L`` outputs."""

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts import mig
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts import notes as _notes
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts.runner import NoCommandsRunner, RecordedRunner
from ansible_collections.gpusmith.numa_gate.tests.unit.plugins.module_utils._facts.test_nvidia_smi_list import MODERN

GPU0 = "GPU-9c73eb7b-8d6d-6c0e-dc13-97873e2ede40"
GPU1 = "GPU-c92e2d5d-4a69-f1cd-4df0-305f8606705a"


def gpus():
    return [{"index": 0, "uuid": GPU0.lower(), "pci_address": "0000:07:00.0", "vendor": "nvidia", "source": "nvidia-smi"},
            {"index": 1, "uuid": GPU1, "pci_address": "0000:0f:00.0", "vendor": "nvidia", "source": "nvml"},
            {"index": None, "uuid": None, "pci_address": "0000:c1:00.0", "vendor": "amd", "source": "sysfs"}]


def test_each_gpu_keeps_the_mig_devices_listed_under_it():
    found, notes = gpus(), _notes.Notes()
    runner = RecordedRunner({("nvidia-smi", "-L"): (0, MODERN, "")})
    mig.attach_mig_devices(notes, found, runner)
    assert found[0]["mig_devices"] == [
        {"uuid": "MIG-a686709d-6dc2-542a-8851-0d2508448c10", "profile": "1g.10gb", "index": 0, "gpu_instance": None, "compute_instance": None},
        {"uuid": "MIG-53864714-0a66-5df2-9007-9268e30d9a72", "profile": "1g.10gb", "index": 1, "gpu_instance": None, "compute_instance": None}]
    assert [d["uuid"] for d in found[1]["mig_devices"]] == ["MIG-d5a46a2e-1d77-575d-99e3-1f96c8555a2e", "MIG-b8479d6e-d08f-5a92-9a24-0946db72b2a0"]
    assert "mig_devices" not in found[2]
    assert runner.calls == [("nvidia-smi", "-L")]
    assert notes.warnings() == []


def test_unknown_when_the_list_cannot_be_read_each_named():
    cases = [
        (NoCommandsRunner(), "MIG devices unknown: nvidia-smi is not installed (not found on PATH)"),
        (RecordedRunner({("nvidia-smi", "-L"): (9, "", "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.\n")}),
         "MIG devices unknown: nvidia-smi -L failed with rc 9: NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver."),
        (RecordedRunner({("nvidia-smi", "-L"): (0, "GPU 0: X (UUID: GPU-aa)\ngarbage\n", "")}),
         "MIG devices unknown: nvidia-smi -L line 2 is neither a GPU nor a MIG device line: 'garbage'"),
    ]
    for runner, warning in cases:
        found, notes = gpus(), _notes.Notes()
        mig.attach_mig_devices(notes, found, runner)
        assert [g.get("mig_devices", "absent") for g in found] == [None, None, "absent"]
        assert notes.warnings() == [warning]


def test_a_gpu_the_list_lacks_is_unknown_and_named():
    found, notes = gpus(), _notes.Notes()
    mig.attach_mig_devices(notes, found, RecordedRunner({("nvidia-smi", "-L"): (0, MODERN.split("GPU 1:", maxsplit=1)[0], "")}))
    assert len(found[0]["mig_devices"]) == 2 and found[1]["mig_devices"] is None
    assert notes.warnings() == ["gpu 0000:0f:00.0: nvidia-smi -L does not list %s; its MIG devices are unknown" % GPU1]
