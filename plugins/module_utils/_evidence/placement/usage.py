# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A cgroup's CPU usage counter, with the time it was read.

Public: `read_usage`.

cgroup v2: ``usage_usec`` of ``cpu.stat`` (microseconds); cgroup v1: ``cpuacct.usage`` (nanoseconds).
Both become ``usage_ns``. The counter counts CPU time of the cgroup and all its descendants, so a
pod's counter already holds its containers': adding both would count the same time twice.
``monotonic_ns`` (CLOCK_MONOTONIC of the reading host) is what two samples are compared by;
``wall_time`` is for the record only. A counter is the kernel's non-negative decimal integer: a
negative or otherwise implausible value is refused, naming the file and the field, never reported.
"""

from __future__ import annotations

import posixpath
import time

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence.placement import cgroups
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence import measures
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence import nodefs


def _stamp(usage_ns, source):
    return {"usage_ns": usage_ns, "source": source, "monotonic_ns": time.clock_gettime_ns(time.CLOCK_MONOTONIC),
            "wall_time": round(time.time(), 6)}


def read_usage(root, tree, cgroup):
    """{"usage_ns", "source", "monotonic_ns", "wall_time"} for ``cgroup``, or None when no counter is readable."""
    relative = cgroups.relative_path(cgroup, "cgroup")
    if tree["version"] == 2:
        path = posixpath.join(tree["cpuset"], relative, "cpu.stat")
        text = nodefs.read_text(root, path, 65536)
        if text is None:
            return None
        for line in text.splitlines():
            key, _sep, value = line.partition(" ")
            if key == "usage_usec":
                usec = measures.count(value, "/" + path, "usage_usec", "a CPU usage counter in microseconds")
                return _stamp(measures.number(usec * 1000, "/" + path, "usage_usec", "a CPU usage counter in nanoseconds"),
                              "/" + path + ":usage_usec")
        raise nodefs.EvidenceError("%s has no usage_usec line" % path, path=path)
    if tree["cpuacct"] is None:
        return None
    path = posixpath.join(tree["cpuacct"], relative, "cpuacct.usage")
    text = nodefs.read_text(root, path, 4096)
    if text is None:
        return None
    return _stamp(measures.count(text.strip(), "/" + path, "cpuacct.usage", "a CPU usage counter in nanoseconds"), "/" + path)
