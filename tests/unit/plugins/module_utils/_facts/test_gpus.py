"""sysfs GPUs (_facts/gpus.py) on copies of the real H200 snapshot: a device without a class file is named."""

import os

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts.gather import gather
from ansible_collections.gpusmith.numa_gate.tests.unit import shared_paths
from ansible_collections.gpusmith.numa_gate.tests.unit.plugins.module_utils._facts import trees

GPU_DIR = "sys/devices/pci0000:00/0000:00:06.0"


def test_gpu_without_a_class_file_is_a_warning_naming_it(tmp_path):
    """Issue 7 rule 9: the H200 without its class file is not silently dropped."""
    root = trees.copy_snapshot(tmp_path, shared_paths.H200_VM)
    trees.remove(root / GPU_DIR / "class")
    facts = gather(str(root), gpu_source="sysfs")
    assert facts["gpus"] == []
    assert ("pci 0000:00:06.0: %s: missing; PCI class unknown, so not counted as a GPU" % os.path.join(str(root), GPU_DIR, "class")
            in facts["warnings"])


def test_gpu_with_a_class_file_is_kept():
    facts = gather(shared_paths.H200_VM, gpu_source="sysfs")
    assert [g["pci_address"] for g in facts["gpus"]] == ["0000:00:06.0"]
    assert not [w for w in facts["warnings"] if "PCI class unknown" in w]
