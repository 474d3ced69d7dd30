#!/usr/bin/python
# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
---
module: transition_info
short_description: Read a node's transition record (steps, durations, backups, sha256 before and after)
version_added: 0.1.0
author: GPU Smith (@gpusmith)
description:
  - Reads one transition of the node (enable or rollback) from C(<state_dir>/transitions/<id>/), its journal and its
    backups, and returns its record, the document the C(kubelet_transition) role keeps as
    C(<artifacts>/<host>/transition-<id>.json).
  - The record has each step in journal order with its start and end times, its duration, its outcome and what it
    recorded, and each file the transition touched with its backup, the sha256 of what the file held before (from the
    backup's record) and of what it holds now.
  - Read-only. Nothing under O(state_dir) is read through a symlink (C(transitions), the transition's folder, a backup
    outside the state folder), and node files are never opened through a symlink (a symlink's own target text is what
    its sha256 is taken of, as its backup keeps it). These are the checks M(gpusmith.numa_gate.transition_journal) and
    M(gpusmith.numa_gate.transition_restore) make, in the same words.
  - State that is not private (owned by another user, or writable by group or others) is read, and said so in
    RV(record.notes).
options:
  transition:
    description:
      - The transition's id.
      - Default is the open transition, else the one whose journal ends last.
    type: str
  node:
    description: The node's name to put in the record (the Kubernetes node name). Default is the host's name.
    type: str
  target:
    description:
      - The transition's target, put in the record only when the node does not say it (the open transition's pointer,
        or a C(decide) event that recorded C(target)).
    type: str
    choices: [enable, rollback]
extends_documentation_fragment:
  - gpusmith.numa_gate.node_state
  - gpusmith.numa_gate.read_only
"""

EXAMPLES = r"""
- name: Read the last transition of this node
  gpusmith.numa_gate.transition_info:
  register: last

- name: Read one transition, naming the node and its target
  gpusmith.numa_gate.transition_info:
    transition: 20261201T090000Z
    node: gpu-node-1
    target: enable
  register: transition

- name: Show how long the drain took
  ansible.builtin.debug:
    msg: "{{ transition.record.steps | selectattr('step', 'eq', 'drain') | map(attribute='duration_s') | list }}"
"""

RETURN = r"""
found:
  description: Whether the transition was found (false when the node has no transition, or none of that id).
  returned: always
  type: bool
transition:
  description: The id of the transition read, or null when none was found.
  returned: always
  type: str
record:
  description: The transition record (schema_version 1), or null when none was found.
  returned: always
  type: dict
  contains:
    schema_version:
      description: The record's format, V(1).
      type: int
    transition:
      description: The transition's id.
      type: str
    target:
      description: V(enable) or V(rollback), or null when nothing says.
      type: str
    target_source:
      description: Where the target was read, V(open transition), V(journal) or V(caller), or null.
      type: str
    node:
      description: The node's name.
      type: str
    open:
      description: Whether the transition is still open on the node.
      type: bool
    opened:
      description: The time of the journal's first event (UTC), or null for an empty journal.
      type: str
    closed:
      description: The time of the journal's last event when the transition is closed, else null.
      type: str
    duration_s:
      description: Seconds from RV(record.opened) to RV(record.closed), or null while open.
      type: float
    outcome:
      description:
        - V(converged) (closed, no step failed), V(restored) (closed after putting the node back), V(failed-closed)
          (closed after a failed drain, the kubelet untouched), V(failed-open) (still open, a run killed or a restore that failed).
      type: str
    failed_steps:
      description: The steps whose outcome was V(failed), in order.
      type: list
      elements: str
    in_progress:
      description: The step that started last and never finished, while the transition is open.
      type: str
    steps:
      description:
        - Each run of a step in journal order (C(step), C(started), C(finished), C(duration_s), C(outcome),
          C(start_recorded), C(details), C(details_at_start)).
      type: list
      elements: dict
    files:
      description:
        - Each file the transition touched (C(path), C(backup), C(recorded), C(sha256_before), C(sha256_after), C(changed),
          C(original), C(problem)).
      type: list
      elements: dict
    notes:
      description: What reading the journal noticed, such as a last line a kill cut short, and state that is not private.
      type: list
      elements: str
"""

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import errors as _errors
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._transition import record_read
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._node_files import confine


def run(module):
    params = module.params
    found = record_read.read(params["root"], params["state_dir"], params["transition"], params["node"], params["target"])
    module.exit_json(changed=False, **found)


def main():
    module = AnsibleModule(
        argument_spec=dict(
            root=dict(type="path", default="/"),
            state_dir=dict(type="path", default=confine.DEFAULT_STATE_DIR),
            transition=dict(type="str"),
            node=dict(type="str"),
            target=dict(type="str", choices=["enable", "rollback"]),
        ),
        supports_check_mode=True,
    )
    _errors.run_module(module, run, root=module.params["root"])


if __name__ == "__main__":
    main()
