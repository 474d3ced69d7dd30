"""The 8x MI300X CPX host for the plan and page tests (a helper, not a test module): facts through the real facts code.

The KFD dump of shared/fixtures/amd (8 GPUs in CPX mode, 63 partitions: the dump lacks the last GPU's partition 7) is
written verbatim under a sysfs tree beside the PCI devices its header names (4 GPUs on each CPU node), bound to amdgpu
with class 0x1200, each with current_compute_partition CPX, as the AMD facts tests build it (`amd_trees`); the facts are
then `gather(root, gpu_source="sysfs")`. CPUs: two NUMA nodes of 16 single-thread cores each (CPUs 0-15 and 16-31).
"""

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts.gather import gather
from ansible_collections.gpusmith.numa_gate.tests.unit.plugins.module_utils._facts import amd_trees

MI300X_CPX = "kfd-topology_8x-mi300x-cpx-63-partitions-2numa_k8s-device-plugin-testdata.txt"
# From the dump's header: GPU -> CPU node.
GPUS = dict(("0000:%s:00.0" % bus, 0 if i < 4 else 1) for i, bus in enumerate(("05", "27", "47", "65", "85", "a7", "c7", "e5")))
NODES = {0: list(range(0, 16)), 1: list(range(16, 32))}


def mi300x_cpx_facts(tmp_path):
    """Topology facts (schema v1) of the 8x MI300X CPX host, built under ``tmp_path``."""
    root = amd_trees.build_host(tmp_path, MI300X_CPX, GPUS, NODES, "0x120000", extra={"current_compute_partition": "CPX\n"})
    return gather(root, gpu_source="sysfs")
