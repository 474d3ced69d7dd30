# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A transition step that journals itself: its ``started`` and ``finished`` events, fsynced, in the run that does its work.

Public: `ARGUMENT_SPEC`, `CONTROLLER_ARGUMENT_SPEC`, `FINISHED_ONLY`, `CONTROLLER_STEPS`, `StepJournal(root, options, check_mode)`,
`controller_events(options, state, result=None)`.

A step module given the ``journal`` option (the ``gpusmith.numa_gate.transition_journal`` doc
fragment: ``transition``, ``step``, ``state_dir``) appends ``started`` before it changes anything
and ``finished`` once its work is done, each through `journal.append` (a whole-journal check,
``O_APPEND`` under ``flock``, fsync of the file and its folder), so a run killed at any point
leaves the journal as the per-event tasks did: every event up to the last one that returned (a
step in `FINISHED_ONLY`, whose node-side part follows a wait on the controller, records its end
only, and the record takes its start from the event before it). A
step that fails records no ``finished`` (its ``started`` without one is what a resumed run and the
record read as not done). The transition must have been opened on the node (``transition_journal``
``action=open``), and its journal must be private state; in check mode nothing is written and a
transition check mode never opened is no error.

`controller_events` is what a controller-side step (``kube_node``: drain, uncordon) records on the
node through ``transition_journal`` ``action=record`` in the same task: before its API work (the
drain's ``started``) and after it (the uncordon's ``finished``).
"""

from __future__ import annotations

import os

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._node_files import atomic, confine
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._transition import steps as _steps
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._transition.journal import journal, transitions

_OPTIONS = {
    "transition": {"type": "str", "required": True},
    "step": {"type": "str", "required": True, "choices": list(journal.STEPS)},
    "state_dir": {"type": "path", "default": confine.DEFAULT_STATE_DIR},
}
_EVENTS = {"type": "list", "elements": "dict", "default": [], "options": {
    "step": {"type": "str", "required": True, "choices": list(journal.STEPS)},
    "event": {"type": "str", "required": True, "choices": list(journal.EVENTS)},
    "outcome": {"type": "str", "choices": list(journal.OUTCOMES)},
    "changed": {"type": "dict"},
}}
ARGUMENT_SPEC = {"journal": {"type": "dict", "options": dict(_OPTIONS, events=_EVENTS)}}
CONTROLLER_ARGUMENT_SPEC = ARGUMENT_SPEC
# Steps whose node-side part follows a wait on the controller (verify: Ready and stable, right after the start): they
# record only their end, and the record takes their start from the event before (the step table's rows).
FINISHED_ONLY = _steps.FINISHED_ONLY
# The kube_node states that journal, and the step each is (the rows' journal_state). The cordon does not: a run killed
# right after its PATCH must leave no cordon event (the decide event's intent says whose cordon it is), so its finished
# event goes with the next task's run (the drain's, in ``events``).
CONTROLLER_STEPS = _steps.CONTROLLER_STEPS


class StepJournal:
    """The journal of one step of one transition, or nothing to write when ``options`` is None."""

    def __init__(self, root, options, check_mode):
        self.options = options
        self.check_mode = check_mode
        self.lines = []
        self.notes = []
        self.path = None
        self.pending = []
        if options is None:
            return
        self.pending = [dict(event) for event in options.get("events") or []]
        state_dir = options["state_dir"]
        folder = transitions.folder(root, state_dir, options["transition"])
        self.path = os.path.join(folder, journal.JOURNAL)
        if check_mode:
            return
        if not os.path.isdir(folder):
            transition = options["transition"]
            raise atomic.NodeStateError("transition %s was never opened on this node (%s/transitions/%s does not exist): open it first "
                                        "(transition_journal action=open); nothing was changed" % (transition, state_dir, transition))
        confine.require_private(root, state_dir, self.path)
        # A damaged journal is refused here, before the step changes anything.
        journal.read(self.path)

    def _append(self, event, outcome=None, changed=None):
        if self.options is None or self.check_mode:
            return None
        while self.pending:
            earlier = self.pending.pop(0)
            self.lines.append(journal.append(self.path, earlier["step"], earlier["event"], outcome=earlier.get("outcome"),
                                             changed=earlier.get("changed"), notes=self.notes))
        line = journal.append(self.path, self.options["step"], event, outcome=outcome, changed=changed, notes=self.notes)
        self.lines.append(line)
        return line

    def started(self, changed=None):
        """Record that the step starts (``changed``: what it is about to do, such as the files it will create); not for FINISHED_ONLY."""
        if self.options is not None and self.options["step"] in FINISHED_ONLY:
            return None
        return self._append("started", changed=changed)

    def finished(self, outcome, changed=None):
        """Record that the step is done (``outcome`` ok, changed or skipped; ``changed``: what it did)."""
        return self._append("finished", outcome=outcome, changed=changed)

    def result(self):
        """What goes into the module's result: the events written (empty in check mode or without a journal)."""
        return {"journal": {"path": self.path, "events": list(self.lines), "notes": list(self.notes)}} if self.options else {}


def controller_events(options, state, result=None):
    """The events a ``kube_node`` task with journal ``options`` records: before its API work (``result`` None), or after it.

    The drain records, before it evicts anything, ``options["events"]`` (the cordon's finished event) and its own
    ``started``; its ``finished`` is the caller's to pass to the next node-side step (``events``). The uncordon records,
    after the API took it, ``options["events"]`` and ``uncordon finished`` (``changed`` when it changed the node, else
    ``ok``).
    """
    step = CONTROLLER_STEPS.get(state)
    if step is None:
        raise atomic.NodeStateError("journal goes with state drained or uncordoned, not %s: the cordon's finished event is recorded by the next "
                                    "task (the drain's events), so that a run killed right after the cordon's PATCH leaves none" % state)
    if options["step"] != step:
        raise atomic.NodeStateError("journal step %s does not match state %s (that records %s)" % (options["step"], state, step))
    earlier = [dict((key, value) for key, value in event.items() if value is not None) for event in options.get("events") or []]
    # Which of its events the kube_node task writes: the step table's started_by and finished_by.
    row = _steps.BY_NAME[step]
    starts = "kube_node" in row.started_by
    if result is None:
        return earlier + [{"step": step, "event": "started"}] if starts else []
    if "kube_node" not in row.finished_by:
        return []
    return ([] if starts else earlier) + [{"step": step, "event": "finished", "outcome": "changed" if result.get("changed") else "ok"}]
