"""NUMA nodes (_facts/numa.py): a huge page pool larger than its node's memory is named."""

import os

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts.gather import gather
from ansible_collections.gpusmith.numa_gate.tests.unit import shared_paths
from ansible_collections.gpusmith.numa_gate.tests.unit.plugins.module_utils._facts import trees


def test_hugepage_pool_larger_than_the_node(tmp_path):
    """Issue 7 rule 9: node0 has 4550128 kB; 16 x 1 GiB pages cannot fit."""
    root = trees.copy_snapshot(tmp_path, shared_paths.H200_VM)
    pool = os.path.join(str(root), "sys/devices/system/node/node0/hugepages/hugepages-1048576kB")
    trees.replace(os.path.join(pool, "nr_hugepages"), "16\n")
    facts = gather(str(root), gpu_source="none")
    assert facts["numa_nodes"][0]["hugepages"]["1048576kB"] == {"total": 16, "free": 0}
    assert ("NUMA node 0: the 1048576kB huge page pool of 16 pages (17179869184 bytes) is larger than the node's memory "
            "(4659331072 bytes); the pool's numbers cannot be right") in facts["warnings"]


def test_pools_that_fit_say_nothing():
    facts = gather(shared_paths.H200_VM, gpu_source="none")
    assert not [w for w in facts["warnings"] if "huge page pool" in w]
