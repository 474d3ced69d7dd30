"""Unit tests for SR-IOV VFs in the facts (_facts/sriov.py), on a sysfs tree built in a temporary folder as the kernel lays it out:
the PF's ``sriov_numvfs``/``sriov_totalvfs`` and ``virtfn<N>`` links, each VF's ``physfn`` back, its ``driver`` link (mlx5_core,
vfio-pci, or none), ``net/<ifname>`` only for a VF that is an interface here, sys/class/net links to the interfaces shown; then a
pod's VF by PCI address (as the SR-IOV device plugin reports it in PodResources) mapped to the host through the locality oracle."""

import os

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._device_path.devices import map_device
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts.gather import gather
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._plan import locality
from ansible_collections.gpusmith.numa_gate.tests.unit.plugins.module_utils._facts.amd_trees import build_numa, build_pci, write

PF = "0000:3b:00.0"
NODE1_CPUS = "2-3"
MLX = "0x15b3"


def interface(root, address, name):
    """``net/<name>`` under the function (with its ``device`` link back) and sys/class/net/<name> linking to it."""
    net = os.path.join(root, "sys/devices/pci0000:00", address, "net", name)
    os.makedirs(net)
    os.symlink("../../../" + address, os.path.join(net, "device"))
    write(os.path.join(net, "ifindex"), "7\n")
    links = os.path.join(root, "sys/class/net")
    os.makedirs(links, exist_ok=True)
    os.symlink("../../devices/pci0000:00/%s/net/%s" % (address, name), os.path.join(links, name))


def build_host(tmp_path, numvfs=3):
    """Two NUMA nodes; a ConnectX PF on node 1 with three VFs: 00.2 an interface (mlx5_core), 00.3 bound to vfio-pci, 00.4 mlx5_core
    but moved into a pod's network namespace (no net/ here)."""
    root = str(tmp_path / "root")
    build_numa(root, {0: [0, 1], 1: [2, 3]})
    build_pci(root, PF, "0x020000", "mlx5_core", 1, NODE1_CPUS, vendor=MLX, extra={"sriov_numvfs": "%d\n" % numvfs, "sriov_totalvfs": "8\n"})
    interface(root, PF, "ens1f0")
    for number, (address, driver) in enumerate((("0000:3b:00.2", "mlx5_core"), ("0000:3b:00.3", "vfio-pci"), ("0000:3b:00.4", "mlx5_core"))):
        build_pci(root, address, "0x020000", driver, 1, NODE1_CPUS, vendor=MLX)
        os.symlink("../" + PF, os.path.join(root, "sys/devices/pci0000:00", address, "physfn"))
        os.symlink("../" + address, os.path.join(root, "sys/devices/pci0000:00", PF, "virtfn%d" % number))
    interface(root, "0000:3b:00.2", "ens1f0v0")
    return root


def vf(index, address, driver, interfaces):
    return {"index": index, "pci_address": address, "driver": driver, "interfaces": interfaces, "numa_node": 1, "numa_source": "sysfs",
            "sysfs_numa_node": 1, "local_cpus": NODE1_CPUS}


def test_vfs_from_the_pci_tree_including_vfio_and_moved_ones(tmp_path):
    facts = gather(build_host(tmp_path), gpu_source="none")
    assert facts["sriov"] == [{"pf": PF, "driver": "mlx5_core", "interfaces": ["ens1f0"], "numvfs": 3, "totalvfs": 8, "vfs": [
        vf(0, "0000:3b:00.2", "mlx5_core", ["ens1f0v0"]), vf(1, "0000:3b:00.3", "vfio-pci", []), vf(2, "0000:3b:00.4", "mlx5_core", [])]}]
    assert [(n["name"], n["pci_address"], n["virtual_function"]) for n in facts["nics"]] == [
        ("ens1f0", PF, False), ("ens1f0v0", "0000:3b:00.2", True)]
    assert not [w for w in facts["warnings"] if "sriov" in w]


def test_a_pods_vf_maps_to_the_host_even_when_it_is_no_interface_here(tmp_path):
    oracle = locality.build(gather(build_host(tmp_path), gpu_source="none"))
    assert [(d["kind"], d["name"], d["pci_address"], d["numa_node"]) for d in oracle["devices"]] == [
        ("nic", "ens1f0", PF, 1), ("nic", "ens1f0v0", "0000:3b:00.2", 1), ("nic", None, "0000:3b:00.3", 1), ("nic", None, "0000:3b:00.4", 1)]
    vfio = map_device("intel.com/sriov_dpdk", "0000:3b:00.3", oracle, [1])
    assert (vfio["kind"], vfio["pci_address"], vfio["numa_node"], vfio["numa_source"]) == ("nic", "0000:3b:00.3", 1, "sysfs")
    moved = map_device("intel.com/sriov_netdevice", "3b:00.4", oracle)
    assert (moved["kind"], moved["pci_address"], moved["numa_node"]) == ("nic", "0000:3b:00.4", 1)
    assert oracle["by_numa_node"]["1"]["nics"] == ["ens1f0", "ens1f0v0", "0000:3b:00.3", "0000:3b:00.4"]


def test_fewer_virtfn_links_than_numvfs_is_named(tmp_path):
    facts = gather(build_host(tmp_path, numvfs=4), gpu_source="none")
    assert len(facts["sriov"][0]["vfs"]) == 3
    assert "sriov pf 0000:3b:00.0: sriov_numvfs is 4 but 3 virtfn links lead to a VF" in facts["warnings"]


def test_this_machines_real_pci_tree():
    """Every PCI function here with a readable sriov_numvfs is a PF of the facts, with as many VFs as it has virtfn links."""
    base = "/sys/bus/pci/devices"
    expected = {}
    for name in sorted(os.listdir(base)) if os.path.isdir(base) else []:
        if os.path.exists(os.path.join(base, name, "sriov_numvfs")):
            expected[name] = len([n for n in os.listdir(os.path.join(base, name)) if n.startswith("virtfn")])
    facts = gather("/", gpu_source="none")
    assert {pf["pf"]: len(pf["vfs"]) for pf in facts["sriov"]} == expected
