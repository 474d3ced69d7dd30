# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""CPU sets: which CPUs exist, which are online, present, possible and isolated; SMT.

Public: `CPU_DIR`, `CpuSets`, `read_cpu_sets`, `smt_active`.

Online CPUs come from ``cpu/online``; when it is missing or unreadable, from each ``cpuN/online``
file as hwloc reads them: a CPU is offline only when its file says ``0``. A CPU without the file
(cpu0, often) is online, as the kernel has it; an empty, unreadable or garbled file counts as
online, with a warning. CPUs exist where ``cpuN`` directories are; ids above the cpulist limit
are stray directories, ignored with a warning that names them.
"""

from __future__ import annotations

import collections
import os

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import cpulist as _cpulist
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts import sysfs
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts import sysfs_cpusets

CPU_DIR = "sys/devices/system/cpu"
_EXAMPLES = 3

CpuSets = collections.namedtuple("CpuSets", "sets ids online possible")
CpuSets.__doc__ = """``sets``: online/offline/isolated/present cpulists; ``ids``: CPUs with a cpuN directory;
``online``: online CPU ids (sorted); ``possible``: the possible cpulist or None."""


def _cpu_ids(root, notes, cpu_dir):
    names, warning = root.list_dir(cpu_dir)
    if names is None:
        raise sysfs.TopologyError("%s: no CPU topology under root %s (%s)" % (cpu_dir, root.path, warning))
    ids = set()
    stray = []
    for name in names:
        if name.startswith("cpu") and name[3:].isdigit():
            if int(name[3:]) >= _cpulist.MAX_CPU_ID:
                stray.append(name)
            else:
                ids.add(int(name[3:]))
    if stray:
        shown = ", ".join(sysfs.excerpt(name) for name in stray[:_EXAMPLES])
        if len(stray) > _EXAMPLES:
            shown += " and %d more" % (len(stray) - _EXAMPLES)
        notes.add("%s: ignored the directories %s: CPU ids above the limit %d are not CPUs" % (cpu_dir, shown, _cpulist.MAX_CPU_ID - 1))
    if not ids:
        raise sysfs.TopologyError("%s: no CPU topology under root %s (no cpuN directories)" % (cpu_dir, root.path))
    return sorted(ids)


def read_cpu_sets(root, notes):
    """The CPU sets under ``root`` as a `CpuSets`; `sysfs.TopologyError` when there are no CPUs or none is online."""
    cpu_dir = root.join(CPU_DIR)
    cpu_ids = _cpu_ids(root, notes, cpu_dir)
    # Truncated files count as unreadable: the kernel always has an online (and a present) CPU.
    online = _nonempty_cpulist(root, notes, os.path.join(cpu_dir, "online"), "used the cpuN/online files instead")
    if online is None:
        online = _online_from_cpu_dirs(root, notes, cpu_dir, cpu_ids)
        if not online:
            raise sysfs.TopologyError(
                "%s: cpus %s exist but none is online (cpu/online is missing or unreadable and every cpuN/online file says 0); "
                "no topology facts without an online cpu" % (cpu_dir, _cpulist.format(cpu_ids)))
    online_ids = _cpulist.parse(online)
    without_dir = set(online_ids).difference(cpu_ids)
    if without_dir:
        notes.add("%s/online lists cpus %s that have no cpuN directory" % (cpu_dir, _cpulist.format(without_dir)))

    present = _nonempty_cpulist(root, notes, os.path.join(cpu_dir, "present"), "used the cpuN directories instead")
    if present is None:
        present = _cpulist.format(cpu_ids)
    possible, warning = sysfs_cpusets.read_cpulist(os.path.join(cpu_dir, "possible"), root)
    if possible is None and not sysfs.is_missing(warning):
        notes.add(warning)
    isolated, warning = sysfs_cpusets.read_cpulist(os.path.join(cpu_dir, "isolated"), root)
    if isolated is None:
        if sysfs.is_missing(warning):
            isolated = ""
        else:
            notes.add(warning)
    sets = {
        "online": online,
        # CPUs that exist but are offline; possible-but-absent CPUs are not "offline".
        "offline": _cpulist.difference(present, online),
        "isolated": isolated,
        "present": present,
    }
    return CpuSets(sets, cpu_ids, online_ids, possible)


def _nonempty_cpulist(root, notes, path, fallback):
    """A cpulist file that must not be empty; None (warned unless simply missing) otherwise."""
    cpus, warning = sysfs_cpusets.read_cpulist(path, root)
    if cpus == "":
        cpus, warning = None, "%s: empty" % path
    if cpus is None and not sysfs.is_missing(warning):
        notes.add("%s; %s" % (warning, fallback))
    return cpus


def _online_from_cpu_dirs(root, notes, cpu_dir, cpu_ids):
    """As hwloc and the kernel: a CPU is offline only when its cpuN/online file says 0."""
    online = []
    for cpu in cpu_ids:
        path = "%s/cpu%d/online" % (cpu_dir, cpu)
        text, warning = root.read_text(path)
        try:
            value = int(text, 10) if text is not None else None
        except ValueError:
            value = -1
        if value == 0:
            continue
        online.append(cpu)
        if text is None:
            if not sysfs.is_missing(warning):
                notes.add(warning + "; cpu%d counted as online (a cpu is offline only when its online file says 0)" % cpu)
        elif value != 1:
            notes.fold("%s/cpuN/online is empty or neither 0 nor 1; counted as online (a cpu is offline only when its online file says 0)"
                       % cpu_dir, cpu)
    return _cpulist.format(online)


def smt_active(root, notes, threads):
    """True when a core has more than one online thread; the kernel's smt/active is cross-checked."""
    derived = threads > 1
    path = root.join(CPU_DIR + "/smt/active")
    value, warning = root.read_int(path)
    if value is None:
        if not sysfs.is_missing(warning):
            notes.add(warning)
    elif value not in (0, 1):
        notes.add("%s: %d is neither 0 nor 1" % (path, value))
    elif (value == 1) != derived:
        notes.add("%s says %d but the online cores have %d thread(s) each at most; smt_active follows the cores"
                  % (path, value, threads))
    return derived
