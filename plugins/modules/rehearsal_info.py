#!/usr/bin/python
# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
---
module: rehearsal_info
short_description: Read the node's rollback rehearsal from its own transition records (the acceptance record's rollback evidence)
version_added: 0.1.0
author: GPU Smith (@gpusmith)
description:
  - Lists every transition of the node from C(<state_dir>/transitions/) (id, target, outcome, opened, closed, duration) and
    reads the check M(gpusmith.numa_gate.rehearsal_check) kept after a rehearsed rollback (C(transitions/<id>/rehearsal.json)),
    in one module run, and returns the rollback criterion's evidence, the value the acceptance record's verdict reads.
  - The rehearsal is the last rollback that followed a converged enable. RV(rollback.state) is V(rehearsed) when that
    rollback converged and the check kept after it says its workloads came back Ready on the node with PodResources at
    container scope; V(not reconciled) when the check names workloads that did not come back (listed in RV(rollback.missing))
    or pod-level sets left; V(refused) when the check kept is not believed (its observations missing or impossible, or its
    statements not what its observations give, or its file not private, owned by another user or writable by others, named
    in RV(rollback.problems)); V(unchecked) when no check was kept; V(not converged) when the rollback was restored, failed or is
    open; V(not rehearsed) when no rollback follows a converged enable.
  - When the enable was followed by a rehearsed reboot (M(gpusmith.numa_gate.rehearsal_reboot), C(transitions/<enable id>/reboot.json)),
    RV(rollback.reboot) shows it with its state recomputed from what it observed; a reboot that is not believed, did not happen or did
    not come back turns V(rehearsed) into V(not reconciled), its problems named; a recovered one is named in RV(rollback.notes).
  - Read-only. The state is read with the checks M(gpusmith.numa_gate.transition_info) makes (no symlinked transitions folder
    or transition folder, no file read through a symlink); a journal or a check that cannot be read is a note, never a failure.
options:
  node:
    description: The node's name to put in the evidence (the Kubernetes node name). Default is the host's name.
    type: str
extends_documentation_fragment:
  - gpusmith.numa_gate.node_state
  - gpusmith.numa_gate.read_only
"""

EXAMPLES = r"""
- name: Read the rollback rehearsal of this node for the acceptance record
  gpusmith.numa_gate.rehearsal_info:
    node: gpu-node-1
  register: rehearsal

- name: Show its state and the transitions it names
  ansible.builtin.debug:
    msg: "{{ rehearsal.rollback.state }}: {{ rehearsal.rollback.rollback.transition | default('no rollback') }}"
"""

RETURN = r"""
rollback:
  description: The rollback criterion's evidence (the acceptance record's C(rollback) input).
  returned: always
  type: dict
  contains:
    schema_version:
      description: V(1).
      type: int
    node:
      description: The node's name.
      type: str
    state:
      description: V(rehearsed), V(not reconciled), V(refused), V(unchecked), V(not converged) or V(not rehearsed).
      type: str
    rehearsed:
      description: Whether the state is V(rehearsed).
      type: bool
    enable:
      description:
        - The converged enable the rollback followed (C(transition), C(target), C(outcome), C(opened), C(closed), C(duration_s),
          C(failed_steps)), or null.
      type: dict
    rollback:
      description: The rehearsed rollback, with the same keys, or null.
      type: dict
    re_enable:
      description: The first enable opened after the rollback, with the same keys, or null.
      type: dict
    check:
      description:
        - What the check kept after the rollback says (C(observed_at), C(waited_s), C(timeout_s), C(workloads), C(unowned),
          C(came_back), C(missing), C(pod_resources), C(reconciled)), or null.
      type: dict
    missing:
      description: The workloads (C(kind/namespace/name)) that did not come back, when the state is V(not reconciled).
      type: list
      elements: str
    problems:
      description: Why the rehearsal does not count, one line each.
      type: list
      elements: str
    transitions:
      description: The ids of every transition of the node, oldest first.
      type: list
      elements: str
    notes:
      description: What reading the node noticed (a journal or a check that could not be read, state that is not private).
      type: list
      elements: str
    reboot:
      description:
        - The rehearsed reboot kept after the enable (C(enable), C(observed_at), C(reboot), C(refusals), C(recovery), C(verify), C(workloads),
          C(state) - V(came back), V(recovered), V(not rebooted) or V(not back) - and C(problems)); C(state) V(refused) with its
          C(problems) when it is not believed; null when none was kept.
      type: dict
transitions:
  description:
    - Every transition of the node, oldest first (C(transition), C(target), C(outcome), C(open), C(opened), C(closed), C(duration_s),
      C(failed_steps)).
  returned: always
  type: list
  elements: dict
"""

import os

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import errors as _errors, fileio as _fileio, k8s_names as _k8s_names
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._rehearsal import evidence as rehearsal
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._node_files import atomic, confine
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._transition.journal import journal, transitions
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._rehearsal import kept as rehearsals
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._rehearsal import reboot as reboots
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._transition import record


def _summaries(root, state_dir, node, pointer, notes):
    found = []
    for name in transitions.ids(root, state_dir):
        try:
            where = transitions.journal_path(root, state_dir, name)
            entries, said = journal.read(where)
        except (atomic.NodeStateError, _fileio.FileIOError) as exc:
            notes.append("transition %s not read: %s" % (name, exc))
            continue
        notes.extend("transition %s: %s" % (name, line) for line in said)
        notes.extend("not private: %s" % line for line in confine.privacy_problems(root, state_dir, where))
        found.append(record.summary(record.build(name, entries, [], pointer=pointer, node=node)))
    return found


def run(module):
    params = module.params
    root, state_dir = params["root"], params["state_dir"]
    node = params["node"] or os.uname().nodename
    if params["node"] is not None:
        _k8s_names.node_name(params["node"], "node", after="nothing was read")
    notes = []
    pointer = transitions.current(root, state_dir)
    found = _summaries(root, state_dir, node, pointer, notes)
    checks, refused = {}, {}
    for item in found:
        if item["target"] != "rollback":
            continue
        kept, problem = rehearsals.read(root, state_dir, item["transition"])
        if problem:
            notes.append(problem)
        if kept is not None:
            checks[item["transition"]] = kept
            # A check that another user could have written is no observation of this collection's.
            refused[item["transition"]] = confine.privacy_problems(root, state_dir, rehearsals.path(root, state_dir, item["transition"]))
    evidence = rehearsal.evidence(node, found, checks, notes, refused=refused)
    # The rehearsed reboot (rehearse.yml with numa_gate_rehearse_reboot) is kept beside the enable the rollback followed.
    document, distrust = None, []
    enable = (evidence.get("enable") or {}).get("transition")
    if enable is not None:
        document, problem = rehearsals.read(root, state_dir, enable, name=reboots.NAME, key="enable")
        if problem:
            distrust = [problem]
            document = {}
        elif document is not None:
            distrust = confine.privacy_problems(root, state_dir, rehearsals.path(root, state_dir, enable, reboots.NAME))
    module.exit_json(changed=False, rollback=reboots.fold(evidence, document, distrust), transitions=found)


def main():
    module = AnsibleModule(
        argument_spec=dict(
            root=dict(type="path", default="/"),
            state_dir=dict(type="path", default=confine.DEFAULT_STATE_DIR),
            node=dict(type="str"),
        ),
        supports_check_mode=True,
    )
    _errors.run_module(module, run, root=module.params["root"])


if __name__ == "__main__":
    main()
