# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The plan step: topology facts + policy -> kubelet reservations, and the locality oracle. Pure functions.

Public functions (import the submodule explicitly):

- ``plan.reservation_plan(topology, policy=None, base_config=None)``: the plan for one node.
- ``policy.normalize_policy(policy)``, ``policy.PlanError``: the policy, checked, with defaults.
- ``cpu_strategies.choose_cpus(topology, policy, reasons, warnings)``: which whole cores to reserve
  (spread, compact through ``packed.Packed``, the kubelet's packed order, device-aware, per node, explicit).
- ``memory.reserve(topology, merged, cpus_by_node, reasons, warnings)``: the reservedMemory placement.
- ``merged.base_config(config)``, ``merged.over_base(base, settings)``, ``merged.origin(merged, path)``:
  the plan merged over the node's kubelet configuration, with where each key came from.
- ``view.cpu_nodes``, ``view.usable_cores``, ``view.devices``: what the planner derives from the facts.
- ``locality.build(topology)``, ``locality.LocalityError``, ``locality.ORACLE_VERSION``: the locality oracle.

Facts are read through ``_facts.schema.read``, the one reader of schema v1.
"""
