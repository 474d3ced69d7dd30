# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The facts step: one read-only pass over a node's sysfs/procfs (and NVIDIA tools) into facts schema v1.

Import the submodules explicitly; this file holds only this map.

- ``gather``: `gather(root="/", gpu_source="auto", runner=None, nvidia=None)`, `GPU_SOURCES`,
  `SCHEMA_VERSION`, `TopologyError` (orchestration only: calls the readers below in order).
- ``sysfs``: `Root` (the root and path resolution inside it), the bounded readers `read_text`,
  `read_int`, `list_dir`, ..., `TopologyError`.
- ``sysfs_cpusets``: CPU sets as sysfs writes them (`read_cpulist`, `read_cpus`, `read_cpu_ids`, `mask_ids`, ...).
- ``links``: `resolve`, `read_link`, `link_basename` (symlinks and snapshot link stubs, inside the root).
- ``notes``: `Notes`, the warnings collector passed to every reader.
- ``cpus``: `read_cpu_sets`, `smt_active`.  ``cores``: `read_cores`.
- ``numa``: `read_numa_nodes`, `memtotal`.  ``cgroup``: `read_allowed`.
- ``pci_devices``: `read_pci_devices`, `pci_locality`, `resolve_numa`, `single_node`.
- ``gpus``: `read_gpus`.  ``nics``: `read_nics`.
- ``nvidia``: `gather_nvidia`; ``nvidia_smi``: `parse_topo_m`, `parse_query_gpu_csv`, `NvidiaError`;
  ``nvml``: `gather_nvml`; ``nvidia_affinity``: `numa_node_of`, `gpu_label`, `locality_warning`.
- ``runner``: `ModuleRunner`, `RecordedRunner`, `NoCommandsRunner`.
- ``schema``: the one reader of facts schema v1 for every later step (`read`, `kubelet_node`).
"""
