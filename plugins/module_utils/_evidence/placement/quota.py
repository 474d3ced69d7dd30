# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A cgroup's CFS bandwidth limit, in cgroup v2's ``cpu.max`` form.

Public: `read_quota`.

With the static CPU manager, the kubelet leaves a container with exclusive CPUs without a CFS quota
(kubernetes/kubernetes#117030, feature gate ``DisableCPUQuotaWithExclusiveCPUs``) and gives a container on a
shared pool its limit as a quota; the effect criterion compares the two. cgroup v2: ``cpu.max`` (``max 100000`` or
``<quota> <period>``, both microseconds). cgroup v1: ``cpu.cfs_quota_us`` (-1 for none) and
``cpu.cfs_period_us`` of the ``cpu`` hierarchy, given back in the v2 form. A value of
another shape is refused, naming the file; a cgroup without the files is None (not read).
"""

from __future__ import annotations

import posixpath

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence.placement import cgroups
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence import measures
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence import nodefs


def _microseconds(word, path, field):
    return measures.count(word, "/" + path, field, "a CFS time in microseconds", 1)


def _v2(root, path):
    text = nodefs.read_text(root, path, 4096)
    if text is None:
        return None
    words = text.split()
    if len(words) != 2:
        raise nodefs.EvidenceError("%s is %r: cpu.max is '<quota|max> <period>'" % (path, text.strip()[:64]), path=path)
    quota = "max" if words[0] == "max" else str(_microseconds(words[0], path, "quota"))
    return "%s %d" % (quota, _microseconds(words[1], path, "period"))


def _v1(root, directory):
    quota_path, period_path = posixpath.join(directory, "cpu.cfs_quota_us"), posixpath.join(directory, "cpu.cfs_period_us")
    quota, period = nodefs.read_text(root, quota_path, 4096), nodefs.read_text(root, period_path, 4096)
    if quota is None or period is None:
        return None
    quota = quota.strip()
    limit = "max" if quota == "-1" else str(_microseconds(quota, quota_path, "cpu.cfs_quota_us"))
    return "%s %d" % (limit, _microseconds(period.strip(), period_path, "cpu.cfs_period_us"))


def read_quota(root, tree, cgroup):
    """``"max <period>"`` or ``"<quota> <period>"`` for ``cgroup``, or None when its files are not there."""
    relative = cgroups.relative_path(cgroup, "cgroup")
    if tree["version"] == 2:
        return _v2(root, posixpath.join(tree["cpuset"], relative, "cpu.max"))
    # v1: the cpu controller has a mount of its own or shares cpuacct's (both layouts are common).
    for name in ("cpu", "cpu,cpuacct", "cpuacct,cpu"):
        mount = posixpath.join(cgroups.CGROUP, name)
        if nodefs.is_dir(root, mount):
            return _v1(root, posixpath.join(mount, relative))
    return None
