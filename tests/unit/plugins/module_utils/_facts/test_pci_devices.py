"""PCI locality (_facts/pci_devices.py): an unparsable local_cpus is a warning naming it, with the value null."""

import os

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts import notes as _notes
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts import pci_devices
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts import sysfs
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts.gather import gather
from ansible_collections.gpusmith.numa_gate.tests.unit import shared_paths
from ansible_collections.gpusmith.numa_gate.tests.unit.plugins.module_utils._facts import trees

GPU_DIR = "sys/devices/pci0000:00/0000:00:06.0"


def test_unparsable_local_cpus_is_named_and_null(tmp_path):
    root = trees.copy_snapshot(tmp_path, shared_paths.H200_VM)
    device = os.path.join(str(root), GPU_DIR)
    trees.replace(os.path.join(device, "local_cpulist"), "0-1\x005\n")
    trees.replace(os.path.join(device, "local_cpus"), "zz,zz\n")
    facts = gather(str(root), gpu_source="sysfs")
    assert facts["gpus"][0]["local_cpus"] is None
    assert ("gpu 0000:00:06.0: %s/local_cpulist: a NUL byte at offset 3, before the end (only trailing NUL padding is ignored); not parsed; "
            "%s/local_cpus: cpumask 'zz,zz': 'zz' is not a hex word of at most 8 digits" % (device, device)) in facts["warnings"]


def test_pci_locality_reads_both_values():
    root = sysfs.Root(shared_paths.H200_VM)
    notes = _notes.Notes()
    directory = os.path.join(root.path, GPU_DIR)
    assert pci_devices.pci_locality(root, notes, "gpu", "0000:00:06.0", directory) == (None, "0-15")
    assert notes.warnings() == [
        "gpu 0000:00:06.0: sysfs numa_node is -1, which means unknown (not node 0): the kernel has no NUMA locality for this device"]


def test_single_node():
    assert pci_devices.single_node([{"id": 0, "cpus": "0-3"}, {"id": 1, "cpus": ""}]) == 0
    assert pci_devices.single_node([{"id": 0, "cpus": "0-3"}, {"id": 1, "cpus": "4-7"}]) is None
