#!/usr/bin/python
# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
---
module: transition_journal
short_description: Open, record, read and close a node's transition journal
version_added: 0.1.0
author: GPU Smith (@gpusmith)
description:
  - Each transition of a node (enable or rollback) has a folder C(<state_dir>/transitions/<id>/) with its backups and
    a journal of its steps (C(journal.jsonl)), each event fsynced before the step goes on, so a run killed at any point
    can be re-run and continue or restore.
  - O(action=open) returns the transition still open for O(target), or opens a new one named O(new_id).
  - O(action=record) appends one step event; O(action=read) returns where the transition stands; O(action=close) marks
    it done (the folder stays as its record).
options:
  action:
    description: What to do.
    type: str
    choices: [open, record, read, close]
    required: true
  target:
    description: With O(action=open), the transition's target.
    type: str
    choices: [enable, rollback]
  new_id:
    description: With O(action=open), the id of a new transition (letters, digits, C(.), C(_), C(-)), for example a UTC timestamp.
    type: str
  transition:
    description: The transition's id, for O(action=record), O(action=read) and O(action=close).
    type: str
  step:
    description: With O(action=record), the step.
    type: str
    choices: [baseline, decide, cordon, drain, stop, state, config, start, verify, uncordon, restore]
  event:
    description: With O(action=record), the event.
    type: str
    choices: [started, finished]
  outcome:
    description: With O(event=finished), how the step ended.
    type: str
    choices: [ok, changed, skipped, failed]
  changed:
    description: With O(event=finished), what the step changed (for example the files it backed up).
    type: dict
extends_documentation_fragment:
  - gpusmith.numa_gate.node_state
attributes:
  check_mode:
    description: Reads only; says what it would open or record.
    support: full
  diff_mode:
    description: The journal is append-only; there is no diff.
    support: none
"""

EXAMPLES = r"""
- name: Open (or resume) this node's enable transition
  gpusmith.numa_gate.transition_journal:
    action: open
    target: enable
    new_id: "{{ now(utc=true, fmt='%Y%m%dT%H%M%SZ') }}"
  register: transition

- name: Record that the drain finished
  gpusmith.numa_gate.transition_journal:
    action: record
    transition: "{{ transition.transition.id }}"
    step: drain
    event: finished
    outcome: changed
"""

RETURN = r"""
transition:
  description: The transition (C(id), C(target)).
  returned: always
  type: dict
resumed:
  description: With O(action=open), whether an open transition was found (a re-run after a killed one).
  returned: always
  type: bool
journal:
  description: Where the transition stands, C(steps) (each with C(started), C(finished), C(outcome)), C(last_finished), C(in_progress), C(failed).
  returned: always
  type: dict
notes:
  description: What reading the journal noticed, such as a last line a kill cut short.
  returned: always
  type: list
  elements: str
"""

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.gpusmith.numa_gate.plugins.module_utils import _errors
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._node_state import journal, transitions


def _need(params, *names):
    missing = [name for name in names if not params[name]]
    if missing:
        raise _errors.NumaGateError("action=%s needs %s" % (params["action"], " and ".join(missing)))


def run(module):
    params = module.params
    root, state_dir, action = params["root"], params["state_dir"], params["action"]
    changed, resumed = False, False
    if action == "open":
        _need(params, "target", "new_id")
        pointer = transitions.current(root, state_dir)
        if pointer is None and module.check_mode:
            transitions.folder(root, state_dir, params["new_id"])  # the id is checked even in check mode
            pointer, changed = {"id": params["new_id"], "target": params["target"]}, True
        else:
            pointer, resumed = transitions.open_transition(root, state_dir, params["target"], params["new_id"])
            changed = not resumed
    else:
        _need(params, "transition")
        pointer = transitions.current(root, state_dir) or {"id": params["transition"], "target": None}
        if pointer["id"] != params["transition"]:
            pointer = {"id": params["transition"], "target": None}
    path = transitions.journal_path(root, state_dir, pointer["id"])
    if action == "record":
        _need(params, "step", "event")
        changed = True
        if not module.check_mode:
            journal.append(path, params["step"], params["event"], outcome=params["outcome"], changed=params["changed"])
    elif action == "close" and not module.check_mode:
        changed = transitions.close(root, state_dir, pointer["id"])
    entries, notes = journal.read(path)
    module.exit_json(changed=changed, transition=pointer, resumed=resumed, journal=journal.summary(entries), notes=notes)


def main():
    module = AnsibleModule(
        argument_spec=dict(
            root=dict(type="path", default="/"),
            state_dir=dict(type="path", default="/var/lib/numa-gate"),
            action=dict(type="str", choices=["open", "record", "read", "close"], required=True),
            target=dict(type="str", choices=["enable", "rollback"]),
            new_id=dict(type="str"),
            transition=dict(type="str"),
            step=dict(type="str", choices=list(journal.STEPS)),
            event=dict(type="str", choices=list(journal.EVENTS)),
            outcome=dict(type="str", choices=list(journal.OUTCOMES)),
            changed=dict(type="dict"),
        ),
        supports_check_mode=True,
    )
    _errors.run_module(module, run, root=module.params["root"])


if __name__ == "__main__":
    main()
