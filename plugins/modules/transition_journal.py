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
  - With O(decide), O(action=open) also asks the journal what a resumed transition still has to do and whose cordon it is
    (RV(resume), read before anything is recorded), and, unless the journal says the transition ended already, records the
    C(decide) event in the same run; O(decide) with C(resumed), C(unschedulable_before), C(cordons) and C(skipped). This is
    the intent a run killed right after the cordon's PATCH leaves behind (docs/transition.md, "Killed runs").
  - O(action=record) appends one step event, or each of O(entries) in order; O(action=read) returns where the transition
    stands; O(action=close) marks it done (the folder stays as its record).
  - Nothing is written before the whole journal has been read and checked; a damaged journal is refused line by line and
    left as it is. A last line a killed run cut short is removed before the next event is appended, and that event and
    RV(notes) say so. Concurrent opens are serialized by a lock (C(transitions/.lock)), so they give one transition.
    O(action=record) into a transition that was never opened is refused.
  - A journal or transition folder that is a symlink, a FIFO or not a regular file or folder is refused. State that is
    not private (owned by another user, or writable by group or others) is refused for writes and noted in RV(notes) by
    O(action=read).
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
    choices: [baseline, decide, lock, dry_run, cordon, drain, stop, state, config, start, verify, uncordon, restore]
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
  entries:
    description:
      - With O(action=record), the events to append in this order, instead of O(step) and O(event) (a controller-side step
        records its events through this in one run).
    type: list
    elements: dict
    suboptions:
      step:
        description: The step.
        type: str
        required: true
        choices: [baseline, decide, lock, dry_run, cordon, drain, stop, state, config, start, verify, uncordon, restore]
      event:
        description: The event.
        type: str
        required: true
        choices: [started, finished]
      outcome:
        description: With O(entries[].event=finished), how the step ended.
        type: str
        choices: [ok, changed, skipped, failed]
      changed:
        description: What the step changed.
        type: dict
  decide:
    description:
      - With O(action=open), the C(decide) event's details to record (such as C(target), C(render_changed), C(refusals)); the
        module adds C(resumed) and what it reads from the journal (see RV(resume)). Needs O(unschedulable_now) and
        O(target_in_place).
    type: dict
  report:
    description:
      - With O(action=record), also return the transition's record (RV(record)) as read after the events were appended, in this
        same run; the event that ends a transition (the uncordon's) is recorded this way, so keeping the record on the
        controller costs no module run of its own. In check mode nothing is appended and no record is returned.
    type: bool
    default: false
  node:
    description: With O(report), the node's name to put in the record (the Kubernetes node name). Default is the host's name.
    type: str
  unschedulable_now:
    description: With O(decide), the node's C(spec.unschedulable) read through the API by this run before it sent any write.
    type: bool
  target_in_place:
    description: With O(decide), whether the node's files hold the target already (nothing to render, no checkpoint the target would refuse).
    type: bool
  runtime_versions:
    description:
      - With O(decide), also read the node's container runtime and runc versions (C(containerd --version), C(crio --version),
        C(runc --version) of the binaries on the node's PATH), record them in the C(decide) event and return them
        (RV(runtime_versions)); the GPU device access preflight records them beside the device plugin's settings.
    type: bool
    default: false
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
resume:
  description:
    - With O(decide), what this run does and skips (the P(gpusmith.numa_gate.transition_resume#filter) filter's answer, read from
      the journal before the C(decide) event); C(unschedulable_before), C(cordons), C(cordoned), C(ended), C(done), C(skip_drain),
      C(skip_kubelet), C(reasons).
  returned: with O(decide)
  type: dict
runtime_versions:
  description:
    - With O(runtime_versions), the version each binary printed, C(containerd), C(cri-o) and C(runc); None where the binary is
      not on the node, C(unknown (...)) naming what it said where it runs but prints no version.
  returned: with O(runtime_versions)
  type: dict
  sample: {containerd: 2.1.4, cri-o: null, runc: 1.3.0}
record:
  description:
    - With O(report), the transition's record as M(gpusmith.numa_gate.transition_info) returns it (RV(gpusmith.numa_gate.transition_info#module:record)).
  returned: with report, unless in check mode
  type: dict
notes:
  description:
    - What reading the journal noticed, such as a last line a kill cut short, or removed before this event was appended,
      and state that is not private.
  returned: always
  type: list
  elements: str
"""

import os

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import errors as _errors
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._node_files import confine
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._transition.journal import journal, transitions
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._transition import record_read, resume
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._transition.node import runtime_versions


def _need(params, *names):
    missing = [name for name in names if not params[name]]
    if missing:
        raise _errors.NumaGateError("action=%s needs %s" % (params["action"], " and ".join(missing)))


def _open(module):
    params = module.params
    root, state_dir = params["root"], params["state_dir"]
    _need(params, "target", "new_id")
    transitions.check_id(params["new_id"])
    pointer = transitions.current(root, state_dir)
    if pointer is None and module.check_mode:
        if os.path.lexists(transitions.folder(root, state_dir, params["new_id"])):
            raise _errors.NumaGateError("transition id %s is taken: %s/transitions/%s exists (a transition opened before); "
                                        "give another new_id; nothing was changed" % (params["new_id"], state_dir, params["new_id"]))
        return {"id": params["new_id"], "target": params["target"]}, True, False
    if module.check_mode:
        transitions.check_target(pointer, params["target"])
        return pointer, False, True
    pointer, resumed = transitions.open_transition(root, state_dir, params["target"], params["new_id"])
    return pointer, not resumed, resumed


def _record(module, folder, path, notes):
    params = module.params
    if params["entries"]:
        if params["step"] or params["event"]:
            raise _errors.NumaGateError("action=record takes either entries or step and event, not both; nothing was recorded")
    else:
        _need(params, "step", "event")
    if not os.path.isdir(folder):
        if module.check_mode:
            notes.append("transition %s is not open on this node yet (check mode opened none); nothing was recorded" % params["transition"])
            return
        raise _errors.NumaGateError("transition %s was never opened on this node (%s/transitions/%s does not exist): open it first "
                                    "(action=open); nothing was recorded" % (params["transition"], params["state_dir"], params["transition"]))
    confine.require_private(params["root"], params["state_dir"], path)
    if module.check_mode:
        journal.read(path)  # a damaged journal fails here too
        return
    for entry in params["entries"] or [dict(step=params["step"], event=params["event"], outcome=params["outcome"], changed=params["changed"])]:
        journal.append(path, entry["step"], entry["event"], outcome=entry["outcome"], changed=entry["changed"], notes=notes)


def _check_decide(params):
    """Refuse decide options that do not go together, before anything is opened."""
    if params["decide"] is None:
        return
    if params["action"] != "open":
        raise _errors.NumaGateError("decide goes with action=open, not %s; nothing was changed" % params["action"])
    missing = [name for name in ("unschedulable_now", "target_in_place") if params[name] is None]
    if missing:
        raise _errors.NumaGateError("action=open with decide needs %s; nothing was changed" % " and ".join(missing))


def _decide(module, resumed, path, notes, versions):
    """The resume plan from the journal as it was opened, and the decide event (unless the journal says the transition ended)."""
    params = module.params
    entries = journal.read(path)[0] if resumed else []
    plan = resume.plan(journal.summary(entries), resumed, params["unschedulable_now"], params["target_in_place"])
    if plan["ended"] is not None:
        return plan, False
    if not module.check_mode:
        details = dict(params["decide"], resumed=resumed, unschedulable_before=plan["unschedulable_before"], cordons=plan["cordons"],
                       skipped=plan["reasons"])
        if versions is not None:
            details["runtime_versions"] = versions
        confine.require_private(params["root"], params["state_dir"], path)
        journal.append(path, "decide", "finished", outcome="changed", changed=details, notes=notes)
    return plan, True


def run(module):
    params = module.params
    root, state_dir, action = params["root"], params["state_dir"], params["action"]
    changed, resumed, notes = False, False, []
    _check_decide(params)
    if params["report"] and action != "record":
        raise _errors.NumaGateError("report goes with action=record, not %s; nothing was changed" % action)
    if action == "open":
        pointer, changed, resumed = _open(module)
    else:
        _need(params, "transition")
        pointer = transitions.current(root, state_dir) or {"id": params["transition"], "target": None}
        if pointer["id"] != params["transition"]:
            pointer = {"id": transitions.check_id(params["transition"]), "target": None}
    folder = transitions.folder(root, state_dir, pointer["id"])
    path = os.path.join(folder, journal.JOURNAL)
    extra = {}
    if params["decide"] is not None:
        if params["runtime_versions"]:
            extra["runtime_versions"] = runtime_versions.read(module.get_bin_path, module.run_command)
        extra["resume"], decided = _decide(module, resumed, path, notes, extra.get("runtime_versions"))
        changed = changed or decided
    if action == "record":
        _record(module, folder, path, notes)
        changed = True
        if params["report"] and not module.check_mode:
            extra["record"] = record_read.read(root, state_dir, pointer["id"], params["node"])["record"]
    elif action == "close":
        if module.check_mode:
            journal.read(path)
            changed = pointer["target"] is not None
        else:
            changed = transitions.close(root, state_dir, pointer["id"])
    entries, read_notes = journal.read(path)
    if action == "read":
        notes.extend("not private: %s" % problem for problem in confine.privacy_problems(root, state_dir, path))
    notes.extend(note for note in read_notes if note not in notes)
    module.exit_json(changed=changed, transition=pointer, resumed=resumed, journal=journal.summary(entries), notes=notes, **extra)


def main():
    module = AnsibleModule(
        argument_spec=dict(
            root=dict(type="path", default="/"),
            state_dir=dict(type="path", default=confine.DEFAULT_STATE_DIR),
            action=dict(type="str", choices=["open", "record", "read", "close"], required=True),
            target=dict(type="str", choices=["enable", "rollback"]),
            new_id=dict(type="str"),
            transition=dict(type="str"),
            step=dict(type="str", choices=list(journal.STEPS)),
            event=dict(type="str", choices=list(journal.EVENTS)),
            outcome=dict(type="str", choices=list(journal.OUTCOMES)),
            changed=dict(type="dict"),
            entries=dict(type="list", elements="dict", options=dict(
                step=dict(type="str", choices=list(journal.STEPS), required=True),
                event=dict(type="str", choices=list(journal.EVENTS), required=True),
                outcome=dict(type="str", choices=list(journal.OUTCOMES)),
                changed=dict(type="dict"),
            )),
            decide=dict(type="dict"),
            unschedulable_now=dict(type="bool"),
            target_in_place=dict(type="bool"),
            report=dict(type="bool", default=False),
            node=dict(type="str"),
            runtime_versions=dict(type="bool", default=False),
        ),
        supports_check_mode=True,
    )
    _errors.run_module(module, run, root=module.params["root"])


if __name__ == "__main__":
    main()
