# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A cgroup's ``memory.numa_stat``: its memory per NUMA node by type, in bytes, huge pages apart.

Public: `parse`, `read_numa_stat`, `resident_bytes`, `TYPES`, `HUGE`, `BREAKDOWN`, `EVENTS`, `V1_TYPES`, `CHECK`.

cgroup v2 (Documentation/admin-guide/cgroup-v2.rst, ``memory.numa_stat``): one line per type,
``<type> N0=<bytes in node 0> N1=<bytes in node 1> ...``; the types are the node-level entries of
``memory.stat`` (mm/memcontrol.c ``memory_numa_stat_show`` prints only those). Here they are kept as:

- ``bytes``: what is resident, by kind: ``anon``, ``file`` (which includes ``shmem``, also shown
  apart) and ``kernel`` (the sum of ``kernel_stack``, ``pagetables``, ``sec_pagetables``,
  ``slab_reclaimable``, ``slab_unreclaimable``);
- ``huge_bytes``: ``anon_thp``, ``file_thp``, ``shmem_thp`` (already inside ``anon``/``file``, so
  never added again) and ``hugetlb`` (outside both);
- ``breakdown``: the LRU lists and page states (``active_anon``, ``file_mapped``, ...), parts of the above;
- ``events``: the ``workingset_*`` counters, which are counts, not bytes.

cgroup v1 (Documentation/admin-guide/cgroup-v1/memory.rst, 5.6 "numa_stat"): ``<type>=<total>
N0=<pages> ...`` for ``total``, ``file``, ``anon``, ``unevictable`` and their ``hierarchical_``
forms, in PAGES of the kernel's page size (mm/memcontrol-v1.c counts LRU pages), turned into bytes
here with ``page_size``; ``total`` is the sum of the three disjoint LRU sets.

`resident_bytes` is what the local-byte fraction counts: v2 ``anon`` + ``file`` + ``hugetlb``, v1
``total`` (the cgroup's own pages; a container's cgroup has no children of its own).

Never a crash, never silence: a type this file does not know, a negative or non-decimal count, a
field that is not ``N<node>=``, or a line of the other version's form is a finding (check
``memory_numa_stat``, result ``unknown``) naming the file, the line, the key and the value; the
line's other, valid values are still kept.
"""

from __future__ import annotations

import os
import posixpath
import re

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence.placement import cgroups
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence import nodefs

CHECK = "memory_numa_stat"
KERNEL = ("kernel_stack", "pagetables", "sec_pagetables", "slab_reclaimable", "slab_unreclaimable")
TYPES = ("anon", "file", "shmem") + KERNEL
HUGE = ("anon_thp", "file_thp", "shmem_thp", "hugetlb")
BREAKDOWN = ("file_mapped", "file_dirty", "file_writeback", "swapcached", "inactive_anon", "active_anon", "inactive_file", "active_file",
             "unevictable")
EVENTS = ("workingset_refault_anon", "workingset_refault_file", "workingset_activate_anon", "workingset_activate_file",
          "workingset_restore_anon", "workingset_restore_file", "workingset_nodereclaim")
V1_TYPES = ("total", "file", "anon", "unevictable")
_NODE = re.compile(r"N([0-9]{1,5})=(-?[0-9]+)\Z")
_DECIMAL = re.compile(r"[0-9]{1,19}\Z")
_MAX = 2 ** 63 - 1
_LIMIT = 1024 * 1024  # a few dozen lines of up to MAX_NUMNODES fields each


def _finding(where, number, key, value, rule):
    return {"check": CHECK, "result": "unknown", "expected": rule, "observed": {"key": key, "value": value},
            "sources": {"observed": where},
            "message": "%s line %d: %s %r %s; not counted" % (where, number, key, value, rule)}


def _nodes(fields, where, number, key, findings):
    """{node: count} of ``N<node>=<count>`` fields; each field of another form is a finding."""
    found = {}
    for field in fields:
        match = _NODE.match(field)
        if match is None:
            findings.append(_finding(where, number, key, field[:60], "is not a node field (N<node id>=<non-negative decimal>)"))
            continue
        value = match.group(2)
        if not _DECIMAL.match(value) or int(value) > _MAX:
            findings.append(_finding(where, number, "%s N%s" % (key, match.group(1)), value[:40],
                                     "is not a count (a non-negative decimal integer up to 2**63-1)"))
            continue
        found[str(int(match.group(1)))] = int(value)
    return dict(sorted(found.items(), key=lambda kv: int(kv[0])))


def _scaled(nodes, factor):
    return {node: value * factor for node, value in nodes.items()}


def _v2(lines, where):
    out = {"format": "v2", "unit": "bytes", "bytes": {}, "huge_bytes": {}, "breakdown": {}, "events": {}, "findings": []}
    kernel = {}
    for number, words in lines:
        key = words[0]
        if "=" in key:
            out["findings"].append(_finding(where, number, key.split("=", 1)[0][:60], key[:60], "is in cgroup v1's form (<type>=<total>) in a v2 file"))
            continue
        nodes = _nodes(words[1:], where, number, key[:60], out["findings"])
        if key in KERNEL:
            for node, value in nodes.items():
                kernel[node] = kernel.get(node, 0) + value
            out["breakdown"][key] = nodes
        elif key in TYPES:
            out["bytes"][key] = nodes
        elif key in HUGE:
            out["huge_bytes"][key] = nodes
        elif key in BREAKDOWN:
            out["breakdown"][key] = nodes
        elif key in EVENTS:
            out["events"][key] = nodes
        else:
            out["findings"].append(_finding(where, number, "type", key[:60], "is not a memory.numa_stat type this collection knows "
                                            "(Documentation/admin-guide/cgroup-v2.rst)"))
    if kernel or any(key in out["breakdown"] for key in KERNEL):
        out["bytes"]["kernel"] = dict(sorted(kernel.items(), key=lambda kv: int(kv[0])))
    return out


def _v1(lines, where, page_size):
    out = {"format": "v1", "unit": "pages", "page_size": page_size, "bytes": {}, "hierarchical_bytes": {}, "findings": []}
    for number, words in lines:
        key, sep, total = words[0].partition("=")
        if not sep:
            out["findings"].append(_finding(where, number, "type", key[:60], "is in cgroup v2's form (<type> N0=...) in a v1 file"))
            continue
        target = out["bytes"]
        name = key
        if key.startswith("hierarchical_"):
            target, name = out["hierarchical_bytes"], key[len("hierarchical_"):]
        if name not in V1_TYPES:
            out["findings"].append(_finding(where, number, "type", key[:60], "is not a memory.numa_stat type this collection knows "
                                            "(Documentation/admin-guide/cgroup-v1/memory.rst)"))
            continue
        if not _DECIMAL.match(total):
            out["findings"].append(_finding(where, number, key[:60], total[:40], "is not a page count (a non-negative decimal integer)"))
        target[name] = _scaled(_nodes(words[1:], where, number, key[:60], out["findings"]), page_size)
    return out


def parse(text, where="memory.numa_stat", page_size=None):
    """The file's values by kind (see the module docstring), with ``findings``; v1 or v2 by the first line's form."""
    lines = [(number, line.split()) for number, line in enumerate(text.splitlines(), 1) if line.strip()]
    if not lines:
        return {"format": None, "unit": None, "bytes": {}, "findings": [
            {"check": CHECK, "result": "unknown", "expected": "a line per memory type", "observed": None, "sources": {"observed": where},
             "message": "%s is empty: no memory per node was read" % where}]}
    if "=" in lines[0][1][0]:
        return _v1(lines, where, page_size or os.sysconf("SC_PAGE_SIZE"))
    return _v2(lines, where)


def resident_bytes(stat):
    """{node: bytes} the cgroup holds (v2: anon + file + hugetlb; v1: total), the base of the local-byte fraction."""
    if stat.get("format") == "v1":
        return dict(stat["bytes"].get("total", {}))
    found = {}
    for pool in (stat["bytes"].get("anon", {}), stat["bytes"].get("file", {}), stat.get("huge_bytes", {}).get("hugetlb", {})):
        for node, value in pool.items():
            found[node] = found.get(node, 0) + value
    return dict(sorted(found.items(), key=lambda kv: int(kv[0])))


def _mount(root, tree):
    if tree["version"] == 2:
        return tree["cpuset"]
    mount = posixpath.join(nodefs.CGROUP, "memory")
    return mount if nodefs.is_dir(root, mount) else None


def read_numa_stat(root, tree, cgroup, page_size=None):
    """`parse` of ``cgroup``'s memory.numa_stat with its ``source`` and ``resident_bytes``, or None when there is none."""
    mount = _mount(root, tree)
    if mount is None:
        return None
    path = posixpath.join(mount, cgroups.relative_path(cgroup, "cgroup"), "memory.numa_stat")
    text = nodefs.read_text(root, path, _LIMIT)
    if text is None:
        return None
    stat = parse(text, "/" + path, page_size)
    stat["source"] = "/" + path
    stat["resident_bytes"] = resident_bytes(stat)
    return stat
