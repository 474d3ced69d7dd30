# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What an NVIDIA affinity says about a GPU's NUMA node, shared by the NVML and nvidia-smi readers.

Public: `numa_node_of`, `gpu_label`, `locality_warning`.

"NUMA Affinity" (NVML memory affinity) is the node(s) closest to the GPU, which is what
``numa_node`` reports: one node, or unknown (never a guess) when it names none or several.
"""

from __future__ import annotations

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base.cpulist import parse as parse_cpus


def numa_node_of(affinity):
    """The single NUMA id of an affinity cpulist-style string, else None."""
    if affinity is None:
        return None
    ids = parse_cpus(affinity)
    if len(ids) == 1:
        return ids[0]
    return None


def gpu_label(gpu):
    return "gpu %s (%s)" % (gpu.get("index"), gpu.get("pci_address") or gpu.get("uuid") or "unknown address")


def locality_warning(gpu, origin, warnings):
    """Append to ``warnings`` why ``gpu``'s numa_node is unknown although an affinity was read."""
    affinity = gpu["numa_affinity"]
    if affinity is not None and gpu["numa_node"] is None:
        warnings.append(
            "%s: %s NUMA affinity is %r (%s), so numa_node is left unknown"
            % (gpu_label(gpu), origin, affinity, "no node" if affinity == "" else "more than one node")
        )
