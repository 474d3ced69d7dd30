# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Topology Manager rules: policy, scope, options, and the NUMA node limit.

Public: `check_topology_manager(checker, gates)` -> the policy (None when broken).
"""

from __future__ import annotations

import re

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kubelet.rules import wording
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kubelet.rules.gates import bad_bool, check_options

_POLICIES = ("none", "best-effort", "restricted", "single-numa-node")
_SCOPES = ("container", "pod")
_DEFAULT_MAX_NUMA_NODES = 8
# pkg/kubelet/cm/topologymanager/policy_options.go: prefer-closest-numa-nodes and
# max-allowable-numa-nodes are GA; numa-allocation-strategy is alpha where it exists.
_OPTIONS = (("numa-allocation-strategy",), (), ("prefer-closest-numa-nodes", "max-allowable-numa-nodes"))
# pkg/kubelet/cm/topologymanager/policy_options.go: CheckPolicyOptionAvailable
_OPTION_TEXTS = ("TopologyManagerPolicyAlphaOptions", "TopologyManagerPolicyBetaOptions",
                 "unknown Topology Manager Policy option: %s",
                 "topology manager policy alpha-level options not enabled, but option %s provided",
                 "topology manager policy beta-level options not enabled, but option %s provided")
_OPTIONS_RULE = "pkg/kubelet/cm/topologymanager/policy_options.go"
_VALIDATION_RULE = "pkg/kubelet/apis/config/validation/validation.go"


def check_topology_manager(checker, gates):
    """topologyManagerPolicy, -Scope and -PolicyOptions; returns the policy, None when broken."""
    policy = checker.string("topologyManagerPolicy", "none")
    scope = checker.string("topologyManagerScope", "container")
    # pkg/kubelet/apis/config/validation/validation.go: ValidateKubeletConfiguration (topologyManagerPolicy)
    if policy is not None and policy not in _POLICIES:
        checker.add("topologyManagerPolicy", "invalid configuration: topologyManagerPolicy (--topology-manager-policy) %s must be one of: [%s]"
                    % (wording.quote(policy), " ".join(wording.quote(p) for p in _POLICIES)), rule=_VALIDATION_RULE)
        policy = None
    # pkg/kubelet/apis/config/validation/validation.go: ValidateKubeletConfiguration (topologyManagerScope)
    if scope is not None and scope not in _SCOPES:
        checker.add("topologyManagerScope", "invalid configuration: topologyManagerScope (--topology-manager-scope) %s must be one of: %s, or %s"
                    % (wording.quote(scope), wording.quote(_SCOPES[0]), wording.quote(_SCOPES[1])), rule=_VALIDATION_RULE)
    options = checker.mapping("topologyManagerPolicyOptions")
    if policy in (None, "none"):
        # pkg/kubelet/cm/topologymanager/topology_manager.go: NewManager returns early for none.
        return policy
    parsed = check_options(checker, "topologyManagerPolicyOptions", options, _OPTIONS, gates, _OPTION_TEXTS, _OPTIONS_RULE)
    max_nodes = _max_numa_nodes(checker, parsed)
    numa_nodes = checker.machine.numa_nodes
    if numa_nodes is not None and len(numa_nodes) > max_nodes:
        # pkg/kubelet/cm/topologymanager/topology_manager.go: NewManager
        checker.add("topologyManagerPolicy", "unsupported on machines with more than %d NUMA Nodes" % max_nodes,
                    rule="pkg/kubelet/cm/topologymanager/topology_manager.go",
                    hint="this node has %d NUMA nodes; set topologyManagerPolicyOptions.max-allowable-numa-nodes: \"%d\""
                    % (len(numa_nodes), len(numa_nodes)))
    return policy


def _max_numa_nodes(checker, parsed):
    """pkg/kubelet/cm/topologymanager/policy_options.go: NewPolicyOptions (values)."""
    max_nodes = _DEFAULT_MAX_NUMA_NODES
    for name, value in parsed.items():
        path = ("topologyManagerPolicyOptions", name)
        full = "topologyManagerPolicyOptions.%s" % name
        if name == "prefer-closest-numa-nodes" and wording.go_bool(value) is None:
            bad_bool(checker, "topologyManagerPolicyOptions", name, value, _OPTIONS_RULE)
        elif name == "max-allowable-numa-nodes":
            if not re.match(r"^[+-]?\d+$", value):
                checker.add(full, "unable to convert policy option to integer %s: strconv.Atoi: parsing %s: invalid syntax"
                            % (wording.quote(name), wording.quote(value)), path=path, rule=_OPTIONS_RULE)
            elif int(value) < _DEFAULT_MAX_NUMA_NODES:
                checker.add(full, "the minimum value of %s should not be less than %d" % (wording.quote(name), _DEFAULT_MAX_NUMA_NODES),
                            path=path, rule=_OPTIONS_RULE)
            else:
                max_nodes = int(value)
    return max_nodes
