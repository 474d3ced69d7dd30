# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The workload's transport: the NIC its main container selects, against its GPUs' nearest NIC and NUMA node.

Import the submodules explicitly; this file holds only this map.

- ``check``: The transport check: the NIC the workload's main container selects against its GPUs' nearest NIC and NUMA node (pure).
- ``environ``: The named keys of a process's ``/proc/<pid>/environ``, read bounded in bytes and time; nothing else kept.
- ``read``: The transport_info reading on the node: each pod's main container, its main process and the transport keys of its environ.
- ``selection``: What UCX_NET_DEVICES, NCCL_IB_HCA and NCCL_SOCKET_IFNAME select among a node's devices, in each one's documented forms (pure).
"""
