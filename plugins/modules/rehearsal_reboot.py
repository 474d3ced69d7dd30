#!/usr/bin/python
# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
---
module: rehearsal_reboot
short_description: Keep on the node what a rehearsed reboot after an enable observed (checkpoints, recovery, Ready, workloads)
version_added: 0.1.0
author: GPU Smith (@gpusmith)
description:
  - After C(playbooks/rehearse.yml) reboots a node that an enable converged (O(gpusmith.numa_gate.rehearsal_reboot#module:transition)),
    judges what was observed - the reboot itself, the kubelet's checkpoints read after the boot under the effective configuration
    and the machine as it booted, the recovery when the kubelet refused them, the kubelet Ready with the policies it had and the
    node's workloads back - and keeps the result beside the enable's journal, as C(<state_dir>/transitions/<transition>/reboot.json),
    so a later M(gpusmith.numa_gate.rehearsal_info) on any controller reads it from the node.
  - Its C(state) is V(came back), V(recovered) (the kubelet refused a checkpoint, the refused files were removed and it came
    back), V(not rebooted) or V(not back), each problem named; M(gpusmith.numa_gate.rehearsal_info) recomputes it from the
    observations kept, never taking it as stated.
  - The transition must be a closed enable of this node. The file is written atomically (temporary file, fsync, rename,
    fsync of the folder), 0600, never through a symlink, in a transition folder that must be private. The same result
    kept again changes nothing.
options:
  transition:
    description: The id of the enable the reboot followed (the enable's C(kubelet_transition_result.transition)).
    type: str
    required: true
  node:
    description: The node's name to put in the result (the Kubernetes node name). Default is the host's name.
    type: str
  reboot:
    description: The C(ansible.builtin.reboot) result (C(rebooted), C(elapsed), C(msg) when it failed).
    type: dict
    required: true
  refusals:
    description:
      - M(gpusmith.numa_gate.kubelet_checkpoint_info)'s C(refusals) after the boot (the kubelet's refusal, or null, by file);
        null when the checkpoints were not read, which is never taken as no refusal.
    type: dict
  recovery:
    description:
      - The M(gpusmith.numa_gate.kubelet_checkpoint) result (O(gpusmith.numa_gate.kubelet_checkpoint#module:state=absent)) when
        the recovery ran (C(removed), C(failed) and C(msg) when it failed); null when it did not run.
    type: dict
  verify:
    description: The M(gpusmith.numa_gate.kubelet_verify) result after the boot (C(ready), C(mismatches), C(msg)).
    type: dict
    required: true
  workloads:
    description: The M(gpusmith.numa_gate.rehearsal_workloads) result after the uncordon, called with the workloads named before the reboot.
    type: dict
    required: true
extends_documentation_fragment:
  - gpusmith.numa_gate.node_state
attributes:
  check_mode:
    description: Says whether it would write, writes nothing.
    support: full
  diff_mode:
    description: The kept result before and after.
    support: full
"""

EXAMPLES = r"""
- name: Keep the rehearsed reboot on the node
  gpusmith.numa_gate.rehearsal_reboot:
    transition: "{{ kubelet_transition_result.transition }}"
    node: "{{ inventory_hostname }}"
    reboot: "{{ rebooted }}"
    refusals: "{{ checkpoints.refusals | default(none) }}"
    recovery: "{{ recovery if recovery is not skipped else none }}"
    verify: "{{ verified }}"
    workloads: "{{ after_reboot }}"
  register: reboot
"""

RETURN = r"""
reboot:
  description:
    - The kept result (schema_version 1) - C(enable), C(node), C(observed_at), C(reboot) (C(rebooted), C(elapsed_s), C(error)),
      C(refusals), C(recovery) (C(removed), C(error)), C(verify) (C(ready), C(mismatches), C(message)), C(workloads) (each
      C(owner), C(state), C(expected), C(ready), C(before), C(now)), C(state) and C(problems).
  returned: success
  type: dict
  sample: {enable: "20261205T220000Z", state: recovered, problems: []}
path:
  description: Where it is kept on the node.
  returned: success
  type: str
"""

import datetime
import os

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import errors as _errors
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import shape_check as S
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._node_files import atomic, confine
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._rehearsal import kept, reboot as rehearsal_reboot
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._rehearsal.workloads import STATES as WORKLOAD_STATES
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._transition import record
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._transition.journal import journal, transitions

REBOOT = S.Fields("the ansible.builtin.reboot result", {}, {"rebooted": S.Nullable(S.BOOL), "elapsed": S.Nullable(S.NUMBER),
                                                            "msg": S.Nullable(S.STR), "failed": S.Nullable(S.BOOL)})
REFUSALS = S.Nullable(S.MapOf(S.Nullable(S.STR)))
RECOVERY = S.Nullable(S.Fields("the kubelet_checkpoint result", {}, {"removed": S.Nullable(S.ListOf(S.STR)), "failed": S.Nullable(S.BOOL),
                                                                     "msg": S.Nullable(S.STR)}))
VERIFY = S.Fields("the kubelet_verify result", {}, {"ready": S.Nullable(S.BOOL), "mismatches": S.Nullable(S.LIST), "msg": S.Nullable(S.STR)})
_NOW = S.Fields("a pod of the workload now", {"name": S.STR})
_WORKLOAD = S.Fields("a workload after the reboot", {
    "owner": S.STR, "state": S.OneOf(*WORKLOAD_STATES), "expected": S.COUNT, "ready": S.COUNT, "before": S.ListOf(S.STR), "now": S.ListOf(_NOW)})
WORKLOADS = S.Fields("the rehearsal_workloads result after the reboot", {"workloads": S.ListOf(_WORKLOAD)}, {"observed_at": S.Nullable(S.STR)})


def _enable(root, state_dir, transition_id, node):
    folder = transitions.folder(root, state_dir, transition_id)
    if not os.path.isdir(folder):
        raise atomic.NodeStateError("no transition %s on this node (%s/transitions/%s); nothing was kept" % (transition_id, state_dir, transition_id))
    entries, _notes = journal.read(os.path.join(folder, journal.JOURNAL))
    built = record.build(transition_id, entries, [], pointer=transitions.current(root, state_dir), node=node)
    if built["target"] != "enable":
        raise _errors.NumaGateError("transition %s is %s, not an enable: the rehearsed reboot goes with the enable it followed; nothing was kept"
                                    % (transition_id, "a rollback" if built["target"] == "rollback" else "of no known target"))
    if built["open"]:
        raise _errors.NumaGateError("enable %s is still open on this node: finish it (enable.yml) before its reboot is kept; nothing was kept"
                                    % transition_id)


def run(module):
    params = module.params
    root, state_dir, transition_id = params["root"], params["state_dir"], params["transition"]
    node = params["node"] or os.uname().nodename
    observed = {
        "reboot": S.check(params["reboot"], REBOOT, "reboot", _errors.NumaGateError),
        "refusals": S.check(params["refusals"], REFUSALS, "refusals", _errors.NumaGateError),
        "recovery": S.check(params["recovery"], RECOVERY, "recovery", _errors.NumaGateError),
        "verify": S.check(params["verify"], VERIFY, "verify", _errors.NumaGateError),
        "workloads": S.check(params["workloads"], WORKLOADS, "workloads", _errors.NumaGateError),
    }
    _enable(root, state_dir, transition_id, node)
    # When the pods were last looked at (the API's observation, so the same result kept again changes nothing), else now.
    now = observed["workloads"].get("observed_at") or datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    document = rehearsal_reboot.check(transition_id, node, observed, now)
    changed, before = kept.write(root, state_dir, transition_id, document, check_mode=module.check_mode, name=rehearsal_reboot.NAME, key="enable")
    where = os.path.join(state_dir, "transitions", transition_id, rehearsal_reboot.NAME)
    result = dict(changed=changed, reboot=document, path=where)
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
            reboot=dict(type="dict", required=True),
            refusals=dict(type="dict"),
            recovery=dict(type="dict"),
            verify=dict(type="dict", required=True),
            workloads=dict(type="dict", required=True),
        ),
        supports_check_mode=True,
    )
    _errors.run_module(module, run, root=module.params["root"], transition=module.params["transition"])


if __name__ == "__main__":
    main()
