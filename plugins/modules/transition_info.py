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
attributes:
  check_mode:
    description: Reads only; the same in check mode.
    support: full
  diff_mode:
    description: Reads only; there is no diff.
    support: none
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

import hashlib
import os
import stat

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.gpusmith.numa_gate.plugins.module_utils import _errors, _fileio
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._node_state import atomic, backups, confine, journal, restore_plan, transitions
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._transition import record


def _last(root, state_dir):
    """The open transition's id, else the one whose journal ends last (by time, then by name), else None."""
    pointer = transitions.current(root, state_dir)
    if pointer is not None:
        return pointer["id"]
    parent = confine.transitions_folder(root, state_dir)
    best_key, best = None, None
    for name in sorted(os.listdir(parent)) if os.path.isdir(parent) else []:
        path = os.path.join(parent, name)
        if name == transitions.CURRENT or os.path.islink(path) or not os.path.isdir(path):
            continue
        try:
            where = transitions.journal_path(root, state_dir, name)
        except atomic.NodeStateError:
            continue  # not a transition's folder: its name is not an id
        try:
            entries, _notes = journal.read(where)
        except (atomic.NodeStateError, _fileio.FileIOError):
            entries = []
        moment = record.event_time(entries[-1]["at"]) if entries else None
        key = (moment.timestamp() if moment else float("-inf"), name)
        if best_key is None or key > best_key:
            best_key, best = key, name
    return best


def _sha_now(real):
    """(sha256, problem) of what is at ``real`` now: a file's bytes, a symlink's target text, None when absent."""
    try:
        info = os.lstat(real)
    except FileNotFoundError:
        return None, None
    if stat.S_ISLNK(info.st_mode):
        return hashlib.sha256(os.fsencode(os.readlink(real))).hexdigest(), None
    try:
        return hashlib.sha256(_fileio.read_regular(real, backups.BACKUP_READ_LIMIT)).hexdigest(), None
    except _fileio.FileIOError as exc:
        return None, str(exc)


def _kept(root, state_dir, backup):
    """(record of the backup, problem): its ``.meta``, or the copy's own sha256 when it has none."""
    try:
        copy = confine.backup_copy(root, state_dir, backup)
    except atomic.NodeStateError as exc:
        return None, str(exc)
    if not os.path.lexists(copy):
        return None, "backup %s is missing" % backup
    try:
        kept = backups.read_record(copy)
        if kept is None:
            data = _fileio.read_regular(copy, backups.BACKUP_READ_LIMIT)
            return {"sha256": hashlib.sha256(data).hexdigest()}, "backup %s has no record; sha256_before is its copy's" % backup
    except (atomic.NodeStateError, _fileio.FileIOError) as exc:
        return None, str(exc)
    return kept, None


def _files(root, state_dir, transition_id, entries):
    files = []
    for item in restore_plan.touched(root, state_dir, transition_id, entries):
        kept, problem = _kept(root, state_dir, item["backup"]) if item["backup"] else (None, None)
        sha_now, now_problem = _sha_now(_fileio.resolve_within(root, item["path"], follow_last=False))
        files.append(dict(item, kept=kept, sha256_now=sha_now, problem="; ".join(p for p in (problem, now_problem) if p) or None))
    return files


def run(module):
    params = module.params
    root, state_dir = params["root"], params["state_dir"]
    transition_id = params["transition"] or _last(root, state_dir)
    folder = transitions.folder(root, state_dir, transition_id) if transition_id else None
    if folder is None or not os.path.isdir(folder):
        module.exit_json(changed=False, found=False, transition=None, record=None)
    path = os.path.join(folder, journal.JOURNAL)
    entries, notes = journal.read(path)
    notes = notes + ["not private: %s" % problem for problem in confine.privacy_problems(root, state_dir, path)]
    built = record.build(transition_id, entries, _files(root, state_dir, transition_id, entries), pointer=transitions.current(root, state_dir),
                         node=params["node"] or os.uname().nodename, target=params["target"], notes=notes)
    module.exit_json(changed=False, found=True, transition=transition_id, record=built)


def main():
    module = AnsibleModule(
        argument_spec=dict(
            root=dict(type="path", default="/"),
            state_dir=dict(type="path", default="/var/lib/numa-gate"),
            transition=dict(type="str"),
            node=dict(type="str"),
            target=dict(type="str", choices=["enable", "rollback"]),
        ),
        supports_check_mode=True,
    )
    _errors.run_module(module, run, root=module.params["root"])


if __name__ == "__main__":
    main()
