# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What a resumed transition still has to do, and whose cordon it is: read from its journal.

Public: `plan(summary, resumed, unschedulable_now, target_in_place)`.

Pure. ``summary`` is the journal's summary as ``transition_journal`` returns it when it opens (or
resumes) a transition, read before this run records anything; ``unschedulable_now`` is the node's
``spec.unschedulable`` read through the API by this run before it sends any write;
``target_in_place`` says the node's files already hold the target (nothing to render, no checkpoint
the target would refuse).

The windows this closes (docs/transition.md, "Killed runs"):

- The cordon. The ``decide`` event, recorded before the cordon's PATCH is sent, carries the node's
  ``spec.unschedulable`` before the transition (``unschedulable_before``) and whether this transition
  means to cordon it (``cordons``). A run killed after the PATCH reached the API and before the
  ``cordon`` event was kept leaves the node cordoned; the resumed run finds the intent and knows the
  cordon is its own, so it uncordons at the end. A resumed run keeps the first run's
  ``unschedulable_before``: by then the node is cordoned by the transition itself.
- The kubelet. When the journal says the kubelet was started (``start`` finished) and the node's
  files still hold the target, the resumed run does not stop and start it again: it verifies it.
- The end. When the journal's last event ends the transition (``uncordon`` finished, ``restore``
  finished, or the ``drain`` failed), a run was killed between that and the close: the resumed run
  keeps the record and closes it, and cordons, drains and restarts nothing.
- The drain. When the journal says the drain finished and the node is still unschedulable, no pod
  can have been scheduled there since, so the drain is not done again.

A step the journal says failed, or any restore, resumes nothing: the run goes through every step
again, each of which is idempotent. Which steps a skip covers, after which event, which step resumes
nothing and which events end the transition are the step table's (`steps`: each row's ``resume``
and ``ends``, and `steps.ends`).
"""

from __future__ import annotations

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base.errors import NumaGateError
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._transition import steps as step_table

_DONE = ("ok", "changed", "skipped")


def _finished(steps, name):
    """Whether the journal's last event of step ``name`` is a finished one that did not fail."""
    state = steps.get(name)
    return isinstance(state, dict) and bool(state.get("finished")) and state.get("outcome") in _DONE


def _details(steps, name):
    state = steps.get(name)
    details = state.get("changed") if isinstance(state, dict) else None
    return details if isinstance(details, dict) else {}


def _ended(summary, steps):
    """The step whose finish ended the transition, when it is the journal's last event (as `record.ends` reads it), else None."""
    last = summary.get("last_finished") if steps else None
    if last is None or summary.get("in_progress") is not None:
        return None
    return last if step_table.ends(last, steps.get(last, {}).get("outcome")) else None


def _bool(value, what):
    if not isinstance(value, bool):
        raise NumaGateError("%s must be true or false, not %r" % (what, value))
    return value


def plan(summary, resumed, unschedulable_now, target_in_place):
    """What this run does and skips, and whose cordon it is.

    Returns ``{unschedulable_before, cordons, cordoned, ended, done, skip_drain, skip_kubelet, reasons}``:
    ``unschedulable_before``, the node's ``spec.unschedulable`` before the transition (record it in
    the ``decide`` event, before any PATCH); ``cordons``, whether the transition means to cordon the
    node (it was schedulable); ``cordoned``, whether the transition already owns a cordon on the node
    (uncordon it at the end, or on a failure, even if this run's cordon finds it cordoned already);
    ``ended``, the step whose finish ended the transition (``uncordon``, ``restore``, or a failed
    ``drain``) when a run was killed before it closed it: keep the record and close it, nothing
    else; ``done``, it ended with the uncordon (the node is at the target);
    ``skip_drain`` and ``skip_kubelet``, the steps not done again; ``reasons``, one line per thing
    skipped or inferred, saying why.
    """
    _bool(resumed, "resumed")
    _bool(unschedulable_now, "unschedulable_now")
    _bool(target_in_place, "target_in_place")
    if summary is None:
        summary = {}
    if not isinstance(summary, dict) or not isinstance(summary.get("steps", {}), dict):
        raise NumaGateError("the journal summary must be a mapping with a steps mapping, not %r" % (summary,))
    steps = (summary.get("steps") or {}) if resumed else {}
    reasons = []
    recorded = _details(steps, "decide").get("unschedulable_before")
    cordon = _details(steps, "cordon")
    if isinstance(recorded, bool):
        before = recorded
    else:
        before = unschedulable_now
    if _finished(steps, "cordon") and isinstance(cordon.get("cordoned"), bool):
        cordoned = cordon["cordoned"]
    elif recorded is False:
        # The intent was kept before the PATCH: the node was schedulable and this transition set out to cordon it.
        cordoned = True
        if unschedulable_now:
            reasons.append("the node is cordoned and the journal says it was schedulable before this transition, which set out to cordon "
                           "it (the run that sent the cordon was killed before it recorded it): the cordon is this transition's")
    else:
        cordoned = False
    restored = any(name in steps for name in step_table.RESUMES_NOTHING_STEPS)
    ended = _ended(summary, steps)
    done = ended == "uncordon"
    if done:
        reasons.append("the journal says the node was uncordoned: the transition is done; its record is kept and it is closed")
    elif ended:
        reasons.append("the journal says the transition ended with %s (%s) before the run was killed: its record is kept and it is "
                       "closed" % (ended, "the node was put back" if ended == "restore" else "the %s failed, nothing was changed" % ended.replace("_", " ")))
    holds = {"target_in_place": target_in_place, "unschedulable_now": unschedulable_now}
    skips = {}
    for rule in step_table.RESUME_RULES:
        skips[rule.flag] = not ended and not restored and _finished(steps, rule.after) and holds[rule.holds]
        if skips[rule.flag]:
            reasons.append(rule.reason)
    answer = {"unschedulable_before": before, "cordons": not before, "cordoned": cordoned, "ended": ended, "done": done}
    answer.update(sorted(skips.items()))
    answer["reasons"] = reasons
    return answer
