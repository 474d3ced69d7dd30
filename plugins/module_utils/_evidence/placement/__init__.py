# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Placement read on the node: cgroups, effective sets, thread masks, resident pages, CPU use.

Import the submodules explicitly; this file holds only this map.

- ``cgroup_layout``: Where the kubelet puts a pod's cgroup: every QoS class, both cgroup drivers.
- ``cgroups``: The node's cgroup hierarchy and the kubelet's pod cgroups in it, found by pod UID.
- ``cpusets``: A cgroup's effective CPU and memory-node sets, and the processes in it.
- ``migration``: Memory over time: two placement readings of the same pods compared, node by node (pure).
- ``numa_maps``: Resident pages per NUMA node from ``/proc/<pid>/numa_maps``, in bytes, huge pages apart.
- ``numa_stat``: A cgroup's ``memory.numa_stat``: its memory per NUMA node by type, in bytes, huge pages apart.
- ``quota``: A cgroup's CFS bandwidth limit, in cgroup v2's ``cpu.max`` form.
- ``read``: Where a pod's (or a process's) CPUs and memory really are: the placement_info reading.
- ``threads``: Every thread's allowed CPUs and memory nodes, as ``taskset -a -p`` would list them.
- ``usage``: A cgroup's CPU usage counter, with the time it was read.
"""
