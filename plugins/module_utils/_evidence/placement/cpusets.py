# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A cgroup's effective CPU and memory-node sets, and the processes in it.

Public: `effective_sets`, `processes`.

cgroup v2: ``cpuset.cpus.effective`` / ``cpuset.mems.effective`` of the nearest cgroup, from the
one asked up to the mount, that has them (a cgroup without the cpuset controller enabled uses
its parent's). cgroup v1: ``cpuset.effective_cpus`` / ``cpuset.effective_mems`` (kernel 4.17
and later), else ``cpuset.cpus`` / ``cpuset.mems``. Values are canonical cpulists.
"""

from __future__ import annotations

import posixpath

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import cpulist as _cpulist
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence.placement import cgroups
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence import measures
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence import nodefs

_V1_FILES = (("cpuset.effective_cpus", "cpuset.effective_mems"), ("cpuset.cpus", "cpuset.mems"))
_V2_FILES = ("cpuset.cpus.effective", "cpuset.mems.effective")


def _cpulist_of(root, path):
    text = nodefs.read_text(root, path, 65536)
    if text is None:
        return None
    try:
        return _cpulist.canonical(text)
    except _cpulist.CpuListError as exc:
        raise nodefs.EvidenceError("%s: %s" % (path, exc), path=path) from exc


def effective_sets(root, tree, cgroup):
    """{"cpus", "mems", "source"} for ``cgroup`` (a cgroup path), or None when it has vanished."""
    mount = tree["cpuset"]
    directory = posixpath.normpath(posixpath.join(mount, cgroups.relative_path(cgroup, "cgroup")))
    if not nodefs.is_dir(root, directory):
        return None
    if tree["version"] == 1:
        for cpus_file, mems_file in _V1_FILES:
            cpus = _cpulist_of(root, posixpath.join(directory, cpus_file))
            if cpus is not None:
                mems = _cpulist_of(root, posixpath.join(directory, mems_file))
                return {"cpus": cpus, "mems": mems, "source": "/" + posixpath.join(directory, cpus_file)}
        return None
    while True:
        cpus = _cpulist_of(root, posixpath.join(directory, _V2_FILES[0]))
        if cpus is not None:
            mems = _cpulist_of(root, posixpath.join(directory, _V2_FILES[1]))
            return {"cpus": cpus, "mems": mems, "source": "/" + posixpath.join(directory, _V2_FILES[0])}
        if directory == mount or not directory.startswith(mount + "/"):
            return None
        directory = posixpath.dirname(directory)


def processes(root, tree, cgroup):
    """The PIDs in ``cgroup`` (its ``cgroup.procs``), sorted; [] when none or vanished.

    A PID is a positive decimal integer as the kernel writes it; anything else (``-5``, ``+5``, ``0``) is refused.
    """
    path = posixpath.join(tree["cpuset"], cgroups.relative_path(cgroup, "cgroup"), "cgroup.procs")
    text = nodefs.read_text(root, path, 4 * 1024 * 1024)
    if not text:
        return []
    return sorted({measures.count(word, "/" + path, "entry %d" % number, "a PID", 1) for number, word in enumerate(text.split(), 1)})
