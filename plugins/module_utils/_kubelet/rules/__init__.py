# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The kubelet's validation rules for an effective configuration, in the kubelet's own words.

Import the submodules explicitly; this file holds only this map.

- ``allocatable``: The kubelet's Node Allocatable arithmetic: what it keeps back from pods, and why.
- ``capacity``: Eviction signals and the Node Allocatable reservation against the node's capacity.
- ``checker``: One validation pass: the configuration, the machine, and the problems found so far.
- ``cpu``: CPU Manager rules: the policy, its options, reservedSystemCPUs, the static policy's reservation.
- ``gates``: Feature gates, and the policy options whose maturity a gate switches on.
- ``memory``: Memory Manager rules: reservedMemory's shape, the policy, and the Node Allocatable sums.
- ``topology``: Topology Manager rules: policy, scope, options, and the NUMA node limit.
- ``validate``: Validate an effective kubelet configuration by the kubelet's own rules.
- ``wording``: How the kubelet words values in its messages, so ours read like the line it would log.
"""
