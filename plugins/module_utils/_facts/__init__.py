# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The facts step: one read-only pass over a node's sysfs/procfs (and NVIDIA and AMD tools) into facts schema v1.

Import the submodules explicitly; this file holds only this map.

- ``amd``: AMD GPUs from sysfs: the PCI devices bound to amdgpu, their KFD nodes, partitions, links and driver.
- ``amd_tools``: AMD vendor tools against sysfs: amd-smi, else rocm-smi, each value kept with its source.
- ``cgroup``: The cgroup restriction of the reading process: the CPUs and memory nodes it may use.
- ``cores``: Physical cores and packages of the online CPUs.
- ``cpus``: CPU sets: which CPUs exist, which are online, present, possible and isolated; SMT.
- ``gather``: The topology gather: one read-only pass over sysfs/procfs (facts schema v1).
- ``gpu_links``: Each GPU's links to the NICs (and to the other GPUs): from ``nvidia-smi topo -m``, else the PCI tree in sysfs.
- ``gpus``: GPUs: identities from a vendor reader (NVML, nvidia-smi) or sysfs, with their NUMA locality.
- ``links``: Links in sysfs and in sysfs snapshots, resolved without leaving the root.
- ``nics``: Network interfaces on PCI: driver, NUMA locality, RDMA devices, virtual functions.
- ``mig``: MIG devices of each NVIDIA GPU, from ``nvidia-smi -L`` run once through the injected runner.
- ``notes``: The warnings a gather collects: `Notes`, passed to every reader as an argument.
- ``numa``: NUMA nodes: their online CPUs, memory, huge page pools and distances.
- ``nvidia``: NVIDIA GPU identities and locality: NVML, else nvidia-smi, through an injectable runner.
- ``nvidia_affinity``: What an NVIDIA affinity says about a GPU's NUMA node, shared by the NVML and nvidia-smi readers.
- ``nvidia_smi``: Parsers for the text nvidia-smi prints, and the errors of the NVIDIA readers.
- ``nvidia_smi_list``: The GPUs and MIG devices ``nvidia-smi -L`` lists, each MIG device under its parent GPU (pure).
- ``nvml``: GPU identities and locality from NVML (nvidia-ml-py's pynvml), called as the bindings define.
- ``pci_devices``: PCI devices under sys/bus/pci/devices, and the NUMA locality of one device.
- ``runner``: How logic runs vendor tools: an injectable runner, never a shell.
- ``schema``: The one reader of topology facts schema v1: every later step reads the facts through it.
- ``schema_links``: The facts schema's GPU links and NIC RDMA devices (schema v1), read for `schema.read` (pure).
- ``sriov``: SR-IOV physical functions and their virtual functions, from the PCI tree (whether or not a VF is an interface here).
- ``sysfs``: Small bounded readers for sysfs and procfs files under the root facts are read from.
- ``sysfs_cpusets``: CPU sets as sysfs writes them: cpulists (``0-3,8``) and hex cpumasks, read through `sysfs`'s bounded readers.
- ``sysfs_places``: Where a path under the root facts are read from really is, found without ever leaving the root.
"""
