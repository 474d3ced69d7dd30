#!/usr/bin/python
# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
---
module: rehearsal_check
short_description: Keep on the node the check after a rehearsed rollback (workloads back, PodResources at container scope)
version_added: 0.1.0
author: GPU Smith (@gpusmith)
description:
  - After a rollback that C(playbooks/rehearse.yml) rehearses, checks what was observed - each workload of the
    node (a controller's pods on it before the rollback, from M(gpusmith.numa_gate.rehearsal_workloads)) recreated and Ready on
    the node, and PodResources (M(gpusmith.numa_gate.pod_resources_info), read on the node after the rollback) listing each of
    their pods with no pod-level C(cpu_ids) or C(memory) left - and keeps the result beside the rollback's journal, as
    C(<state_dir>/transitions/<transition>/rehearsal.json), naming the rollback, so a later
    M(gpusmith.numa_gate.rehearsal_info) on any controller reads it from the node.
  - The transition must be a rollback of this node that is closed. The file is written atomically (temporary file, fsync,
    rename, fsync of the folder), 0600, never through a symlink, in a transition folder that must be private. The same
    check kept again changes nothing.
options:
  transition:
    description: The id of the rehearsed rollback (the rollback's C(kubelet_transition_result.transition)).
    type: str
    required: true
  node:
    description: The node's name to put in the check (the Kubernetes node name). Default is the host's name.
    type: str
  workloads:
    description:
      - The M(gpusmith.numa_gate.rehearsal_workloads) result after the rollback (called with O(gpusmith.numa_gate.rehearsal_workloads#module:before)) -
        its C(workloads), C(unowned), C(observed_at), C(waited_s) and C(timeout_s).
    type: dict
    required: true
  pod_resources:
    description:
      - The M(gpusmith.numa_gate.pod_resources_info) result read on the node after the rollback (C(reachable), C(pods),
        C(findings)); null when it was not read, which the check records as container scope unknown.
    type: dict
  placement:
    description:
      - The placement re-check of the pods that came back (the P(gpusmith.numa_gate.placement_recheck#filter) filter's result - C(pods),
        C(problems), C(checked)), the checks the canary gets. Each problem makes the check not reconciled. Null - not re-checked.
    type: dict
  restarts:
    description:
      - With the opt-in restart of the workloads' main container, one entry per pod - C(pod), C(container), C(restarted),
        C(restart_count), C(changes) (how its PodResources allocation changed across the restart,
        P(gpusmith.numa_gate.rehearsal_restarts#filter)) and C(error). A change, or a restart not seen, makes the check not reconciled.
        Null - not asked.
    type: list
    elements: dict
extends_documentation_fragment:
  - gpusmith.numa_gate.node_state
attributes:
  check_mode:
    description: Says whether it would write, writes nothing.
    support: full
  diff_mode:
    description: The kept check before and after.
    support: full
"""

EXAMPLES = r"""
- name: Keep the check after the rehearsed rollback on the node
  gpusmith.numa_gate.rehearsal_check:
    transition: "{{ kubelet_transition_result.transition }}"
    node: "{{ inventory_hostname }}"
    workloads: "{{ after_rollback }}"
    pod_resources: "{{ pod_resources }}"
  register: rehearsal
"""

RETURN = r"""
check:
  description:
    - The kept check (schema_version 1) - C(rollback), C(node), C(observed_at), C(waited_s), C(timeout_s), C(workloads) (each
      C(owner), C(state), C(expected), C(ready), C(before), C(now)), C(unowned), C(came_back), C(missing), C(pod_resources) (C(read),
      C(problems)), C(placement) (C(checked), C(problems), C(pods) with their C(checks)), C(restarts) (each with its C(problems)),
      C(problems), C(reconciled).
  returned: success
  type: dict
path:
  description: Where it is kept on the node.
  returned: success
  type: str
"""

import os

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import errors as _errors
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import shape_check as S
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._rehearsal import workloads as rehearsal_workloads
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._node_files import atomic
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._transition.journal import journal, transitions
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._rehearsal import kept as rehearsals
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._transition import record
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._node_files import confine

_NOW = S.Fields("a pod of the workload now", {"name": S.STR, "uid": S.Nullable(S.STR), "ready": S.BOOL, "kept": S.BOOL})
_WORKLOAD = S.Fields("a workload after the rollback", {
    "owner": S.STR, "kind": S.Nullable(S.STR), "namespace": S.Nullable(S.STR), "name": S.Nullable(S.STR),
    "state": S.OneOf(*rehearsal_workloads.STATES), "expected": S.COUNT, "ready": S.COUNT, "before": S.ListOf(S.STR), "now": S.ListOf(_NOW)})
WORKLOADS = S.Fields("the rehearsal_workloads result after the rollback", {"workloads": S.ListOf(_WORKLOAD)}, {
    "unowned": S.Nullable(S.ListOf(S.STR)), "observed_at": S.Nullable(S.STR), "waited_s": S.Nullable(S.NUMBER),
    "timeout_s": S.Nullable(S.NUMBER)})
PLACEMENT = S.Nullable(S.Fields("the placement_recheck result", {"pods": S.LIST, "problems": S.ListOf(S.STR)}, {"checked": S.Nullable(S.COUNT)}))
RESTARTS = S.Nullable(S.ListOf(S.Fields("a restart of a main container", {"pod": S.STR, "container": S.STR, "restarted": S.BOOL}, {
    "restart_count": S.Nullable(S.COUNT), "changes": S.Nullable(S.ListOf(S.STR)), "error": S.Nullable(S.STR)})))
_BLOCK = S.Fields("a PodResources memory block", {}, {"memory_type": S.Nullable(S.STR), "numa_nodes": S.Nullable(S.ListOf(S.INT))})
_POD = S.Fields("a PodResources pod", {"name": S.STR, "namespace": S.STR}, {"cpu_ids": S.Nullable(S.STR), "memory": S.Nullable(S.ListOf(_BLOCK))})
_FINDING = S.Fields("a pod_resources_info finding", {}, {"message": S.Nullable(S.STR)})
POD_RESOURCES = S.Nullable(S.Fields("the pod_resources_info result", {"reachable": S.BOOL}, {
    "pods": S.Nullable(S.ListOf(_POD)), "findings": S.Nullable(S.ListOf(_FINDING))}))


def _rollback(root, state_dir, transition_id, node):
    folder = transitions.folder(root, state_dir, transition_id)
    if not os.path.isdir(folder):
        raise atomic.NodeStateError("no transition %s on this node (%s/transitions/%s); nothing was kept" % (transition_id, state_dir, transition_id))
    entries, _notes = journal.read(os.path.join(folder, journal.JOURNAL))
    built = record.build(transition_id, entries, [], pointer=transitions.current(root, state_dir), node=node)
    if built["target"] != "rollback":
        raise _errors.NumaGateError("transition %s is %s, not a rollback: the rehearsal's check goes with the rollback it checked; nothing was kept"
                                    % (transition_id, "an enable" if built["target"] == "enable" else "of no known target"))
    if built["open"]:
        raise _errors.NumaGateError("rollback %s is still open on this node: finish it (rollback.yml) before its check is kept; nothing was kept"
                                    % transition_id)
    return built


def run(module):
    params = module.params
    root, state_dir = params["root"], params["state_dir"]
    node = params["node"] or os.uname().nodename
    observed = S.check(params["workloads"], WORKLOADS, "workloads", _errors.NumaGateError)
    pod_resources = S.check(params["pod_resources"], POD_RESOURCES, "pod_resources", _errors.NumaGateError)
    _rollback(root, state_dir, params["transition"], node)
    placement = S.check(params["placement"], PLACEMENT, "placement", _errors.NumaGateError)
    restarts = S.check(params["restarts"], RESTARTS, "restarts", _errors.NumaGateError)
    document = rehearsal_workloads.check(params["transition"], node, observed, pod_resources, placement, restarts)
    changed, before = rehearsals.write(root, state_dir, params["transition"], document, check_mode=module.check_mode)
    where = os.path.join(state_dir, "transitions", params["transition"], rehearsals.NAME)
    result = dict(changed=changed, check=document, path=where)
    if module._diff:  # pylint: disable=protected-access
        result["diff"] = {"before": before or {}, "after": document, "before_header": where, "after_header": where}
    module.exit_json(**result)


def main():
    module = AnsibleModule(
        argument_spec=dict(
            root=dict(type="path", default="/"),
            state_dir=dict(type="path", default=confine.DEFAULT_STATE_DIR),
            transition=dict(type="str", required=True),
            node=dict(type="str"),
            workloads=dict(type="dict", required=True),
            pod_resources=dict(type="dict"),
            placement=dict(type="dict"),
            restarts=dict(type="list", elements="dict"),
        ),
        supports_check_mode=True,
    )
    _errors.run_module(module, run, root=module.params["root"], transition=module.params["transition"])


if __name__ == "__main__":
    main()
