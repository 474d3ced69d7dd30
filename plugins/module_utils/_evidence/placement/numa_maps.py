# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Resident pages per NUMA node from ``/proc/<pid>/numa_maps``, in bytes, huge pages apart.

Public: `parse`, `resident`, `local_fraction`, `add`.

Each mapping line has ``N<node>=<pages>`` counts in units of that mapping's
``kernelpagesize_kB`` (proc(5), Documentation/admin-guide/mm/numa_memory_policy.rst); hugetlb
mappings carry the word ``huge``. Counts are turned into bytes with their own page size, and
hugetlb bytes are kept per page size, never added to ordinary ones. Transparent huge pages are
counted by the kernel in base pages (``kernelpagesize_kB=4``), so they are ordinary bytes here.

Every number is a measurement or refused: a page count is a non-negative decimal integer, a page
size a positive power of two (every page size Linux has), a node id a decimal integer; ``N-1=5``,
``N0=-5``, ``kernelpagesize_kB=-4`` or ``=3`` name the file, the line, the field and the value.
"""

from __future__ import annotations

import re

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence import measures
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence import nodefs

_NODE = re.compile(r"N([0-9]{1,5})\Z")


def _page_bytes(fields, where, number):
    text = fields.get("kernelpagesize_kB", "4")
    size = measures.count(text, "%s line %d" % (where, number), "kernelpagesize_kB", "a page size in kB", 1)
    if size & (size - 1):
        raise nodefs.EvidenceError("%s line %d: kernelpagesize_kB %r is not a page size (a power of two); refused as a measurement"
                                   % (where, number, text), path=where, field="kernelpagesize_kB")
    return size * 1024


def parse(text, where="numa_maps"):
    """{"normal_bytes": {node: bytes}, "huge_bytes": {"<size>kB": {node: bytes}}, "mappings": n} (node keys are strings)."""
    normal = {}
    huge = {}
    count = 0
    for number, line in enumerate(text.splitlines(), 1):
        words = line.split()
        if len(words) < 2:
            continue
        count += 1
        fields = dict(word.split("=", 1) for word in words[2:] if "=" in word)
        size = _page_bytes(fields, where, number)
        target = huge.setdefault("%dkB" % (size // 1024), {}) if "huge" in words[2:] else normal
        for key, value in fields.items():
            match = _NODE.match(key)
            if match is None:
                if key[:1] == "N" and key[1:2] and key[1:2] in "-+0123456789":
                    raise nodefs.EvidenceError("%s line %d: %r is not a NUMA node field (N<node id>); refused as a measurement"
                                               % (where, number, key[:40]), path=where, field=key)
                continue
            pages = measures.count(value, "%s line %d" % (where, number), key, "a page count")
            node = str(int(match.group(1)))
            target[node] = target.get(node, 0) + pages * size
    return {"normal_bytes": dict(sorted(normal.items(), key=lambda kv: int(kv[0]))),
            "huge_bytes": {k: dict(sorted(v.items(), key=lambda kv: int(kv[0]))) for k, v in sorted(huge.items())},
            "mappings": count}


def resident(root, pid):
    """`parse` of the process's numa_maps, or None when the process is gone (or has no memory map)."""
    where = "proc/%d/numa_maps" % pid
    text = nodefs.read_text(root, where)
    if text is None:
        return None
    return parse(text, "/" + where)


def local_fraction(memory, expected_nodes):
    """{"local_bytes", "total_bytes", "fraction"} of ordinary and huge bytes together on ``expected_nodes``.

    Both kinds are already bytes, so they add up; ``fraction`` is None when nothing is resident.
    """
    wanted = {str(int(node)) for node in expected_nodes}
    pools = [memory["normal_bytes"]] + list(memory["huge_bytes"].values())
    total = sum(sum(pool.values()) for pool in pools)
    local = sum(value for pool in pools for node, value in pool.items() if node in wanted)
    return {"local_bytes": local, "total_bytes": total, "fraction": round(local / total, 6) if total else None}


def add(first, second):
    """The sum of two `parse` results (pages of separate processes; a page they share is in both)."""
    def merge(a, b):
        out = dict(a)
        for node, value in b.items():
            out[node] = out.get(node, 0) + value
        return dict(sorted(out.items(), key=lambda kv: int(kv[0])))
    huge = {size: merge(first["huge_bytes"].get(size, {}), second["huge_bytes"].get(size, {}))
            for size in sorted(set(first["huge_bytes"]) | set(second["huge_bytes"]))}
    return {"normal_bytes": merge(first["normal_bytes"], second["normal_bytes"]), "huge_bytes": huge,
            "mappings": first["mappings"] + second["mappings"]}
