# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The locality oracle: which NUMA node and CPUs each GPU and NIC is local to.

Public: `build(topology)`, `LocalityError`, `ORACLE_VERSION`.

Derived from topology facts (schema v1, read through `_facts.schema.read`), not a kubelet
component. Every value keeps where it came from, and sources that disagree are reported side
by side, never resolved silently: the acceptance record compares these values with what the
kubelet assigned. A device whose NUMA node is unknown, or names a node the facts do not list,
is in ``unknown_locality``; ``warnings`` says why (the schema reader's words).
"""

from __future__ import annotations

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import cpulist as _cpulist
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts import schema

ORACLE_VERSION = 1


class LocalityError(schema.SchemaError):
    """Facts that cannot be turned into an oracle (a SchemaError, so a ValueError too)."""


def build(topology):
    """Return the oracle for a topology facts dict (schema v1)."""
    try:
        facts = schema.read(topology, "the locality oracle")
    except schema.SchemaError as exc:
        raise LocalityError(str(exc), **exc.details) from exc
    node_cpus = {node_id: _cpulist.format(node.cpus) for node_id, node in facts.nodes.items()}
    # SR-IOV VFs that are no interface here (vfio-pci, or in a pod's network namespace) are NICs too.
    shown = set(nic.pci_address for nic in facts.nics)
    devices = [_entry(device, facts, node_cpus) for device in facts.gpus + facts.nics + tuple(v for v in facts.vfs if v.pci_address not in shown)]
    devices.sort(key=lambda d: (d["kind"], d["pci_address"] or "", d["name"] or ""))
    unknown = [d["pci_address"] for d in devices if d["numa_node"] not in node_cpus]
    disagreeing = [d["pci_address"] for d in devices if d["disagreements"]]
    return {
        "oracle_version": ORACLE_VERSION,
        "devices": devices,
        "by_numa_node": _by_node(devices, node_cpus),
        "unknown_locality": unknown,
        "disagreements": disagreeing,
        "warnings": [warning for device in facts.gpus + facts.nics for warning in device.warnings],
    }


def _entry(device, facts, node_cpus):
    """One device of the oracle; a GPU with MIG devices also has ``mig_devices`` (their UUIDs)."""
    observations = [{"source": "sysfs", "numa_node": device.sysfs_numa_node, "cpus": device.local_cpus}]
    vendor = device.vendor_affinity
    if vendor is not None:
        observations.append({"source": vendor.source, "numa_node": vendor.numa_node, "cpus": vendor.cpus})
    entry = {
        "kind": device.kind,
        "name": device.name,
        "index": device.index,
        "uuid": device.uuid,
        "pci_address": device.pci_address,
        "numa_node": device.numa_node,
        "numa_source": device.numa_source,
        "node_cpus": node_cpus.get(device.numa_node) if device.numa_node in facts.nodes else None,
        "observations": observations,
        "disagreements": _disagreements(observations),
    }
    if device.mig_devices:  # only then, so an oracle without MIG reads as before
        entry["mig_devices"] = list(device.mig_devices)
    return entry


def _disagreements(observations):
    """Name every pair of sources that both know a value and differ on it."""
    found = []
    for field in ("numa_node", "cpus"):
        known = [(o["source"], o[field]) for o in observations if o[field] is not None]
        for index, (source_a, value_a) in enumerate(known):
            for source_b, value_b in known[index + 1:]:
                if value_a != value_b:
                    found.append("%s: %s says %s, %s says %s" % (field, source_a, value_a, source_b, value_b))
    return found


def _by_node(devices, node_cpus):
    nodes = {}
    for node_id in sorted(node_cpus):
        nodes[str(node_id)] = {"cpus": node_cpus[node_id], "gpus": [], "nics": []}
    for device in devices:
        if device["numa_node"] not in node_cpus:
            continue
        label = device["uuid"] if device["kind"] == "gpu" and device["uuid"] else device["name"] or device["pci_address"]
        nodes[str(device["numa_node"])][device["kind"] + "s"].append(label)
    return nodes
