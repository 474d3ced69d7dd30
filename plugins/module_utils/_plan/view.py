# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What the planner derives from the facts (`_facts.schema.Topology`): CPU nodes, reservable cores, devices per node.

Public: `cpu_nodes`, `usable_cores`, `Devices`, `devices`, `ids`.
"""

from __future__ import annotations

from collections import namedtuple

Devices = namedtuple("Devices", "gpus nics unplaced")
Devices.__doc__ = """gpus, nics: {NUMA node id: sorted labels}; unplaced: sorted "gpu <label>" / "nic <label>" with no known node."""


def cpu_nodes(topology):
    """NUMA node ids that have online CPUs, ascending."""
    return sorted(node_id for node_id, node in topology.nodes.items() if node.cpus)


def usable_cores(topology, node_id):
    """Cores of a node that can be reserved whole, by core id."""
    return sorted((core for core in topology.cores.values() if core.numa == node_id and core.usable), key=lambda core: core.id)


def devices(topology):
    """GPUs (by PCI address) and NICs (by name) on each NUMA node; the rest, unplaced."""
    gpus = {node_id: [] for node_id in topology.nodes}
    nics = {node_id: [] for node_id in topology.nodes}
    unplaced = []
    for table, entries in ((gpus, topology.gpus), (nics, topology.nics)):
        for device in entries:
            first = device.pci_address if device.kind == "gpu" else device.name
            label = str(first or device.pci_address or device.name or "?")
            if device.numa_node in topology.nodes:
                table[device.numa_node].append(label)
            else:
                unplaced.append("%s %s" % (device.kind, label))
    for table in (gpus, nics):
        for labels in table.values():
            labels.sort()
    return Devices(gpus=gpus, nics=nics, unplaced=sorted(unplaced))


def ids(items):
    """'0, 1' (or 'none') for a list of ids, in reasons and messages."""
    return ", ".join(str(item) for item in items) or "none"
