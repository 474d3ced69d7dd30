"""The KFD topology reader (_amd/kfd.py): the real MI210 dump rebuilt as sysfs, then broken the ways snapshots break."""

import os
import shutil

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._amd import kfd as amd_kfd
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts.gather import gather
from ansible_collections.gpusmith.numa_gate.tests.unit.plugins.module_utils._facts import amd_trees

MI210 = "kfd-topology_8x-mi210-2xgmi-hives-2numa_k8s-device-plugin-testdata.txt"
GPUS = dict([("0000:%s:00.0" % bus, 0) for bus in ("63", "43", "03", "26")] + [("0000:%s:00.0" % bus, 1) for bus in ("e3", "c3", "83", "a3")])
NODES = {0: [0, 1], 1: [2, 3]}


def _host(tmp_path):
    root = amd_trees.build_host(tmp_path, MI210, GPUS, NODES, "0x038000")
    return root, os.path.join(root, amd_trees.KFD, "nodes")


def _cut(path, after):
    """The file at ``path`` cut right after the text ``after`` (a snapshot copied while cut short)."""
    with open(path) as handle:
        text = handle.read()
    with open(path, "w") as handle:
        handle.write(text[:text.index(after) + len(after)])


def test_kfd_address():
    assert amd_kfd.kfd_address({"location_id": 25344}) == "0000:63:00.0"
    assert amd_kfd.kfd_address({"location_id": 2819, "domain": 1}) == "0001:0b:00.3"  # MI308X partition 3 (function bits)


def test_truncated_number_is_not_read_as_an_address(tmp_path):
    root, nodes = _host(tmp_path)
    path = os.path.join(nodes, "5/properties")
    _cut(path, "location_id 97")  # 9728 (0x2600, 0000:26:00.0) cut to 97
    facts = gather(root, gpu_source="sysfs")
    assert facts["warnings"] == [
        "%s: ends with 'location_id 97', not the max_engine_clk_ccompute line the kernel writes last (truncated); KFD node 5 left out" % path,
        "gpu 0000:26:00.0: bound to amdgpu but no KFD node names it; its KFD node, partitions and links are unknown",
    ]
    by_address = dict((g["pci_address"], g) for g in facts["gpus"])
    assert len(facts["gpus"]) == 8
    assert (by_address["0000:26:00.0"]["numa_node"], by_address["0000:26:00.0"]["amd"]["kfd_node"]) == (0, None)
    # The other GPUs of its hive keep their links, without the one to the node that could not be read.
    assert [link["pci_address"] for link in by_address["0000:63:00.0"]["amd"]["links"] if link["to"] == "gpu"] == ["0000:03:00.0", "0000:43:00.0"]


def test_truncated_mid_line_and_empty_properties(tmp_path):
    root, nodes = _host(tmp_path)
    cut, empty = os.path.join(nodes, "6/properties"), os.path.join(nodes, "7/properties")
    _cut(cut, "drm_render_mi")
    with open(empty, "w"):
        pass
    facts = gather(root, gpu_source="sysfs")
    assert facts["warnings"][:2] == [
        "%s: line 24 'drm_render_mi' is not '<name> <integer>' (truncated or not a KFD properties file); KFD node 6 left out" % cut,
        "%s: ends with '', not the max_engine_clk_ccompute line the kernel writes last (truncated); KFD node 7 left out" % empty,
    ]
    assert sorted(g["pci_address"] for g in facts["gpus"] if g["amd"]["kfd_node"] is None) == ["0000:c3:00.0", "0000:e3:00.0"]


def test_kfd_node_without_io_links(tmp_path):
    root, nodes = _host(tmp_path)
    shutil.rmtree(os.path.join(nodes, "3/io_links"))
    facts = gather(root, gpu_source="sysfs")
    assert facts["warnings"] == ["KFD node 3: %s: missing, although its properties count 4 io_links; its CPU and GPU links are unknown"
                                 % os.path.join(nodes, "3/io_links")]
    gpu = [g for g in facts["gpus"] if g["pci_address"] == "0000:43:00.0"][0]
    assert (gpu["amd"]["links"], gpu["amd"]["kfd_cpu_node"], gpu["numa_node"], gpu["numa_source"]) == ([], None, 0, "sysfs")
    assert (gpu["amd"]["kfd_node"], gpu["amd"]["hive_id"]) == (3, "12609507387757274807")


def test_truncated_io_link_is_left_out(tmp_path):
    root, nodes = _host(tmp_path)
    path = os.path.join(nodes, "2/io_links/0/properties")
    _cut(path, "weight 20")
    facts = gather(root, gpu_source="sysfs")
    assert facts["warnings"] == ["%s: ends with 'weight 20', not the flags line the kernel writes last (truncated); this io_link left out" % path]
    gpu = [g for g in facts["gpus"] if g["pci_address"] == "0000:63:00.0"][0]
    assert (gpu["amd"]["kfd_cpu_node"], [link["to"] for link in gpu["amd"]["links"]]) == (None, ["gpu", "gpu", "gpu"])


def test_kfd_cpu_node_against_sysfs_is_a_finding(tmp_path):
    gpus = dict(GPUS)
    gpus["0000:e3:00.0"] = 0  # sysfs puts it on node 0; KFD links it to CPU node 1
    root = amd_trees.build_host(tmp_path, MI210, gpus, NODES, "0x038000")
    facts = gather(root, gpu_source="sysfs")
    gpu = [g for g in facts["gpus"] if g["pci_address"] == "0000:e3:00.0"][0]
    assert (gpu["numa_node"], gpu["numa_source"], gpu["amd"]["kfd_cpu_node"]) == (0, "sysfs", 1)
    assert gpu["findings"] == ["sysfs numa_node is 0, KFD links the GPU to CPU node 1; kept sysfs"]


def test_no_kfd_topology_is_no_warning_and_an_unreadable_one_is(tmp_path):
    root = amd_trees.build_host(tmp_path, None, {"0000:63:00.0": 0}, NODES, "0x038000")
    assert gather(root, gpu_source="sysfs")["warnings"] == []
    amd_trees.write(os.path.join(root, amd_trees.KFD, "nodes"), "not a directory\n")
    assert gather(root, gpu_source="sysfs")["warnings"] == [
        "%s: not a directory; the KFD topology is unknown" % os.path.join(root, amd_trees.KFD, "nodes")]
