# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""NUMA nodes: their online CPUs, memory, huge page pools and distances.

Public: `NODE_DIR`, `read_numa_nodes`, `memtotal`.

Every online node is listed, CPU-less and memory-less ones included. A node's ``cpus`` are its
online CPUs only (the kubelet's view). Without ``sys/devices/system/node`` (a non-NUMA kernel)
there is one node 0 built from /proc/meminfo with all online CPUs, as hwloc does. A huge page
pool larger than its node's memory is reported, not trusted silently.
"""

from __future__ import annotations

import os
import re

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import cpulist as _cpulist
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts import sysfs
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts import sysfs_cpusets

NODE_DIR = "sys/devices/system/node"
_MEMTOTAL = re.compile(r"MemTotal:\s*(\d+)\s*kB")
_HUGEPAGES_DIR = re.compile(r"^hugepages-(\d+)kB$")


def read_numa_nodes(root, notes, online):
    """(nodes, cpu_node): the NUMA nodes, and {online cpu: the node whose cpulist has it}."""
    node_dir = root.join(NODE_DIR)
    if not root.isdir(node_dir):
        node = _single_node_from_proc(root, notes, online)
        _check_pools(notes, node)
        return [node], {cpu: 0 for cpu in online}
    online_set = frozenset(online)
    cpu_node = {}
    names, warning = root.list_dir(node_dir)
    if names is None:
        notes.add(warning)
        names = []
    dirs = sorted(int(name[4:]) for name in names if name.startswith("node") and name[4:].isdigit())
    node_online, warning = sysfs_cpusets.read_cpulist(os.path.join(node_dir, "online"), root)
    if node_online is None:
        if not sysfs.is_missing(warning):
            notes.add(warning + "; used the nodeN directories instead")
        node_ids = dirs
    else:
        node_ids = _cpulist.parse(node_online)
    possible, _warning = sysfs_cpusets.read_cpulist(os.path.join(node_dir, "possible"), root)
    possible_ids = _cpulist.parse(possible) if possible is not None else None
    nodes = []
    # Each node's distance file has a value per online (or possible) node: their keys made once, not per node.
    keys = ([str(node) for node in node_ids], [str(node) for node in possible_ids] if possible_ids is not None else None)
    # Old kernels have only cpumap: decided once, from the first node, not tried per node.
    first = [node for node in node_ids if node in dirs][:1]
    list_name = "cpulist" if not first or root.exists(os.path.join(node_dir, "node%d" % first[0], "cpulist")) else None
    for node_id in node_ids:
        ndir = "%s/node%d" % (node_dir, node_id)
        if node_id not in dirs:
            notes.add("%s: missing although NUMA node %d is online; its cpus, memory and distances are unknown" % (ndir, node_id))
            nodes.append({"id": node_id, "cpus": None, "memory_bytes": None, "hugepages": None, "distances": None})
            continue
        cpus, warning = sysfs_cpusets.read_cpu_ids(list_name and ndir + "/" + list_name, ndir + "/cpumap", root)
        if cpus is None:
            notes.add(warning)
        else:
            if warning:
                notes.add(warning)
            # The kubelet's view: only online CPUs (sysfs node lists include offline ones).
            members = [cpu for cpu in cpus if cpu in online_set]
            for cpu in members:
                if cpu in cpu_node:
                    notes.add("cpu %d is in the cpulists of NUMA nodes %d and %d; kept in %d" % (cpu, cpu_node[cpu], node_id, cpu_node[cpu]))
                else:
                    cpu_node[cpu] = node_id
            cpus = _cpulist.format(members)
        nodes.append({
            "id": node_id,
            "cpus": cpus,
            "memory_bytes": memtotal(root, notes, ndir + "/meminfo"),
            "hugepages": _hugepages(root, notes, ndir + "/hugepages"),
            "distances": _distances(root, notes, ndir + "/distance", node_ids, possible_ids, keys),
        })
    for node in nodes:
        _check_pools(notes, node)
    return nodes, cpu_node


def _check_pools(notes, node):
    """Warn about a huge page pool larger than the node's memory: the kernel cannot have it."""
    memory = node["memory_bytes"]
    if memory is None or not node["hugepages"]:
        return
    for size, pool in node["hugepages"].items():
        total = pool.get("total")
        if total is not None and total * int(size[:-2]) * 1024 > memory:
            notes.add("NUMA node %d: the %s huge page pool of %d pages (%d bytes) is larger than the node's memory (%d bytes); "
                      "the pool's numbers cannot be right" % (node["id"], size, total, total * int(size[:-2]) * 1024, memory))


def memtotal(root, notes, path):
    """MemTotal of a meminfo file in bytes, or None (warned)."""
    text, warning = root.read_text(path)
    if text is None:
        notes.add(warning + "; memory_bytes unknown")
        return None
    match = _MEMTOTAL.search(text)
    if not match:
        notes.add("%s: no 'MemTotal: <n> kB' line; memory_bytes unknown" % path)
        return None
    return int(match.group(1)) * 1024


def _hugepages(root, notes, hdir):
    """{"2048kB": {"total": n, "free": n}}; {} when the node lists no size."""
    names, warning = root.list_dir(hdir)
    if names is None:
        if not sysfs.is_missing(warning):
            notes.add(warning)
        return {}
    sizes = {}
    for name in names:
        match = _HUGEPAGES_DIR.match(name)
        if not match:
            continue
        entry = {}
        for key, filename in (("total", "nr_hugepages"), ("free", "free_hugepages")):
            value, warning = root.read_int(os.path.join(hdir, name, filename))
            if value is not None and value < 0:
                value, warning = None, "%s: %d is negative" % (os.path.join(hdir, name, filename), value)
            if warning:
                notes.add(warning)
            entry[key] = value
        sizes["%skB" % match.group(1)] = entry
    return dict(sorted(sizes.items(), key=lambda item: int(item[0][:-2])))


def _distances(root, notes, path, online_ids, possible_ids, keys=None):
    """{"<node id>": distance}. The kernel prints one value per online node.

    ``keys``: the online and the possible node ids as strings (or None for possible), when the
    caller has made them once for all nodes.
    """
    if keys is None:
        keys = ([str(node) for node in online_ids], [str(node) for node in possible_ids] if possible_ids is not None else None)
    text, warning = root.read_text(path)
    if text is None:
        notes.add(warning + "; distances unknown")
        return None
    try:
        values = list(map(int, text.split()))
    except ValueError:
        notes.add("%s: %r is not a list of integers; distances unknown" % (path, text[:60]))
        return None
    if len(values) == len(online_ids):
        return dict(zip(keys[0], values))
    if possible_ids is not None and len(values) == len(possible_ids):
        notes.add("%s: %d values for %d online NUMA nodes; matched to the possible nodes %s instead"
                  % (path, len(values), len(online_ids), _cpulist.format(possible_ids)))
        return dict(zip(keys[1], values))
    notes.add("%s: %d values for %d online NUMA nodes; distances unknown" % (path, len(values), len(online_ids)))
    return None


def _single_node_from_proc(root, notes, online):
    """No sys/devices/system/node (non-NUMA kernel): one node 0, as hwloc does."""
    notes.add("%s: missing; one NUMA node 0 built from /proc/meminfo with all online cpus" % root.join(NODE_DIR))
    meminfo_path = root.join("proc/meminfo")
    text, warning = root.read_text(meminfo_path)
    memory = None
    hugepages = _hugepages(root, notes, root.join("sys/kernel/mm/hugepages"))
    if text is None:
        notes.add(warning + "; memory_bytes unknown")
    else:
        memory = memtotal(root, notes, meminfo_path)
        _merge_meminfo_hugepages(notes, text, hugepages)
        hugepages = dict(sorted(hugepages.items(), key=lambda item: int(item[0][:-2])))
    return {"id": 0, "cpus": _cpulist.format(online), "memory_bytes": memory, "hugepages": hugepages, "distances": None}


def _merge_meminfo_hugepages(notes, text, hugepages):
    """Add /proc/meminfo's default huge page size when sysfs does not list it."""
    fields = {}
    for line in text.splitlines():
        key, _sep, value = line.partition(":")
        fields[key.strip()] = value.split()
    try:
        size = "%dkB" % int(fields["Hugepagesize"][0])
        total = int(fields["HugePages_Total"][0])
        free = int(fields["HugePages_Free"][0])
    except (KeyError, IndexError, ValueError):
        return
    if size not in hugepages:
        hugepages[size] = {"total": total, "free": free}
    elif hugepages[size] != {"total": total, "free": free}:
        notes.add("/proc/meminfo says %s huge pages total %d free %d, sys/kernel/mm/hugepages says total %s free %s; kept sysfs"
                  % (size, total, free, hugepages[size]["total"], hugepages[size]["free"]))
