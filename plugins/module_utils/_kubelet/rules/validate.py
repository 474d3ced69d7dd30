# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Validate an effective kubelet configuration by the kubelet's own rules.

Public: `validate(config, node=None)` -> [Problem]; `Problem` and `KubeletValidationError` (defined
in `checker`, importable from here).

Every rule cites the upstream file (kubernetes/kubernetes) it mirrors and uses that file's error
wording, so a message reads like the line the kubelet would log before refusing to start. A
Problem also names the key and the file that set it (from the merge's origins), which the
kubelet does not.

Scope: the rules that matter for the NUMA resource managers (CPU, Memory and Topology Manager,
reservations, eviction, the feature gates around them), checked against the node's online CPUs
and NUMA memory; and every top-level field against the v1beta1 field list and types (`fields`).
It is not the whole of ValidateKubeletConfiguration.
"""

from __future__ import annotations

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kubelet.config import fields
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kubelet.rules import wording
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kubelet.rules.allocatable import node_allocatable_reservation
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kubelet.rules.checker import Checker, KubeletValidationError, Machine, Problem
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kubelet.rules.capacity import check_capacity, check_eviction
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kubelet.rules.cpu import (
    check_cpu_manager, check_reserved_cpus, check_static_reservation)
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kubelet.rules.gates import check_gates
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kubelet.rules.memory import check_memory_manager, check_reserved_memory
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kubelet.rules.topology import check_topology_manager

__all__ = ("validate", "Problem", "KubeletValidationError")


def validate(config, node=None):
    """Check an effective kubelet configuration; returns a list of Problem.

    ``node`` is ``{"online_cpus": "0-63", "numa_nodes": {0: bytes, ...},
    "memory_bytes": total}`` (memory_bytes defaults to the NUMA sum;
    `_facts.schema.kubelet_node` builds it from the topology facts); without
    it the rules that need the machine are skipped. ``config`` is a dict or
    the EffectiveConfig from `merge.effective_config` (then problems name
    their file). Raises KubeletValidationError for a ``node`` it cannot read.
    """
    if not isinstance(config, dict):
        return [Problem("(config)", "the configuration is a %s, not a mapping" % type(config).__name__)]
    checker = Checker(config, Machine(node))
    gates = check_gates(checker)
    topology_policy = check_topology_manager(checker, gates)
    cpu_policy = check_cpu_manager(checker, gates, topology_policy)
    reserved_cpus = check_reserved_cpus(checker)
    check_eviction(checker)
    allocatable = node_allocatable_reservation(config, checker.machine.memory, checker)
    check_static_reservation(checker, cpu_policy, reserved_cpus, allocatable)
    check_memory_manager(checker, check_reserved_memory(checker), allocatable)
    check_capacity(checker, allocatable)
    _check_fields(checker)
    return checker.problems


def _check_fields(checker):
    """Unknown and wrongly typed fields the rules above did not already report."""
    reported = {(problem.key, problem.message) for problem in checker.problems}
    for key, message, hint, path in fields.field_problems(checker.config, document=True):
        if (key, message) not in reported:
            rule = wording.STRICT_DECODING if message.startswith("json:") else fields.RULE
            checker.add(key, message, path=path, rule=rule, hint=hint)
