# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A cgroup's CPU usage counter, with the time it was read.

Public: `read_usage`.

cgroup v2: ``usage_usec`` of ``cpu.stat`` (microseconds); cgroup v1: ``cpuacct.usage`` (nanoseconds).
Both become ``usage_ns``. The counter counts CPU time of the cgroup and all its descendants, so a
pod's counter already holds its containers': adding both would count the same time twice.
``monotonic_ns`` (CLOCK_MONOTONIC of the reading host) is what two samples are compared by;
``wall_time`` is for the record only.
"""

from __future__ import annotations

import posixpath
import time

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence import nodefs


def _stamp(usage_ns, source):
    return {"usage_ns": usage_ns, "source": source, "monotonic_ns": time.clock_gettime_ns(time.CLOCK_MONOTONIC),
            "wall_time": round(time.time(), 6)}


def read_usage(root, tree, cgroup):
    """{"usage_ns", "source", "monotonic_ns", "wall_time"} for ``cgroup``, or None when no counter is readable."""
    relative = cgroup.lstrip("/")
    if tree["version"] == 2:
        path = posixpath.join(tree["cpuset"], relative, "cpu.stat")
        text = nodefs.read_text(root, path, 65536)
        if text is None:
            return None
        for line in text.splitlines():
            key, _sep, value = line.partition(" ")
            if key == "usage_usec":
                try:
                    return _stamp(int(value) * 1000, "/" + path + ":usage_usec")
                except ValueError as exc:
                    raise nodefs.EvidenceError("%s: usage_usec %r is not an integer" % (path, value), path=path) from exc
        raise nodefs.EvidenceError("%s has no usage_usec line" % path, path=path)
    if tree["cpuacct"] is None:
        return None
    path = posixpath.join(tree["cpuacct"], relative, "cpuacct.usage")
    text = nodefs.read_text(root, path, 4096)
    if text is None:
        return None
    try:
        return _stamp(int(text.strip()), "/" + path)
    except ValueError as exc:
        raise nodefs.EvidenceError("%s: %r is not an integer" % (path, text.strip()), path=path) from exc
