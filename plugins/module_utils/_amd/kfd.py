# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The KFD topology of AMD GPUs: sys/class/kfd/kfd/topology/nodes/*/{properties,gpu_id,io_links}.

Public: `KFD_DIR`, `LINK_TYPES`, `read_kfd`, `kfd_address`.

KFD (the amdgpu compute driver) lists CPU nodes (``cpu_cores_count`` > 0, no SIMDs) and GPU nodes
(``simd_count`` > 0): one per GPU, or one per partition of a partitioned GPU (MI300 CPX: 8 nodes
whose ``location_id`` function bits carry the partition index, not a PCI function). Every value is
read as the kernel writes it (``kfd_topology.c``); a node whose properties cannot be read whole is
left out with a warning naming the file, and the rest of the facts come from sysfs as usual.
The files are read through the ``root`` and ``notes`` the caller passes (the facts' `sysfs.Root` and
`notes.Notes`: ``join``, ``list_dir``, ``read_text``, ``read_int``; ``add``), so this floor reads
nothing outside that root and imports no step.
"""

from __future__ import annotations

import os

KFD_DIR = "sys/class/kfd/kfd/topology"
# CRAT_IOLINK_TYPE_* (amdkfd/kfd_crat.h): the io_interface_type a link's "type" holds.
LINK_TYPES = {1: "hypertransport", 2: "pcie", 5: "qpi", 11: "xgmi"}
# A GPU node without these cannot be placed on a PCI device or told apart from its partitions.
_GPU_KEYS = ("simd_count", "location_id", "unique_id")
_LINK_KEYS = ("type", "node_from", "node_to", "weight")
# node_show and iolink_show (kfd_topology.c) write these lines last: a file that ends elsewhere was cut short,
# and its last number may be cut too ("location_id 97" for 9728), so nothing in it is used.
_NODE_LAST = "max_engine_clk_ccompute"
_LINK_LAST = "flags"


def kfd_address(properties):
    """The PCI address a GPU node's domain and location_id name (the function bits may be a partition index)."""
    location = properties["location_id"]
    return "%04x:%02x:%02x.%d" % (properties.get("domain", 0), location >> 8, (location >> 3) & 0x1f, location & 7)


def _parse_properties(path, text, last):
    """{name: int} of a KFD properties file; (None, reason) when a line is not '<name> <integer>' or ``last`` is not last."""
    values = {}
    lines = [line for line in text.splitlines() if line.strip()]
    for number, line in enumerate(lines, 1):
        parts = line.split()
        if len(parts) != 2 or not parts[1].isdigit():
            return None, "%s: line %d %r is not '<name> <integer>' (truncated or not a KFD properties file)" % (path, number, line[:40])
        values[parts[0]] = int(parts[1])
    if not lines or lines[-1].split()[0] != last:
        return None, "%s: ends with %r, not the %s line the kernel writes last (truncated)" % (
            path, lines[-1][:40] if lines else "", last)
    return values, None


def _read_properties(root, notes, path, required, what, last):
    text, warning = root.read_text(path)
    if text is None:
        notes.add("%s; %s left out" % (warning, what))
        return None
    values, reason = _parse_properties(path, text, last)
    if values is None:
        notes.add("%s; %s left out" % (reason, what))
        return None
    missing = [key for key in required if key not in values]
    if missing:
        notes.add("%s: has no %s (truncated?); %s left out" % (path, ", ".join(missing), what))
        return None
    return values


def _read_links(root, notes, node_dir, node_id, properties):
    links_dir = os.path.join(node_dir, "io_links")
    names, warning = root.list_dir(links_dir)
    if names is None:
        if properties.get("io_links_count"):
            notes.add("KFD node %d: %s, although its properties count %d io_links; its CPU and GPU links are unknown"
                      % (node_id, warning, properties["io_links_count"]))
        else:
            notes.add("KFD node %d: %s; its CPU and GPU links are unknown" % (node_id, warning))
        return []
    links = []
    for name in sorted((n for n in names if n.isdigit()), key=int):
        values = _read_properties(root, notes, os.path.join(links_dir, name, "properties"), _LINK_KEYS, "this io_link", _LINK_LAST)
        if values is None:
            continue
        if values["node_from"] != node_id:
            notes.add("KFD node %d: io_link %s starts at node %d, not %d; left out" % (node_id, name, values["node_from"], node_id))
            continue
        links.append({"node_to": values["node_to"], "type": LINK_TYPES.get(values["type"], "type %d" % values["type"]),
                      "weight": values["weight"]})
    if not links:
        notes.add("KFD node %d: no io_links under %s; its CPU and GPU links are unknown" % (node_id, links_dir))
    return links


def read_kfd(root, notes):
    """{"cpu_nodes": {id: cores}, "gpu_nodes": [node, ...]} from the KFD topology, or None without one.

    A GPU node is ``{id, address, gpu_id, unique_id, hive_id, device_id, render_minor, num_xcc,
    links}``: ``address`` as `kfd_address` gives it, ``unique_id``/``hive_id`` as decimal strings
    (64-bit values; ``hive_id`` None when 0, no XGMI hive), ``links`` its io_links.
    """
    nodes_dir = root.join(KFD_DIR + "/nodes")
    names, warning = root.list_dir(nodes_dir)
    if names is None:
        if not warning.endswith(": missing"):
            notes.add("%s; the KFD topology is unknown" % warning)
        return None
    cpu_nodes, gpu_nodes = {}, []
    for name in sorted((n for n in names if n.isdigit()), key=int):
        node_id = int(name)
        node_dir = os.path.join(nodes_dir, name)
        properties = _read_properties(root, notes, os.path.join(node_dir, "properties"), ("cpu_cores_count", "simd_count"),
                                      "KFD node %d" % node_id, _NODE_LAST)
        if properties is None:
            continue
        if properties["simd_count"] == 0:
            if properties["cpu_cores_count"]:
                cpu_nodes[node_id] = properties["cpu_cores_count"]
            continue
        missing = [key for key in _GPU_KEYS if key not in properties]
        if missing:
            notes.add("%s: has no %s (truncated?); KFD node %d left out" % (os.path.join(node_dir, "properties"), ", ".join(missing), node_id))
            continue
        gpu_id, _warning = root.read_int(os.path.join(node_dir, "gpu_id"))
        gpu_nodes.append({
            "id": node_id,
            "address": kfd_address(properties),
            "gpu_id": gpu_id,
            "unique_id": str(properties["unique_id"]),
            "hive_id": str(properties["hive_id"]) if properties.get("hive_id") else None,
            "device_id": "0x%04x" % properties["device_id"] if "device_id" in properties else None,
            "render_minor": properties.get("drm_render_minor"),
            "num_xcc": properties.get("num_xcc"),
            "links": _read_links(root, notes, node_dir, node_id, properties),
        })
    return {"cpu_nodes": cpu_nodes, "gpu_nodes": gpu_nodes}
