# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""PCI devices under sys/bus/pci/devices, and the NUMA locality of one device.

Public: `PCI_DIR`, `read_pci_devices`, `pci_locality`, `resolve_numa`, `single_node`.

A PCI ``numa_node`` of -1 means unknown, never node 0. Where sysfs does not know, a vendor tool's
answer is used, else the one NUMA node with CPUs on a single-node machine, else unknown; where
sysfs and a vendor tool disagree, sysfs is kept and the disagreement is a warning.
"""

from __future__ import annotations

import os

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import pci as _pci
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts import links
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts import sysfs
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts import sysfs_cpusets

PCI_DIR = "sys/bus/pci/devices"


def read_pci_devices(root, notes):
    """{normalised address: resolved device directory}."""
    devices = {}
    names, warning = root.list_dir(root.join(PCI_DIR))
    if names is None:
        if not sysfs.is_missing(warning):
            notes.add(warning)
        return devices
    for name in names:
        try:
            address = _pci.normalize(name)
        except _pci.PciAddressError as exc:
            notes.add("%s/%s: %s; skipped" % (root.join(PCI_DIR), sysfs.excerpt(name), exc))
            continue
        directory, warning = links.resolve(root.path, PCI_DIR + "/" + name)
        if directory is None or not os.path.isdir(directory):
            notes.add((warning or "%s/%s: not a directory" % (PCI_DIR, name)) + "; PCI device skipped")
            continue
        devices[address] = directory
    return devices


def pci_locality(root, notes, kind, address, directory):
    """(sysfs numa_node or None, local_cpus or None), with warnings naming the device."""
    label = "%s %s" % (kind, address)
    numa_node, warning = root.read_int(os.path.join(directory, "numa_node"))
    if numa_node is None:
        notes.add("%s: %s; sysfs numa_node unknown" % (label, warning))
    elif numa_node == -1:
        notes.add("%s: sysfs numa_node is -1, which means unknown (not node 0): the kernel has no NUMA locality for this device" % label)
        numa_node = None
    elif numa_node < -1:
        notes.add("%s: sysfs numa_node %d is not a NUMA node id or -1; treated as unknown" % (label, numa_node))
        numa_node = None
    local_cpus, warning = sysfs_cpusets.read_cpus(os.path.join(directory, "local_cpulist"), os.path.join(directory, "local_cpus"), root)
    if warning:
        notes.add("%s: %s" % (label, warning))
    return numa_node, local_cpus


def resolve_numa(notes, label, sysfs_node, vendor, single, known_nodes):
    """(numa_node, numa_source) of a device from sysfs, a vendor tool, or the single node with CPUs."""
    if sysfs_node is not None and sysfs_node not in known_nodes:
        notes.add("%s: sysfs numa_node %d is not an online NUMA node" % (label, sysfs_node))
    vendor_node = vendor["numa_node"] if vendor else None
    if sysfs_node is not None:
        if vendor_node is not None and vendor_node != sysfs_node:
            notes.add("%s: sysfs says NUMA node %d, %s says %d; kept sysfs" % (label, sysfs_node, vendor["source"], vendor_node))
        return sysfs_node, "sysfs"
    if vendor_node is not None:
        return vendor_node, vendor["source"]
    if single is not None:
        return single, "single-node"
    return None, None


def single_node(numa_nodes):
    """The id of the one NUMA node with CPUs, or None when there are several (or none)."""
    with_cpus = [node["id"] for node in numa_nodes if node["cpus"]]
    return with_cpus[0] if len(with_cpus) == 1 else None
