#!/usr/bin/python
# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
---
module: rehearsal_workloads
short_description: A node's workloads through the Kubernetes API before a rehearsed rollback, and their return after it
version_added: 0.1.0
author: GPU Smith (@gpusmith)
extends_documentation_fragment:
  - gpusmith.numa_gate.kube_api
  - gpusmith.numa_gate.kube_api.node
  - gpusmith.numa_gate.controller
  - gpusmith.numa_gate.controller.read_only
description:
  - Without O(before), lists the pods bound to the node (one bounded GET, field selector C(spec.nodeName)) and names its
    workloads - the pods a controller owns (C(ownerReferences) with C(controller=true)), not terminating and not finished,
    grouped by controller. Mirror pods and pods no controller owns are listed in RV(unowned) - nothing recreates them.
  - With O(before) (the result of the first call), waits until each of those workloads is back on the node - as many pods of
    the same controller (its uid) as before, active and Ready, each a new pod (the drain evicted the old one); a DaemonSet's pods
    are not evicted by the drain, so for a DaemonSet the same pod Ready again counts - or until O(timeout) seconds have passed.
    It looks every O(poll) seconds and prints a progress line at each look.
  - A wait that runs out is a result, not a failure (RV(back) false, RV(missing) naming the workloads); the
    M(gpusmith.numa_gate.rehearsal_check) module keeps it on the node and the acceptance record's rollback criterion defers on it.
  - Runs as an action plugin on the controller; nothing runs on the node.
options:
  before:
    description:
      - The result of a first call on the same node, before the rollback (its C(workloads), each C(owner), C(kind), C(namespace),
        C(name), C(uid), C(pods)). Without it the node's workloads are listed and nothing is waited for.
    type: dict
  timeout:
    description: Seconds to wait for the workloads to come back (with O(before)).
    type: int
    default: 300
  poll:
    description: Seconds between two looks; a progress line is printed at each.
    type: float
    default: 3
seealso:
  - module: gpusmith.numa_gate.rehearsal_check
  - module: gpusmith.numa_gate.rehearsal_info
notes:
  - "Progress lines look like C(rehearsal gpu-node-1: 1 of 2 workloads back after the rollback, 6s of 300s; waiting for
    ReplicaSet/default/web (not ready, 0 of 1 Ready))."
"""

EXAMPLES = r"""
- name: Name the node's workloads before the rollback
  gpusmith.numa_gate.rehearsal_workloads:
    kubeconfig: "{{ numa_gate_kubeconfig }}"
    node: "{{ inventory_hostname }}"
  delegate_to: localhost
  register: before_rollback

- name: Wait for them after the rollback
  gpusmith.numa_gate.rehearsal_workloads:
    kubeconfig: "{{ numa_gate_kubeconfig }}"
    node: "{{ inventory_hostname }}"
    before: "{{ before_rollback }}"
    timeout: 300
  delegate_to: localhost
  register: after_rollback
"""

RETURN = r"""
node:
  description: The node's name.
  returned: always
  type: str
workloads:
  description:
    - Without O(before) - each workload (C(owner) as C(kind/namespace/name), C(kind), C(namespace), C(name), C(uid) of the
      controller, C(pods) with C(name), C(uid), C(ready)).
    - With O(before) - each workload of O(before) with C(state) (V(back), V(not ready), V(missing)), C(expected) and C(ready)
      counts, C(before) (its pods' names) and C(now) (its pods on the node now, C(name), C(uid), C(ready), C(kept) - the same pod as before).
  returned: success
  type: list
  elements: dict
unowned:
  description: The pods on the node no controller owns, or mirror pods (C(namespace/name)).
  returned: success
  type: list
  elements: str
observed_at:
  description: When the pods were last listed (UTC).
  returned: success
  type: str
back:
  description: Whether every workload came back.
  returned: with O(before)
  type: bool
missing:
  description: The workloads that did not come back (C(kind/namespace/name)).
  returned: with O(before)
  type: list
  elements: str
waited_s:
  description: Seconds it waited.
  returned: with O(before)
  type: float
timeout_s:
  description: The bound it waited under (O(timeout)).
  returned: with O(before)
  type: int
"""


from ansible.module_utils.basic import AnsibleModule

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._rehearsal import specs

# The action's (plugins/action/rehearsal_workloads.py), declared once in plugins/module_utils/_rehearsal/specs.py.
ARGUMENT_SPEC = specs.REHEARSAL_WORKLOADS


def main():
    """This module runs as an action plugin on the controller; run on a host, it only says so."""
    module = AnsibleModule(argument_spec=ARGUMENT_SPEC, supports_check_mode=True)
    module.fail_json(msg="gpusmith.numa_gate.rehearsal_workloads runs as an action plugin on the controller; this module file only holds its documentation")


if __name__ == "__main__":
    main()
