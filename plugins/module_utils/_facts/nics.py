# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Network interfaces on PCI: driver, NUMA locality, RDMA devices, virtual functions.

Public: `read_nics`.

A NIC is an entry of sys/class/net whose ``device`` link leads to a PCI function (or to a virtio
device on one); virtual interfaces (lo, bridges, veth, tunnels) have no device and are left out.
"""

from __future__ import annotations

import os

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import pci as _pci
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts import links
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts import pci_devices
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts import sysfs


def _pci_parent(device):
    """The PCI function behind a device directory, or None (not PCI).

    The device itself, or for virtio the PCI function it sits on.
    """
    name = os.path.basename(device)
    if _pci.is_address(name):
        return device
    parent = os.path.dirname(device)
    if name.startswith("virtio") and _pci.is_address(os.path.basename(parent)):
        return parent
    return None


def _class_devices(root, notes, class_dir):
    """{name: resolved device directory} for entries of a /sys/class dir with a device link."""
    names, warning = root.list_dir(root.join(class_dir))
    if names is None:
        if not sysfs.is_missing(warning):
            notes.add(warning)
        return {}
    devices = {}
    for name in names:
        entry, warning = links.resolve(root.path, class_dir + "/" + name)
        if entry is None:
            notes.add(warning + "; %s skipped" % name)
            continue
        link = os.path.join(entry, "device")
        if not os.path.lexists(link):
            continue  # virtual: lo, bridges, veth, tunnels
        device, warning = links.resolve(root.path, root.relative(link))
        if device is None or not os.path.isdir(device):
            notes.add("%s: %s; left out" % (name, warning or "%s does not lead to a device directory" % link))
            continue
        devices[name] = device
    return devices


def read_nics(root, notes, numa_nodes):
    """The NIC facts, sorted by interface name."""
    single = pci_devices.single_node(numa_nodes)
    known = {node["id"] for node in numa_nodes}
    rdma = {}
    for name, device in _class_devices(root, notes, "sys/class/infiniband").items():
        pci_dir = _pci_parent(device)
        if pci_dir is not None:
            rdma.setdefault(pci_dir, []).append(name)
    nics = []
    for name, device in sorted(_class_devices(root, notes, "sys/class/net").items()):
        pci_dir = _pci_parent(device)
        if pci_dir is None:
            continue
        address = _pci.normalize(os.path.basename(pci_dir))
        # The PCI function's driver (virtio-pci for a virtio NIC, not the virtio_net of the virtio device under it),
        # named by the link itself: snapshots do not have the link's target.
        driver, warning = links.link_basename(root.path, root.relative(os.path.join(pci_dir, "driver")))
        if driver is None:
            notes.add("nic %s: %s; driver unknown" % (name, warning))
        sysfs_node, local_cpus = pci_devices.pci_locality(root, notes, "nic %s" % name, address, pci_dir)
        numa_node, numa_source = pci_devices.resolve_numa(notes, "nic %s" % name, sysfs_node, None, single, known)
        nics.append({
            "name": name,
            "pci_address": address,
            "driver": driver,
            "numa_node": numa_node,
            "numa_source": numa_source,
            "sysfs_numa_node": sysfs_node,
            "local_cpus": local_cpus,
            "rdma_devices": sorted(rdma.get(pci_dir, [])),
            "virtual_function": os.path.lexists(os.path.join(pci_dir, "physfn")),
        })
    return nics
