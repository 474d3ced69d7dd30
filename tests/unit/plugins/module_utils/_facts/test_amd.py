"""AMD GPUs in the facts (_facts/amd.py through gather): each KFD dump of shared/fixtures/amd rebuilt as a sysfs tree.

The KFD files are written verbatim from the captures; the PCI devices beside them are the ones each capture's header
names (address, CPU node), bound to amdgpu, with the PCI class the README gives for the part.
"""

import os
import re

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts import amd
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts.gather import gather
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._plan import locality
from ansible_collections.gpusmith.numa_gate.tests.unit.plugins.module_utils._facts import amd_trees

MI300X = "kfd-topology_8x-mi300x-cpx-63-partitions-2numa_k8s-device-plugin-testdata.txt"
MI308X = "kfd-topology_8x-mi308x-4-partitions-2pci-domains-2numa_k8s-device-plugin-testdata.txt"
MI210 = "kfd-topology_8x-mi210-2xgmi-hives-2numa_k8s-device-plugin-testdata.txt"
VEGA10 = "kfd-topology_1x-vega10-mi25-plus-copied-node_k8s-device-plugin-testdata.txt"
NODES = {0: [0, 1], 1: [2, 3]}
# From the headers: GPU -> CPU node.
MI300X_GPUS = dict(("0000:%s:00.0" % bus, 0 if i < 4 else 1) for i, bus in enumerate(("05", "27", "47", "65", "85", "a7", "c7", "e5")))
MI308X_GPUS = dict([("0000:%s:00.0" % bus, 0) for bus in ("0a", "80", "a4", "c8")] + [("0001:%s:00.0" % bus, 1) for bus in ("0b", "81", "a5", "c9")])
MI210_GPUS = dict([("0000:%s:00.0" % bus, 0) for bus in ("63", "43", "03", "26")] + [("0000:%s:00.0" % bus, 1) for bus in ("e3", "c3", "83", "a3")])
MI300X_HIVE = "15188982192727901047"


def _row(gpu):
    info = gpu["amd"]
    return (gpu["pci_address"], gpu["numa_node"], gpu["numa_source"], info["kfd_node"], info["kfd_cpu_node"], info["hive_id"],
            [part["id"] for part in info["partitions"]])


def test_mi300x_cpx_eight_gpus_63_partitions(tmp_path):
    root = amd_trees.build_host(tmp_path, MI300X, MI300X_GPUS, NODES, "0x120000", extra={"current_compute_partition": "CPX\n"})
    facts = gather(root, gpu_source="sysfs")
    rows = [_row(gpu) for gpu in facts["gpus"]]
    assert rows == [
        ("0000:05:00.0", 0, "sysfs", 2, 0, MI300X_HIVE, list(range(8))),
        ("0000:27:00.0", 0, "sysfs", 10, 0, MI300X_HIVE, list(range(8))),
        ("0000:47:00.0", 0, "sysfs", 18, 0, MI300X_HIVE, list(range(8))),
        ("0000:65:00.0", 0, "sysfs", 26, 0, MI300X_HIVE, list(range(8))),
        ("0000:85:00.0", 1, "sysfs", 34, 1, MI300X_HIVE, list(range(8))),
        ("0000:a7:00.0", 1, "sysfs", 42, 1, MI300X_HIVE, list(range(8))),
        ("0000:c7:00.0", 1, "sysfs", 50, 1, MI300X_HIVE, list(range(8))),
        ("0000:e5:00.0", 1, "sysfs", 58, 1, MI300X_HIVE, list(range(7))),
    ]
    assert sum(len(gpu["amd"]["partitions"]) for gpu in facts["gpus"]) == 63
    first = facts["gpus"][0]
    assert (first["index"], first["vendor"], first["source"], first["local_cpus"]) == (0, "amd", "sysfs", "0-1")
    assert first["uuid"] == "e3ff74a1-0000-1000-80aa-140f9a5f9e31"
    assert (first["amd"]["unique_id"], first["amd"]["device_id"], first["amd"]["pci_class"]) == ("16404946649897475633", "0x74a1", "0x120000")
    assert first["amd"]["partitions"][:2] == [{"id": 0, "kfd_node": 2, "render_minor": 128, "gpu_id": None},
                                              {"id": 1, "kfd_node": 3, "render_minor": 129, "gpu_id": None}]
    assert first["amd"]["links"] == [{"to": "cpu", "node": 0, "type": "pcie", "weight": 20}]
    assert (first["amd"]["compute_partition"], first["amd"]["memory_partition"]) == ("CPX", None)
    # The dump lacks partition 7 of the last GPU: caught against its peers in the same mode.
    finding = "compute partition CPX makes 8 partitions (as on the other 0x74a1 GPUs of this node), KFD lists 7"
    assert facts["gpus"][7]["findings"] == [finding]
    assert [gpu["findings"] for gpu in facts["gpus"][:7]] == [[]] * 7
    assert facts["warnings"] == ["gpu 0000:e5:00.0: " + finding]


def test_mi308x_two_pci_domains_four_partitions(tmp_path):
    root = amd_trees.build_host(tmp_path, MI308X, MI308X_GPUS, NODES, "0x120000")
    facts = gather(root, gpu_source="sysfs")
    assert [_row(gpu) for gpu in facts["gpus"]] == [
        (address, node, "sysfs", kfd_node, node, "2095653680343411291", [0, 1, 2, 3])
        for (address, node), kfd_node in zip(sorted(MI308X_GPUS.items()), (2, 6, 10, 14, 18, 22, 26, 30))]
    gpu = facts["gpus"][4]
    assert gpu["amd"]["partitions"][0] == {"id": 0, "kfd_node": 18, "render_minor": 160, "gpu_id": 23332}
    assert gpu["amd"]["device_id"] == "0x74a2"
    assert facts["warnings"] == []


def test_mi210_two_xgmi_hives(tmp_path):
    root = amd_trees.build_host(tmp_path, MI210, MI210_GPUS, NODES, "0x038000")
    facts = gather(root, gpu_source="sysfs")
    hives = {}
    for gpu in facts["gpus"]:
        hives.setdefault(gpu["amd"]["hive_id"], []).append(gpu["pci_address"])
    assert hives == {"12609507387757274807": ["0000:03:00.0", "0000:26:00.0", "0000:43:00.0", "0000:63:00.0"],
                     "18091350218769748594": ["0000:83:00.0", "0000:a3:00.0", "0000:c3:00.0", "0000:e3:00.0"]}
    by_address = dict((gpu["pci_address"], gpu) for gpu in facts["gpus"])
    assert by_address["0000:63:00.0"]["amd"]["links"] == [
        {"to": "cpu", "node": 0, "type": "pcie", "weight": 20},
        {"to": "gpu", "pci_address": "0000:03:00.0", "type": "xgmi", "weight": 15},
        {"to": "gpu", "pci_address": "0000:26:00.0", "type": "xgmi", "weight": 15},
        {"to": "gpu", "pci_address": "0000:43:00.0", "type": "xgmi", "weight": 15},
    ]
    assert [(gpu["pci_address"], gpu["numa_node"], gpu["amd"]["kfd_cpu_node"]) for gpu in facts["gpus"]] == [
        (address, node, node) for address, node in sorted(MI210_GPUS.items())]
    assert all(len(gpu["amd"]["partitions"]) == 1 for gpu in facts["gpus"])
    assert facts["warnings"] == []


def test_vega10_copied_node_is_a_finding(tmp_path):
    """The device plugin's test data copied KFD node 1 to node 2 (same location_id, unique_id + 1): caught, never merged."""
    root = amd_trees.build_host(tmp_path, VEGA10, {"0000:19:00.0": 0}, {0: [0, 1]}, "0x038000")
    facts = gather(root, gpu_source="sysfs")
    (gpu,) = facts["gpus"]
    assert (gpu["pci_address"], gpu["amd"]["kfd_node"], gpu["amd"]["unique_id"], gpu["uuid"]) == ("0000:19:00.0", 1, None, None)
    finding = ("KFD nodes 1, 2 all name PCI 0000:19:00.0 but have different unique_ids (14073402507705256556, 14073402507705256557); "
               "unique_id unknown (a copied or edited KFD node?)")
    assert gpu["findings"] == [finding]
    links = os.path.join(root, amd_trees.KFD, "nodes/2/io_links")
    assert facts["warnings"] == [
        "KFD node 2: io_link 0 starts at node 1, not 2; left out",
        "KFD node 2: no io_links under %s; its CPU and GPU links are unknown" % links,
        "gpu 0000:19:00.0: " + finding,
    ]


def test_class_0x1200_bound_to_amdgpu_is_a_gpu_and_unbound_is_not(tmp_path):
    root = str(tmp_path / "root")
    amd_trees.build_numa(root, {0: [0, 1]})
    amd_trees.build_pci(root, "0000:01:00.0", "0x120000", "amdgpu", 0, "0-1")     # MI300A: processing accelerator
    amd_trees.build_pci(root, "0000:01:00.1", "0x0c0330", "xhci_hcd", 0, "0-1")   # its USB controller (lspci capture)
    amd_trees.build_pci(root, "0000:02:00.0", "0x120000", None, 0, "0-1")         # an accelerator nobody drives
    facts = gather(root, gpu_source="sysfs")
    assert [(gpu["index"], gpu["pci_address"], gpu["vendor"], gpu["amd"]["pci_class"]) for gpu in facts["gpus"]] == [
        (0, "0000:01:00.0", "amd", "0x120000")]
    assert facts["gpus"][0]["amd"]["driver"] == {
        "name": "amdgpu", "version": None, "in_kernel": True, "source": "sys/module/amdgpu/version absent (the in-kernel amdgpu)"}
    # No KFD topology in this tree: nothing known about KFD, and no warning claiming otherwise.
    assert facts["gpus"][0]["amd"]["kfd_node"] is None
    assert facts["warnings"] == []


def test_dkms_driver_version_from_sys_module(tmp_path):
    root = amd_trees.build_host(tmp_path, MI210, MI210_GPUS, NODES, "0x038000", amdgpu_version="6.19.4")
    facts = gather(root, gpu_source="sysfs")
    assert facts["gpus"][0]["amd"]["driver"] == {"name": "amdgpu", "version": "6.19.4", "in_kernel": False, "source": "sys/module/amdgpu/version"}


def test_unknown_partition_mode_is_named_and_unknown(tmp_path):
    root = amd_trees.build_host(tmp_path, None, {"0000:05:00.0": 0}, {0: [0, 1]}, "0x120000",
                                extra={"current_compute_partition": "XPX\n", "current_memory_partition": "nps4\n"})
    facts = gather(root, gpu_source="sysfs")
    info = facts["gpus"][0]["amd"]
    assert (info["compute_partition"], info["memory_partition"]) == (None, "NPS4")
    path = os.path.join(root, "sys/devices/pci0000:00/0000:05:00.0/current_compute_partition")
    assert facts["warnings"] == ["gpu 0000:05:00.0: %s 'XPX' is not one of SPX, DPX, TPX, QPX, CPX; taken as unknown" % path]


def test_existing_display_class_amd_without_driver_link_stays_a_gpu(tmp_path):
    root = str(tmp_path / "root")
    amd_trees.build_numa(root, {0: [0, 1]})
    amd_trees.build_pci(root, "0000:04:00.0", "0x038000", None, 0, "0-1")
    facts = gather(root, gpu_source="sysfs")
    assert [(gpu["pci_address"], gpu["vendor"], "amd" in gpu) for gpu in facts["gpus"]] == [("0000:04:00.0", "amd", False)]


def test_oracle_shows_the_findings(tmp_path):
    root = amd_trees.build_host(tmp_path, MI300X, MI300X_GPUS, NODES, "0x120000", extra={"current_compute_partition": "CPX\n"})
    oracle = locality.build(gather(root, gpu_source="sysfs"))
    assert oracle["warnings"] == ["gpu 0000:e5:00.0: compute partition CPX makes 8 partitions (as on the other 0x74a1 GPUs of this node), "
                                  "KFD lists 7"]
    assert oracle["by_numa_node"]["0"]["gpus"] == [
        # unique_ids 16404946649897475633, 2472748907779728154, 15565237874008425757, 12035684874187068538 in hex:
        # e3aa140f9a5f9e31, 2250f807caf2231a, d802d560d4ba851d, a70757a01276547a
        "e3ff74a1-0000-1000-80aa-140f9a5f9e31", "22ff74a1-0000-1000-8050-f807caf2231a",
        "d8ff74a1-0000-1000-8002-d560d4ba851d", "a7ff74a1-0000-1000-8007-57a01276547a"]


def test_uuid_of_matches_amd_smi_on_the_mi300a_pairs():
    """ASIC_SERIAL (amd-smi static) against UUID (amd-smi list --help's device choices), the same 4x MI300A host, read in place."""
    static = dict(amd_trees.outputs("amd-smi_static_4x-mi300a-4numa-inkernel-6.9rc5_amdsmi-cli-readme.txt"))["amd-smi static"]
    serials = re.findall(r"ASIC_SERIAL: (0x[0-9A-F]{16})", static)
    help_text = amd_trees.verbatim("amd-smi_list-help-device-choices_4x-mi300a-bdf-uuid_amdsmi-howto.txt")
    uuids = re.findall(r"ID: \d \| BDF: \S+ \| UUID: (\S+)", help_text)
    assert len(serials) == len(uuids) == 4
    assert [amd.uuid_of(str(int(serial, 16)), "0x74a0") for serial in serials] == uuids
    assert uuids[0] == "7eff74a0-0000-1000-808f-7e20764e2714"
    assert amd.uuid_of(None, "0x74a0") is None
