"""The fleet page's shape of an AMD node: the 8x MI300X CPX host (facts through the real facts code, `amd_machines`)."""

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._record import record
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._record.pages import fleet
from ansible_collections.gpusmith.numa_gate.tests.unit.plugins.module_utils._plan import amd_machines


def test_unnamed_amd_gpus_are_named_by_vendor_device_and_partition_mode(tmp_path):
    built = record.build(amd_machines.mi300x_cpx_facts(tmp_path), "mi300x-cpx")
    assert fleet.shape(built) == "2 sockets, 2 NUMA nodes, 32 cores, 8x unnamed amd GPU 0x74a1 in CPX, no NIC"
    # A record written before GPUs named their vendor keeps the old words.
    for gpu in built["devices"]["gpus"]:
        for key in ("vendor", "identities", "partition_mode"):
            del gpu[key]
    assert fleet.shape(built) == "2 sockets, 2 NUMA nodes, 32 cores, 8x unnamed GPU, no NIC"
