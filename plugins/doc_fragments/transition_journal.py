# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations


class ModuleDocFragment:
    """The journal option of a transition step that records its own events (docs/transition.md, "The journal")."""

    DOCUMENTATION = r"""
options:
  journal:
    description:
      - The transition this run is a step of. When given, the step records its own events in that transition's journal
        (C(<state_dir>/transitions/<transition>/journal.jsonl)), each fsynced before it goes on, in this same run;
        C(started) before it changes anything and C(finished) (with its outcome and what it changed) once its work is done.
        A step that fails records no C(finished).
      - The transition must be open on the node (opened by
        O(gpusmith.numa_gate.transition_journal#module:action=open)) and its journal must be private state; a damaged
        journal is refused before anything is changed. In check mode nothing is written.
    type: dict
    suboptions:
      transition:
        description: The transition's id.
        type: str
        required: true
      step:
        description: The journal step this run is.
        type: str
        required: true
        choices: [baseline, decide, cordon, drain, stop, state, config, start, verify, uncordon, restore]
      state_dir:
        description: The collection's state folder on the node, where the transition's journal is.
        type: path
        default: /var/lib/numa-gate
      events:
        description:
          - Events of controller-side steps that ran since the last node-side run (for example the drain's C(finished)),
            appended first, with this step's first own event, in this same run.
        type: list
        elements: dict
        default: []
        suboptions:
          step:
            description: The step.
            type: str
            required: true
            choices: [baseline, decide, cordon, drain, stop, state, config, start, verify, uncordon, restore]
          event:
            description: The event.
            type: str
            required: true
            choices: [started, finished]
          outcome:
            description: How the step ended, for a C(finished) event.
            type: str
            choices: [ok, changed, skipped, failed]
          changed:
            description: What the step changed.
            type: dict
"""

    CONTROLLER = r"""
options:
  journal:
    description:
      - The transition this task is a step of. When given (and not in check mode), the task records its step on the node,
        through P(gpusmith.numa_gate.transition_journal#module) in this same task, each event fsynced; with O(state=drained),
        O(journal.events) and the drain's C(started) before it evicts anything (its C(finished) is for the caller to pass to the
        next node-side step); with O(state=uncordoned), O(journal.events) and the uncordon's C(finished) once the API has taken it.
        A task that fails records nothing after its API work.
      - O(state=cordoned) records nothing; a run killed right after the cordon's PATCH must leave no cordon event, so the
        cordon's C(finished) goes with the next task (the drain's O(journal.events)).
      - The task must then run against the node (not delegated to the controller); the API requests are sent from the
        controller all the same, and only the journal's events are written on the node.
    type: dict
    suboptions:
      transition:
        description: The transition's id.
        type: str
        required: true
      step:
        description: The journal step this task is; it must match O(state) (C(drained) is C(drain), C(uncordoned) C(uncordon)).
        type: str
        required: true
        choices: [baseline, decide, cordon, drain, stop, state, config, start, verify, uncordon, restore]
      state_dir:
        description: The collection's state folder on the node, where the transition's journal is.
        type: path
        default: /var/lib/numa-gate
      events:
        description: Events of earlier controller-side steps (the cordon's C(finished)), recorded first, in this same task.
        type: list
        elements: dict
        default: []
        suboptions:
          step:
            description: The step.
            type: str
            required: true
            choices: [baseline, decide, cordon, drain, stop, state, config, start, verify, uncordon, restore]
          event:
            description: The event.
            type: str
            required: true
            choices: [started, finished]
          outcome:
            description: How the step ended, for a C(finished) event.
            type: str
            choices: [ok, changed, skipped, failed]
          changed:
            description: What the step changed.
            type: dict
"""
