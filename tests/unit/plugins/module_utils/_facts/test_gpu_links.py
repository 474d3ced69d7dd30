"""Each GPU's NIC links in the facts (_facts/gpu_links.py): every real topo -m output kept, the PCI tree distance from sysfs."""

import os
from pathlib import Path

import pytest

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts import gpu_links
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts import notes as _notes
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts import nvidia_smi
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts import sysfs
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts.gather import gather
from ansible_collections.gpusmith.numa_gate.tests.unit import shared_paths

SMI = Path(shared_paths.FIXTURES) / "nvidia-smi"
H200 = Path(shared_paths.H200_VM)
TOPO = "nvidia-smi topo -m"
SYSFS = "sysfs pci tree"

# Each GPU's links to mlx5_0..mlx5_9, copied by eye from h100-8gpu-10nic-topo-m.txt (NIC Legend: NICn is mlx5_n).
H100_ROWS = {
    0: "NODE NODE NODE PIX NODE NODE SYS SYS SYS SYS",
    1: "NODE NODE NODE NODE NODE PIX SYS SYS SYS SYS",
    2: "NODE NODE NODE NODE PIX NODE SYS SYS SYS SYS",
    3: "PIX PIX PIX NODE NODE NODE SYS SYS SYS SYS",
    4: "SYS SYS SYS SYS SYS SYS NODE PIX NODE NODE",
    5: "SYS SYS SYS SYS SYS SYS NODE NODE NODE PIX",
    6: "SYS SYS SYS SYS SYS SYS NODE NODE PIX NODE",
    7: "SYS SYS SYS SYS SYS SYS PIX NODE NODE NODE",
}
H100_NEAREST = {0: ["mlx5_3"], 1: ["mlx5_5"], 2: ["mlx5_4"], 3: ["mlx5_0", "mlx5_1", "mlx5_2"],
                4: ["mlx5_7"], 5: ["mlx5_9"], 6: ["mlx5_8"], 7: ["mlx5_6"]}


def _nv18_except(index, count=8):
    return dict(("GPU%d" % other, "NV18") for other in range(count) if other != index)


def _topo_nic(device, link):
    return {"name": None, "rdma_device": device, "pci_address": None, "numa_node": None, "link": link, "source": TOPO}


def _expected(name):
    """What the facts keep per GPU for each real topo -m file: {index: links}."""
    if name == "h100-8gpu-10nic-topo-m.txt":
        return dict((i, {"gpus": _nv18_except(i),
                         "nics": [_topo_nic("mlx5_%d" % n, link) for n, link in enumerate(H100_ROWS[i].split())],
                         "nearest_nics": H100_NEAREST[i], "nearest_link": "PIX"}) for i in range(8))
    if name == "h100-8gpu-spaces-topo-m.txt":
        return dict((i, {"gpus": _nv18_except(i), "nics": [], "nearest_nics": [], "nearest_link": None}) for i in range(8))
    if name == "h200-vm-1gpu-topo-m.txt":
        return {0: {"gpus": {}, "nics": [], "nearest_nics": [], "nearest_link": None}}
    raise AssertionError("no expectation written for the real topo -m output %s: add one" % name)


def _attach(tmp_path, topo, nics=()):
    gpus = [{"index": row["index"], "pci_address": None, "numa_node": None, "topo_links": gpu_links.topo_row(topo, row["index"])}
            for row in topo["gpus"]]
    notes = _notes.Notes()
    with sysfs.Root(str(tmp_path)) as root:
        gpu_links.attach(root, notes, gpus, list(nics))
    return gpus, notes.warnings()


@pytest.mark.parametrize("name", sorted(p.name for p in SMI.glob("*.txt")))
def test_every_real_topo_output_is_kept(tmp_path, name):
    with open(str(SMI / name), encoding="utf-8") as handle:
        topo = nvidia_smi.parse_topo_m(handle.read())
    gpus, warnings = _attach(tmp_path, topo)
    assert dict((gpu["index"], gpu["links"]) for gpu in gpus) == _expected(name)
    assert all("topo_links" not in gpu for gpu in gpus)
    assert warnings == []


def test_topo_nics_joined_to_the_facts_nics_by_rdma_device(tmp_path):
    with open(str(SMI / "h100-8gpu-10nic-topo-m.txt"), encoding="utf-8") as handle:
        topo = nvidia_smi.parse_topo_m(handle.read())
    nic = {"name": "ibp26s0", "pci_address": "0000:1a:00.0", "numa_node": 0, "rdma_devices": ["mlx5_3"]}
    gpus, _warnings = _attach(tmp_path, topo, [nic])
    assert gpus[0]["links"]["nics"][3] == {"name": "ibp26s0", "rdma_device": "mlx5_3", "pci_address": "0000:1a:00.0", "numa_node": 0,
                                           "link": "PIX", "source": TOPO}
    assert gpus[0]["links"]["nearest_nics"] == ["mlx5_3"]
    # mlx5_3 is in the matrix, so sysfs is not asked about it (no PCI tree here, and no warning)
    assert len(gpus[0]["links"]["nics"]) == 10


def test_h200_sysfs_pci_tree_real_snapshot():
    """The real H200 VM: GPU 0000:00:06.0 and virtio eth0 0000:00:03.0 on root pci0000:00, no common bridge: PHB."""
    eth0 = {"name": "eth0", "rdma_device": None, "pci_address": "0000:00:03.0", "numa_node": 0, "link": "PHB", "source": SYSFS}
    for source in ("sysfs", "none"):
        facts = gather(str(H200), gpu_source=source)
        for gpu in facts["gpus"]:
            assert gpu["links"] == {"gpus": {}, "nics": [eth0], "nearest_nics": ["eth0"], "nearest_link": "PHB"}


def _device(tmp_path, chain):
    """A device directory at sys/devices/<chain> with its sys/bus/pci/devices link, as the kernel lays them out."""
    directory = tmp_path.joinpath("sys", "devices", *chain)
    directory.mkdir(parents=True, exist_ok=True)
    bus = tmp_path / "sys" / "bus" / "pci" / "devices"
    bus.mkdir(parents=True, exist_ok=True)
    os.symlink(os.path.relpath(str(directory), str(bus)), str(bus / chain[-1]))


# A host like the real 8-GPU ones: a PCIe switch (upstream 01:00.0, downstream 02:0x.0) under root port 00:01.0,
# the GPU and mlx5_0 under it; mlx5_1 behind a second switch level; eth0 on another root port; mlx5_2 on another root.
GPU_CHAIN = ("pci0000:00", "0000:00:01.0", "0000:01:00.0", "0000:02:00.0", "0000:03:00.0")
TREE = {
    "mlx5_0": (("pci0000:00", "0000:00:01.0", "0000:01:00.0", "0000:02:01.0", "0000:04:00.0"), 0, "PIX"),
    "mlx5_1": (("pci0000:00", "0000:00:01.0", "0000:01:00.0", "0000:02:02.0", "0000:05:00.0", "0000:06:00.0", "0000:07:00.0"), 0, "PXB"),
    "eth0": (("pci0000:00", "0000:00:02.0", "0000:08:00.0"), 0, "PHB"),
    "mlx5_2": (("pci0000:40", "0000:40:01.0", "0000:41:00.0"), 0, "NODE"),
    "mlx5_3": (("pci0000:80", "0000:80:01.0", "0000:81:00.0"), 1, "SYS"),
}


def test_sysfs_pci_tree_distances(tmp_path):
    _device(tmp_path, GPU_CHAIN)
    nics = []
    for device, (chain, node, _link) in sorted(TREE.items()):
        _device(tmp_path, chain)
        rdma = [] if device == "eth0" else [device]
        nics.append({"name": "if_" + device, "pci_address": chain[-1], "numa_node": node, "rdma_devices": rdma})
    gpus = [{"index": 0, "pci_address": GPU_CHAIN[-1], "numa_node": 0}]
    notes = _notes.Notes()
    with sysfs.Root(str(tmp_path)) as root:
        gpu_links.attach(root, notes, gpus, nics)
    links = gpus[0]["links"]
    assert [(e["name"], e["rdma_device"], e["link"], e["source"]) for e in links["nics"]] == [
        ("if_" + device, None if device == "eth0" else device, TREE[device][2], SYSFS) for device in sorted(TREE)]
    assert (links["nearest_nics"], links["nearest_link"]) == (["mlx5_0"], "PIX")
    assert notes.warnings() == []


def test_sysfs_other_root_with_unknown_numa_is_unknown_and_named(tmp_path):
    _device(tmp_path, GPU_CHAIN)
    _device(tmp_path, TREE["mlx5_3"][0])
    gpus = [{"index": 0, "pci_address": GPU_CHAIN[-1], "numa_node": 0}]
    nic = {"name": "ib3", "pci_address": "0000:81:00.0", "numa_node": None, "rdma_devices": ["mlx5_3"]}
    notes = _notes.Notes()
    with sysfs.Root(str(tmp_path)) as root:
        gpu_links.attach(root, notes, gpus, [nic])
    assert gpus[0]["links"]["nics"][0]["link"] is None
    assert (gpus[0]["links"]["nearest_nics"], gpus[0]["links"]["nearest_link"]) == ([], None)
    assert notes.warnings() == ["gpu 0000:03:00.0: the PCI distance to nic ib3 is unknown (no PCI path, or different PCI roots and a NUMA node unknown)"]


@pytest.mark.parametrize("gpu_chain, nic_chain, nodes, word", [
    (("pci0000:00", ["0000:00:01.0", "0000:01:00.0"]), ("pci0000:00", ["0000:00:01.0", "0000:01:00.1"]), (0, 0), "PIX"),
    (("pci0000:00", ["0000:00:01.0"]), ("pci0000:00", ["0000:00:02.0"]), (0, 1), "PHB"),
    (("pci0000:00", ["0000:00:01.0"]), ("pci0000:80", ["0000:80:02.0"]), (1, 1), "NODE"),
    (("pci0000:00", ["0000:00:01.0"]), ("pci0000:80", ["0000:80:02.0"]), (0, 1), "SYS"),
    (("pci0000:00", ["0000:00:01.0"]), ("pci0000:80", ["0000:80:02.0"]), (0, None), None),
    ((), ("pci0000:80", ["0000:80:02.0"]), (0, 0), None),
])
def test_pci_link_words(gpu_chain, nic_chain, nodes, word):
    assert gpu_links.pci_link(gpu_chain, nic_chain, nodes[0], nodes[1]) == word
