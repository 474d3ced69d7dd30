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
        A step that fails records no C(finished). In check mode nothing is written.
      - The transition must be open on the node (opened by
        O(gpusmith.numa_gate.transition_journal#module:action=open)) and its journal must be private state; a damaged
        journal is refused before anything is changed.
      - A step whose work is done through the API (M(gpusmith.numa_gate.kube_node)) still runs against the node, not
        delegated to the controller; its API requests are sent from the controller and only its events are written on the
        node, through P(gpusmith.numa_gate.transition_journal#module) in the same task. Its notes say which events it writes.
    type: dict
    suboptions:
      transition:
        description: The transition's id.
        type: str
        required: true
      step:
        description:
          - The journal step this run is.
          - For M(gpusmith.numa_gate.kube_node) it must match O(gpusmith.numa_gate.kube_node#module:state) (C(drained) is
            C(drain), C(uncordoned) C(uncordon)).
        type: str
        required: true
        choices: [baseline, decide, lock, dry_run, cordon, drain, stop, state, config, start, verify, uncordon, restore]
      state_dir:
        description: The collection's state folder on the node, where the transition's journal is.
        type: path
        default: /var/lib/numa-gate
      events:
        description:
          - Events of steps that ran on the controller since the last journal write (for example the cordon's or the drain's
            C(finished)), appended first, with this step's first own event, in this same run.
        type: list
        elements: dict
        default: []
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
            description: How the step ended, for a C(finished) event.
            type: str
            choices: [ok, changed, skipped, failed]
          changed:
            description: What the step changed.
            type: dict
"""
