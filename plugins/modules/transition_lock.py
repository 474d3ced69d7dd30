#!/usr/bin/python
# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
---
module: transition_lock
short_description: Take, renew or release a node's maintenance lock other tools see (a NodeMaintenance or a Lease)
version_added: 0.1.0
author: GPU Smith (@gpusmith)
extends_documentation_fragment:
  - gpusmith.numa_gate.kube_api
  - gpusmith.numa_gate.kube_api.node
  - gpusmith.numa_gate.controller
description:
  - Where the NVIDIA Maintenance Operator's C(NodeMaintenance) CRD is served (C(maintenance.nvidia.com/v1alpha1), asked through
    discovery) and O(kind=auto), or with O(kind=node_maintenance), the lock is a maintenance request,
    C(<maintenance_namespace>/gpusmith-numa-gate-<node>) with C(spec.nodeName), C(spec.requestorID) C(numa-gate.gpusmith),
    C(spec.cordon) false and no C(drainSpec) (the transition cordons and drains itself), and its transition in the annotation
    C(numa-gate.gpusmith/transition). O(state=held) makes it (or finds this transition's own, on a resumed run) and waits up to
    O(timeout) seconds, with progress lines, for the operator to grant it (its C(Ready) condition C(True)); a request for the
    node by another requestor or another transition fails the task naming the requestor and since when, as does a
    C(RequestorFailed) condition or the bound. O(state=released) deletes it, with the C(resourceVersion) read as a
    precondition, only when this transition made it.
  - Else the lock is one Lease per node, C(<namespace>/gpusmith-numa-gate-<node>), whose C(holderIdentity) is
    C(gpusmith.numa_gate/<node>/<transition>), through the Kubernetes API from the controller.
  - O(state=held) creates it (C(acquireTime) and C(renewTime) now, C(leaseDurationSeconds) O(duration), C(leaseTransitions) 0),
    renews it when this transition holds it (a resumed run of the same transition, from any controller, takes its own lease
    back), and takes it over when its holder's C(renewTime) plus C(leaseDurationSeconds) has passed or it names no holder
    (C(leaseTransitions) plus one). A lease another holder keeps fails the task naming the holder, since when, and until when;
    nothing is written then.
  - O(state=released) deletes the Lease, with the C(resourceVersion) it read as a precondition, only when this transition holds
    it; a lease another holder took over since is left alone.
  - Every write carries the C(resourceVersion) it read; a conflict (someone wrote first) reads and judges the lease once more.
options:
  transition:
    description:
      - The transition's id (as M(gpusmith.numa_gate.transition_journal) opened it); part of the holder identity.
    type: str
    required: true
  state:
    description:
      - V(held) takes or renews the lock; V(released) gives it back.
    type: str
    default: held
    choices: [held, released]
  namespace:
    description:
      - The namespace of the Lease.
    type: str
    default: kube-system
  duration:
    description:
      - The Lease's C(leaseDurationSeconds), whole seconds above 0. A lease not renewed within it may be taken over by another
        holder, so it should outlast the longest stretch between two renewals (the drain's bound, the verification's bound).
    type: int
    default: 900
  kind:
    description:
      - V(auto) takes a C(NodeMaintenance) where the cluster serves its CRD, else a Lease; V(lease) and V(node_maintenance) choose one.
    type: str
    default: auto
    choices: [auto, lease, node_maintenance]
  maintenance_namespace:
    description:
      - The namespace of the C(NodeMaintenance) request (the operator's requestors use C(default) unless configured otherwise).
    type: str
    default: default
  timeout:
    description:
      - Seconds to wait for a C(NodeMaintenance) request to be granted; past it the task fails (the role then withdraws the request).
    type: int
    default: 600
  poll:
    description:
      - Seconds between two reads of the C(NodeMaintenance) request while it waits.
    type: float
    default: 2
attributes:
  check_mode:
    support: full
    description: Reads the Lease or the requests and says what it would do (or refuses as it would); writes nothing and does not wait.
  diff_mode:
    support: none
    description: Nothing to compare; no diff.
seealso:
  - module: gpusmith.numa_gate.kube_node
notes:
  - Leases "provide a mechanism to lock shared resources and coordinate activity between members of a set"
    (U(https://kubernetes.io/docs/concepts/architecture/leases/)). None of the NVIDIA GPU tools uses a Lease as its node lock;
    this one is for other runs of this collection, and for anyone who reads it.
  - The C(NodeMaintenance) fields are the operator's CRD (Mellanox/maintenance-operator C(api/v1alpha1/nodemaintenance_types.go)).
"""

EXAMPLES = r"""
- name: Take the node for maintenance
  gpusmith.numa_gate.transition_lock:
    node: gpu-node-01
    transition: 20261204T090000Z
    duration: 900

- name: Give it back
  gpusmith.numa_gate.transition_lock:
    node: gpu-node-01
    transition: 20261204T090000Z
    state: released
"""

RETURN = r"""
lock_action:
  description: What was done (in check mode, what would be) - V(created), V(renewed) (for a C(NodeMaintenance), this transition's request
    found again), V(taken_over), V(released), V(absent) (nothing to release) or V(held_by_another) (not released, another holder has it).
  returned: success
  type: str
  sample: created
lock_kind:
  description: V(Lease) or V(NodeMaintenance), the lock taken.
  returned: success
  type: str
  sample: Lease
lease:
  description: The Lease, C(namespace/name).
  returned: when the lock is a Lease
  type: str
  sample: kube-system/gpusmith-numa-gate-gpu-node-01
maintenance:
  description: The C(NodeMaintenance) request, C(namespace/name).
  returned: when the lock is a NodeMaintenance
  type: str
  sample: default/gpusmith-numa-gate-gpu-node-01
transition:
  description: The transition that made the C(NodeMaintenance) request (its annotation).
  returned: when the lock is a NodeMaintenance
  type: str
  sample: 20261204T090000Z
ready:
  description: The C(NodeMaintenance) request's C(Ready) condition status.
  returned: when the lock is a NodeMaintenance
  type: str
  sample: "True"
phase:
  description: The C(NodeMaintenance) request's C(Ready) condition reason (V(Pending), V(Scheduled), ..., V(Ready)).
  returned: when the lock is a NodeMaintenance
  type: str
  sample: Ready
waited_s:
  description: Seconds waited for the C(NodeMaintenance) request to be granted.
  returned: O(state=held) and the lock is a NodeMaintenance
  type: float
  sample: 1.5
holder:
  description: The Lease's C(holderIdentity) after the task (for V(released), before it), or the C(NodeMaintenance) request's C(requestorID).
  returned: always
  type: str
  sample: gpusmith.numa_gate/gpu-node-01/20261204T090000Z
acquired:
  description: The Lease's C(acquireTime), or the C(NodeMaintenance) request's C(creationTimestamp).
  returned: always
  type: str
  sample: "2026-12-04T09:00:00.000000Z"
renewed:
  description: The Lease's C(renewTime).
  returned: when the lock is a Lease
  type: str
  sample: "2026-12-04T09:00:00.000000Z"
duration_s:
  description: The Lease's C(leaseDurationSeconds).
  returned: when the lock is a Lease
  type: int
  sample: 900
transitions:
  description: The Lease's C(leaseTransitions), how many times it changed holder.
  returned: when the lock is a Lease
  type: int
  sample: 0
previous_holder:
  description: The holder whose expired lease was taken over, or None.
  returned: O(state=held)
  type: str
  sample: gpusmith.numa_gate/gpu-node-01/20261203T090000Z
"""


from ansible.module_utils.basic import AnsibleModule

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._transition.api import specs

# The action's (plugins/action/transition_lock.py), declared once in plugins/module_utils/_transition/api/specs.py.
ARGUMENT_SPEC = specs.TRANSITION_LOCK


def main():
    """This module runs as an action plugin on the controller; run on a host, it only says so."""
    module = AnsibleModule(argument_spec=ARGUMENT_SPEC, supports_check_mode=True)
    module.fail_json(msg="gpusmith.numa_gate.transition_lock runs as an action plugin on the controller; this module file only holds its documentation")


if __name__ == "__main__":
    main()
