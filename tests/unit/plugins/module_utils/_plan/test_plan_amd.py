"""The plan for AMD GPUs as for NVIDIA's: the 8x MI300X CPX host (facts through the real facts code, `amd_machines`).

The device-aware strategy counts AMD GPUs per NUMA node by their PCI device's node, as it counts NVIDIA's. A GPU's
partitions (CPX: 8 per MI300X) are part of it: the plan counts whole GPUs, never partitions, and a GPU whose NUMA node
is unknown (sysfs -1 on a two-node host) is counted on no node, its partitions with it, never as local.
"""

import os

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts.gather import gather
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._plan import plan
from ansible_collections.gpusmith.numa_gate.tests.unit.plugins.module_utils._facts import amd_trees
from ansible_collections.gpusmith.numa_gate.tests.unit.plugins.module_utils._plan import amd_machines

NODE0_GPUS = ["0000:05:00.0", "0000:27:00.0", "0000:47:00.0", "0000:65:00.0"]
NODE1_GPUS = ["0000:85:00.0", "0000:a7:00.0", "0000:c7:00.0", "0000:e5:00.0"]
# The capture's two CPU nodes and a third one without GPUs (CPUs 32-47).
THREE_NODES = {0: list(range(0, 16)), 1: list(range(16, 32)), 2: list(range(32, 48))}
SHORT = "gpu 0000:e5:00.0: compute partition CPX makes 8 partitions (as on the other 0x74a1 GPUs of this node), KFD lists 7"


def _gpus_by_node(result):
    return dict((node, entry["gpus"]) for node, entry in result["allocatable"].items())


def test_mi300x_cpx_four_gpus_on_each_node_device_aware_falls_back_to_spread(tmp_path):
    facts = amd_machines.mi300x_cpx_facts(tmp_path)
    assert [(gpu["vendor"], len(gpu["amd"]["partitions"])) for gpu in facts["gpus"]] == [("amd", 8)] * 7 + [("amd", 7)]
    result = plan.reservation_plan(facts, {"reserved_cpus": 4})
    assert _gpus_by_node(result) == {"0": NODE0_GPUS, "1": NODE1_GPUS}
    assert result["reasons"][0] == "strategy device-aware: every NUMA node with CPUs (0, 1) has a GPU or NIC; fell back to spread"
    assert result["kubelet_settings"]["reservedSystemCPUs"] == "0-1,16-17"
    assert result["reserved"]["by_numa"] == {"0": "0-1", "1": "16-17"}
    assert (result["allocatable"]["0"]["cpus"], result["allocatable"]["1"]["cpus"]) == ("2-15", "18-31")
    assert result["warnings"] == [SHORT]


def test_mi300x_cpx_on_two_of_three_nodes_reserves_on_the_node_without_gpus(tmp_path):
    root = amd_trees.build_host(tmp_path, amd_machines.MI300X_CPX, amd_machines.GPUS, THREE_NODES, "0x120000",
                                extra={"current_compute_partition": "CPX\n"})
    result = plan.reservation_plan(gather(root, gpu_source="sysfs"), {"reserved_cpus": 4})
    assert _gpus_by_node(result) == {"0": NODE0_GPUS, "1": NODE1_GPUS, "2": []}
    assert result["reasons"][0] == ("strategy device-aware: reserved on NUMA nodes without GPUs or NICs (2) first, so device-local nodes "
                                    "(0, 1) keep their cores for exclusive slices")
    assert result["kubelet_settings"]["reservedSystemCPUs"] == "32-35"
    assert result["reserved"]["by_numa"] == {"2": "32-35"}
    # The same plan asked to spread takes cores on every node: device-aware is what spared the GPU nodes.
    spread = plan.reservation_plan(gather(root, gpu_source="sysfs"), {"reserved_cpus": 4, "strategy": "spread"})
    assert spread["kubelet_settings"]["reservedSystemCPUs"] == "0-1,16,32"


def test_a_gpu_of_unknown_numa_node_and_its_partitions_are_counted_nowhere(tmp_path):
    root = amd_trees.build_host(tmp_path, amd_machines.MI300X_CPX, amd_machines.GPUS, THREE_NODES, "0x120000",
                                extra={"current_compute_partition": "CPX\n"})
    # The first GPU of node 1 reads -1 in sysfs (as on firmware without _PXM): local to no node, its 8 partitions with it.
    amd_trees.write(os.path.join(root, "sys/devices/pci0000:00/0000:85:00.0/numa_node"), "-1\n")
    facts = gather(root, gpu_source="sysfs")
    gpu = [g for g in facts["gpus"] if g["pci_address"] == "0000:85:00.0"][0]
    assert (gpu["numa_node"], gpu["sysfs_numa_node"], len(gpu["amd"]["partitions"]), gpu["amd"]["kfd_cpu_node"]) == (None, None, 8, 1)
    result = plan.reservation_plan(facts, {"reserved_cpus": 4})
    assert _gpus_by_node(result) == {"0": NODE0_GPUS, "1": NODE1_GPUS[1:], "2": []}
    assert "device-aware: gpu 0000:85:00.0 have no known NUMA node and were not counted" in result["warnings"]
    # KFD's link to CPU node 1 is not taken as the node (sysfs is the facts' source): the reservation still spares nodes 0 and 1.
    assert result["kubelet_settings"]["reservedSystemCPUs"] == "32-35"
