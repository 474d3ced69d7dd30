# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The topology gather: one read-only pass over sysfs/procfs (facts schema v1).

Public: `gather`, `GPU_SOURCES`, `SCHEMA_VERSION`, `TopologyError`.

`gather(root)` reads CPUs, physical cores, packages, NUMA nodes, the cgroup restriction of the
reading process, GPUs and NICs under ``root`` ("/" on a node, a snapshot directory in tests) and
returns the facts dict of docs/facts.md, plus ``allowed`` and ``warnings``. Unknown values are
None with a warning that names the file; only a root without any CPU topology, or without an
online CPU, raises `TopologyError`. This module only calls the readers in order: each takes what
it needs as arguments and returns values; the warnings go to one `notes.Notes` passed to each.
"""

from __future__ import annotations

import re

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts import cgroup
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts import cores as _cores
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts import cpus as _cpus
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts import gpu_links
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts import gpus as _gpus
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts import nics as _nics
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts import notes as _notes
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts import numa
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts import sriov as _sriov
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts import sysfs

SCHEMA_VERSION = 1
GPU_SOURCES = _gpus.GPU_SOURCES
TopologyError = sysfs.TopologyError
_PROC_VERSION = re.compile(r"^Linux version (\S+)")


def gather(root="/", gpu_source="auto", runner=None, nvidia=None):
    """Read the topology under root and return facts schema v1 (plus warnings).

    ``gpu_source``: auto (NVML, then nvidia-smi, else sysfs), nvml,
    nvidia-smi, sysfs or none. PCI devices bound to amdgpu are GPUs with
    every source but none; auto also asks amd-smi, else rocm-smi, about them. ``nvidia`` is ``gather_nvidia(source, runner)
    -> (gpus or None, warnings)``; by default the real one from _facts.nvidia.
    ``runner`` runs vendor tools (see _facts.runner). With a root other than "/"
    and no runner, vendor tools are not consulted: they would describe this
    machine, not the snapshot.
    """
    if gpu_source not in GPU_SOURCES:
        raise TopologyError("gpu_source %r is not one of %s" % (gpu_source, ", ".join(GPU_SOURCES)))
    with sysfs.Root(root) as where:
        return _gather(where, gpu_source, runner, nvidia)


def _gather(where, gpu_source, runner, nvidia):
    """`gather` under the `sysfs.Root` ``where`` (which the caller closes)."""
    if not where.isdir(where.path):
        raise TopologyError("root %s does not exist or is not a directory" % where.path)
    notes = _notes.Notes()
    cpu_sets = _cpus.read_cpu_sets(where, notes)
    numa_nodes, cpu_node = numa.read_numa_nodes(where, notes, cpu_sets.online)
    packages, cores = _cores.read_cores(where, notes, cpu_sets.online, cpu_sets.ids, cpu_node)
    threads = _cores.threads_per_core(cores)
    cpus = dict(cpu_sets.sets)
    cpus.update({
        "possible": cpu_sets.possible,
        "smt_active": _cpus.smt_active(where, notes, threads),
        "threads_per_core": threads or None,
        "logical": len(cpu_sets.online),
        "cores": len(cores),
        "packages": len(packages),
    })
    facts = {
        "schema_version": SCHEMA_VERSION,
        "root": where.path,
        "kernel": _kernel(where, notes),
        "cpus": cpus,
        # MemTotal, the capacity the kubelet resolves percentage eviction thresholds against.
        "memory_bytes": numa.memtotal(where, notes, where.join("proc/meminfo")),
        "allowed": cgroup.read_allowed(where, notes, cpu_sets.online, [node["id"] for node in numa_nodes]),
        "packages": packages,
        "cores": cores,
        "numa_nodes": numa_nodes,
        "gpus": _gpus.read_gpus(where, notes, gpu_source, runner, nvidia, numa_nodes),
        "nics": _nics.read_nics(where, notes, numa_nodes),
        "sriov": _sriov.read_sriov(where, notes, numa_nodes),
    }
    gpu_links.attach(where, notes, facts["gpus"], facts["nics"])
    facts["warnings"] = notes.warnings()
    return facts


def _kernel(root, notes):
    release, _warning = root.read_text(root.join("proc/sys/kernel/osrelease"))
    if release:
        return release
    version, _warning = root.read_text(root.join("proc/version"))
    match = _PROC_VERSION.match(version or "")
    if match:
        return match.group(1)
    notes.add("kernel release unknown: neither /proc/sys/kernel/osrelease nor /proc/version is readable")
    return None
