# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""SR-IOV physical functions and their virtual functions, from the PCI tree (whether or not a VF is an interface here).

Public: `read_sriov`.

The kernel's PCI sysfs (Documentation/ABI/testing/sysfs-bus-pci): a PF has ``sriov_numvfs`` (VFs enabled) and
``sriov_totalvfs``, and one link ``virtfn<N>`` per enabled VF to the VF's device directory (which has ``physfn``
back). A VF bound to ``vfio-pci`` has no ``net/`` entry, nor does one moved into a pod's network namespace
(the SR-IOV CNI moves the netdev), so sys/class/net does not show it; the PCI tree does. Each VF keeps its driver
(the link's name; None when unbound), its interfaces here, its NUMA node and local CPUs; the SR-IOV network device
plugin gives a pod a VF by this PCI address.
"""

from __future__ import annotations

import os
import re

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import pci as _pci
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts import links
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts import pci_devices
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts import sysfs

_VIRTFN = re.compile(r"^virtfn(\d+)$")


def _driver(root, directory):
    """The bound driver's name, or None when the function is unbound (no driver link)."""
    if not os.path.lexists(os.path.join(directory, "driver")):
        return None
    name, _warning = links.link_basename(root.path, root.relative(os.path.join(directory, "driver")))
    return name


def _interfaces(root, directory):
    names, _warning = root.list_dir(os.path.join(directory, "net"))
    return sorted(names or [])


def _vf(root, notes, pf, number, directory, single, known):
    address = _pci.normalize(os.path.basename(directory))
    label = "vf %s (virtfn%d of %s)" % (address, number, pf)
    sysfs_node, local_cpus = pci_devices.pci_locality(root, notes, "vf", address, directory)
    numa_node, numa_source = pci_devices.resolve_numa(notes, label, sysfs_node, None, single, known)
    return {"index": number, "pci_address": address, "driver": _driver(root, directory), "interfaces": _interfaces(root, directory),
            "numa_node": numa_node, "numa_source": numa_source, "sysfs_numa_node": sysfs_node, "local_cpus": local_cpus}


def _vfs(root, notes, address, directory, single, known):
    names, warning = root.list_dir(directory)
    if names is None:
        notes.add("sriov pf %s: %s; its VFs unknown" % (address, warning))
        return None
    numbered = sorted((int(m.group(1)), name) for m, name in ((_VIRTFN.match(n), n) for n in names) if m)
    vfs = []
    for number, name in numbered:
        target, warning = links.resolve(root.path, root.relative(os.path.join(directory, name)))
        if target is None or not os.path.isdir(target) or not _pci.is_address(os.path.basename(target)):
            notes.add("sriov pf %s: %s does not lead to a PCI function (%s); left out" % (address, name, warning or target))
            continue
        vfs.append(_vf(root, notes, address, number, target, single, known))
    return vfs


def read_sriov(root, notes, numa_nodes):
    """One entry per SR-IOV PF (a PCI function with ``sriov_numvfs``), by PCI address: {"pf", "driver", "interfaces", "numvfs",
    "totalvfs", "vfs": [{"index", "pci_address", "driver", "interfaces", "numa_node", "numa_source", "sysfs_numa_node", "local_cpus"}]}.
    A PF whose ``virtfn`` links are fewer than ``sriov_numvfs`` is named in a warning."""
    single = pci_devices.single_node(numa_nodes)
    known = {node["id"] for node in numa_nodes}
    out = []
    for address, directory in sorted(pci_devices.read_pci_devices(root, notes).items()):
        numvfs, warning = root.read_int(os.path.join(directory, "sriov_numvfs"))
        if numvfs is None:
            if not sysfs.is_missing(warning):
                notes.add("sriov pf %s: %s; its VFs unknown" % (address, warning))
            continue
        totalvfs, _warning = root.read_int(os.path.join(directory, "sriov_totalvfs"))
        vfs = _vfs(root, notes, address, directory, single, known)
        if vfs is not None and len(vfs) != numvfs:
            notes.add("sriov pf %s: sriov_numvfs is %d but %d virtfn links lead to a VF" % (address, numvfs, len(vfs)))
        out.append({"pf": address, "driver": _driver(root, directory), "interfaces": _interfaces(root, directory), "numvfs": numvfs,
                    "totalvfs": totalvfs, "vfs": vfs})
    return out
