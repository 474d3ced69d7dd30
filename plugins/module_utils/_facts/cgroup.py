# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The cgroup restriction of the reading process: the CPUs and memory nodes it may use.

Public: `read_allowed`.

Read as hwloc does: the cpuset of the process's own cgroup (cgroup v2 ``cpuset.*.effective`` of
the nearest cgroup that has them, cgroup v1 ``cpuset.cpus``/``mems``, or the old ``/dev/cpuset``),
intersected with the online CPUs and NUMA nodes.
"""

from __future__ import annotations

import posixpath
import re

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import cpulist as _cpulist
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts import sysfs
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts import sysfs_cpusets

_MOUNT_ESCAPE = re.compile(r"\\([0-7]{3})")


def read_allowed(root, notes, online, node_ids):
    """{"cpus", "mems", "source"}: what this process may use; everything online when no restriction is readable.

    The cpuset is intersected with the online CPUs and NUMA nodes, as hwloc
    does: a cgroup v1 ``cpuset.cpus`` keeps CPUs that are offline or absent.
    """
    everything = {"cpus": _cpulist.format(online), "mems": _cpulist.format(node_ids), "source": None}
    kind, mount = _cgroup_mount(root)
    if kind is None:
        return everything
    name = _cgroup_name(root)
    if name is None:
        return everything
    directory = posixpath.normpath(posixpath.join(mount, name.lstrip("/")))
    if kind == "cgroup2":
        files = ("cpuset.cpus.effective", "cpuset.mems.effective")
        directory = _cgroup2_cpuset_dir(root, notes, mount, directory)
        if directory is None:
            return everything
    elif kind == "cgroup1":
        files = ("cpuset.cpus", "cpuset.mems")
    else:
        files = ("cpus", "mems")
    values = []
    for filename, present in zip(files, (frozenset(online), frozenset(node_ids))):
        value, warning = sysfs_cpusets.read_cpulist_ids(root.join(posixpath.join(directory, filename)), root)
        if value is None:
            notes.add("%s; the cgroup restriction is unknown, all online cpus and nodes reported as allowed" % warning)
            return everything
        values.append(_cpulist.format(present.intersection(value)))
    return {"cpus": values[0], "mems": values[1], "source": "%s:%s" % ("cgroup2" if kind == "cgroup2" else "cpuset", directory)}


def _cgroup2_cpuset_dir(root, notes, mount, leaf):
    """The nearest cgroup from leaf up to the mount root with cpuset.cpus.effective, or None (warned).

    A cgroup without the cpuset controller enabled (often the process's own
    leaf under systemd) has no cpuset files and uses its parent's effective
    set, so the nearest ancestor that has the file holds it.
    """
    directory = leaf
    while True:
        if root.exists(root.join(posixpath.join(directory, "cpuset.cpus.effective"))):
            return directory
        if directory == mount or not directory.startswith(mount.rstrip("/") + "/"):
            break
        directory = posixpath.dirname(directory)
    notes.add("%s: no cgroup from %s up to %s has cpuset.cpus.effective; the cgroup restriction is unknown, "
              "all online cpus and nodes reported as allowed" % (sysfs.excerpt(root.join(leaf), 200), sysfs.excerpt(leaf, 200), mount))
    return None


def _cgroup_mount(root):
    if root.exists(root.join("sys/fs/cgroup/cpuset.cpus.effective")):
        return "cgroup2", "/sys/fs/cgroup"
    if root.exists(root.join("sys/fs/cgroup/cpuset/cpuset.cpus")):
        return "cgroup1", "/sys/fs/cgroup/cpuset"
    if root.exists(root.join("dev/cpuset/cpus")):
        return "cpuset", "/dev/cpuset"
    text, _warning = root.read_text(root.join("proc/mounts"))
    for line in (text or "").splitlines():
        fields = line.split()
        if len(fields) < 4:
            continue
        mount = _MOUNT_ESCAPE.sub(lambda m: chr(int(m.group(1), 8)), fields[1])
        fstype, options = fields[2], fields[3].split(",")
        if fstype == "cgroup2":
            controllers, _warning = root.read_text(root.join(posixpath.join(mount, "cgroup.controllers")))
            if controllers and "cpuset" in controllers.split():
                return "cgroup2", mount
        elif fstype == "cpuset":
            return "cpuset", mount
        elif fstype == "cgroup" and "cpuset" in options:
            return ("cpuset" if "noprefix" in options else "cgroup1"), mount
    return None, None


def _cgroup_name(root):
    name, _warning = root.read_text(root.join("proc/self/cpuset"))
    if name:
        return name.splitlines()[0]
    text, _warning = root.read_text(root.join("proc/self/cgroup"))
    for line in (text or "").splitlines():
        _hierarchy, sep, rest = line.partition(":")
        if not sep:
            continue
        controllers, sep, path = rest.partition(":")
        if sep and (controllers == "cpuset" or controllers == ""):
            return path
    return None
