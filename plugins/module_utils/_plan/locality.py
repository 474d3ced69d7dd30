# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The locality oracle: which NUMA node and CPUs each GPU and NIC is local to.

Derived from topology facts (schema v1), not a kubelet component. Every value
keeps where it came from, and sources that disagree are reported side by
side, never resolved silently: the acceptance record compares these values
with what the kubelet assigned.
"""

from __future__ import annotations

from ansible_collections.gpusmith.numa_gate.plugins.module_utils import _cpulist

ORACLE_VERSION = 1


class LocalityError(ValueError):
    """Facts that cannot be turned into an oracle."""


def build(topology):
    """Return the oracle for a topology facts dict (schema v1)."""
    if not isinstance(topology, dict) or topology.get("schema_version") != 1:
        raise LocalityError("locality oracle needs numa_gate_topology facts with schema_version 1, got %r"
                            % (topology.get("schema_version") if isinstance(topology, dict) else type(topology).__name__))
    node_cpus = {}
    for node in _entries(topology, "numa_nodes"):
        if not isinstance(node.get("id"), int) or isinstance(node.get("id"), bool):
            raise LocalityError("numa_nodes entry %r has no integer id" % (node,))
        node_cpus[node["id"]] = node.get("cpus") or ""
    devices = [_entry("gpu", gpu, node_cpus) for gpu in _entries(topology, "gpus")]
    devices += [_entry("nic", nic, node_cpus) for nic in _entries(topology, "nics")]
    devices.sort(key=lambda d: (d["kind"], d["pci_address"] or "", d["name"] or ""))
    unknown = [d["pci_address"] for d in devices if d["numa_node"] is None]
    disagreeing = [d["pci_address"] for d in devices if d["disagreements"]]
    return {
        "oracle_version": ORACLE_VERSION,
        "devices": devices,
        "by_numa_node": _by_node(devices, node_cpus),
        "unknown_locality": unknown,
        "disagreements": disagreeing,
    }


def _entries(topology, key):
    """topology[key] as a list of mappings; a missing or null list is empty."""
    items = topology.get(key)
    if items is None:
        return []
    if not isinstance(items, list) or not all(isinstance(item, dict) for item in items):
        raise LocalityError("topology %s must be a list of mappings, got %r" % (key, items))
    return items


def _entry(kind, device, node_cpus):
    observations = []
    sysfs_node = device.get("sysfs_numa_node", device.get("numa_node") if device.get("numa_source") == "sysfs" else None)
    observations.append({"source": "sysfs", "numa_node": sysfs_node, "cpus": _canonical_or_none(device.get("local_cpus"))})
    vendor = device.get("vendor_affinity")
    if vendor:
        observations.append({"source": vendor.get("source"), "numa_node": vendor.get("numa_node"),
                             "cpus": _canonical_or_none(vendor.get("cpus"))})
    numa_node = device.get("numa_node")
    if numa_node is not None and (not isinstance(numa_node, int) or isinstance(numa_node, bool)):
        raise LocalityError("%s %s: numa_node %r is not an integer or null" % (kind, device.get("pci_address"), numa_node))
    expected_cpus = node_cpus.get(numa_node) if numa_node is not None else None
    return {
        "kind": kind,
        "name": device.get("name"),
        "index": device.get("index"),
        "uuid": device.get("uuid"),
        "pci_address": device.get("pci_address"),
        "numa_node": numa_node,
        "numa_source": device.get("numa_source"),
        "node_cpus": expected_cpus,
        "observations": observations,
        "disagreements": _disagreements(observations),
    }


def _canonical_or_none(text):
    if text in (None, ""):
        return None
    try:
        return _cpulist.canonical(text)
    except _cpulist.CpuListError:
        return None


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
        if device["numa_node"] is None or str(device["numa_node"]) not in nodes:
            continue
        label = device["uuid"] if device["kind"] == "gpu" and device["uuid"] else device["name"] or device["pci_address"]
        nodes[str(device["numa_node"])][device["kind"] + "s"].append(label)
    return nodes
