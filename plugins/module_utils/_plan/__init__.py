# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The plan step: topology facts + policy -> kubelet reservations, and the locality oracle. Pure functions.

Import the submodules explicitly; this file holds only this map.

- ``cpu_strategies``: Which whole cores to reserve: spread, compact (the kubelet's packed order), device-aware, per node, or explicit.
- ``locality``: The locality oracle: which NUMA node and CPUs each GPU and NIC is local to.
- ``memory``: Memory placement: how much memory the kubelet reserves, and on which NUMA nodes.
- ``merged``: The plan merged over the node's kubelet configuration, as the kubelet merges a drop-in, and where each key came from.
- ``packed``: The kubelet's packed CPU order (strategy compact), replayed on whole cores.
- ``plan``: The reservation planner: topology facts (schema v1) + policy -> kubelet reservations.
- ``policy``: The planner's policy: what an operator asks for, with defaults filled in and every value checked.
- ``view``: What the planner derives from the facts (`_facts.schema.Topology`): CPU nodes, reservable cores, devices per node.
"""
