# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The rollback criterion's evidence, from the node's own transition records and the check kept after a rehearsal (pure).

Public: `STATES`, `CLOCK_SKEW_S`, `evidence(node, transitions, checks, notes=(), refused=None, now=None)`, `recheck(check, rollback, now=None)`,
`recheck_workload(index, workload, problems)`, `names(value)`.

``transitions``: every transition of the node, each the summary of its record
(``_transition.record.summary``: ``transition``, ``target``, ``outcome``, ``open``, ``opened``,
``closed``, ``duration_s``, ``failed_steps``). ``checks``: the documents kept on the node after a
rehearsed rollback (``_rehearsal.workloads.check``), by rollback id. Nothing here reads a
file: the ``rehearsal_info`` module reads the node and passes the values in.

The rehearsal is the last rollback of the node that followed an enable that converged (taken in
the order the transitions were opened). Its ``state``:

- ``rehearsed``: that rollback converged (closed, no step failed) and the check kept after it says
  its workloads came back Ready on the node and PodResources shows container scope (``reconciled``);
- ``not reconciled``: it converged, but the check names workloads that did not come back, or pod-level
  sets left, or a PodResources that was not read;
- ``unchecked``: it converged and no check was kept after it (rollback.yml alone, not rehearse.yml);
- ``refused``: it converged, and the check kept after it is not believed: its observations are missing or
  impossible (`recheck`), or its file is not private (``refused``: the lines of ``_node_files.confine``);
- ``not converged``: it was restored, failed or is still open;
- ``not rehearsed``: no rollback of this node follows a converged enable.

A check states nothing on its own: each workload's state, ``came_back``, ``missing`` and ``reconciled`` are
recomputed from what it observed (the pods before and on the node after, how many Ready, PodResources read
and what it said, when it looked), and a check whose statements differ from its observations is refused
naming both. Only ``rehearsed`` is ``rehearsed: true``. The result names the enable, the rollback and the
re-enable (the first enable opened after the rollback, if any) with their ids, outcomes and durations.
"""

from __future__ import annotations

import datetime
import math

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import fileio as _fileio
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._transition import record as _record

STATES = ("rehearsed", "not reconciled", "refused", "unchecked", "not converged", "not rehearsed")
SCHEMA_VERSION = 1
_KEYS = ("transition", "target", "outcome", "opened", "closed", "duration_s", "failed_steps")
# The observations a check must carry, and each workload's; what it states is recomputed from them.
OBSERVATIONS = ("observed_at", "workloads", "pod_resources", "came_back", "missing", "reconciled")
WORKLOAD_OBSERVATIONS = ("owner", "state", "expected", "ready", "before", "now")
# The check is timed on the controller, the rollback's journal on the node: their clocks may differ by this much.
CLOCK_SKEW_S = 300


def _order(transitions):
    """Oldest first: by opening time, then id (ids are timestamps by default); a transition with no journal last."""
    return sorted(transitions, key=lambda t: (t.get("opened") is None, t.get("opened") or "", t.get("transition") or ""))


def _shown(summary):
    return {key: summary.get(key) for key in _KEYS} if summary else None


def _pair(ordered):
    """(enable, rollback, re_enable) of the last rollback that follows a converged enable, or (None, None, None)."""
    enable, found = None, (None, None, None)
    for index, item in enumerate(ordered):
        if item.get("target") == "enable" and item.get("outcome") == "converged":
            enable = item
        elif item.get("target") == "rollback" and enable is not None:
            later = [t for t in ordered[index + 1:] if t.get("target") == "enable"]
            found = (enable, item, later[0] if later else None)
    return found


def _count(value):
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def names(value):
    """Whether ``value`` is a list of strings."""
    return isinstance(value, list) and all(isinstance(item, str) for item in value)


def _workload_state(expected, ready, now):
    """What ``_rehearsal.workloads`` gives a workload from its counts: back, not ready or missing."""
    if not now:
        return "missing"
    return "back" if ready >= expected else "not ready"


def recheck_workload(index, workload, problems):
    """The workload's recomputed state, or None with the problems added (also for the workloads a reboot kept)."""
    if not isinstance(workload, dict):
        problems.append("workloads[%d] is %s, not a workload's observations (a mapping)" % (index, _fileio.short_repr(workload)))
        return None
    absent = [key for key in WORKLOAD_OBSERVATIONS if key not in workload]
    if absent:
        problems.append("workloads[%d] has no %s: a workload's state is recomputed from its observations" % (index, ", ".join(absent)))
        return None
    owner, expected, ready, before, now = (workload[key] for key in ("owner", "expected", "ready", "before", "now"))
    name = "workloads[%d] (%s)" % (index, _fileio.short_repr(owner))
    if not isinstance(owner, str) or not _count(expected) or not _count(ready) or not names(before) or not names(now):
        problems.append("%s must have an owner (a string), expected and ready (integers of 0 or more), before and now (lists of pod "
                        "names), got %s" % (name, _fileio.short_repr({key: workload[key] for key in WORKLOAD_OBSERVATIONS[1:]})))
        return None
    if expected != len(before) or not before:
        problems.append("%s expects %d pods but names %d before the rollback (%s): a workload is the pods its controller had on the node"
                        % (name, expected, len(before), ", ".join(before) or "none"))
        return None
    if ready > len(now):
        problems.append("%s counts %d pods Ready but names %d on the node after the rollback (%s): it cannot count more pods than it saw"
                        % (name, ready, len(now), ", ".join(now) or "none"))
        return None
    state = _workload_state(expected, ready, now)
    if workload["state"] != state:
        problems.append("%s states %s, but its observations (%d of %d pods Ready, %d on the node) give %s"
                        % (name, _fileio.short_repr(workload["state"]), ready, expected, len(now), state))
    return state


def _recheck_time(check, rollback, now, problems):
    observed = _record.event_time(check["observed_at"])
    if observed is None:
        problems.append("observed_at %s is not a time such as 2026-12-01T09:00:00.000000Z: when the pods were looked at is an observation"
                        % _fileio.short_repr(check["observed_at"]))
        return
    skew = datetime.timedelta(seconds=CLOCK_SKEW_S)
    closed = _record.event_time((rollback or {}).get("closed"))
    if closed is not None and observed < closed - skew:
        problems.append("observed_at %s is before rollback %s closed (%s): a check after the rollback cannot look before it ended"
                        % (check["observed_at"], rollback.get("transition"), rollback.get("closed")))
    if observed > now + skew:
        problems.append("observed_at %s is later than now (%s): a check cannot have looked in the future"
                        % (check["observed_at"], now.strftime("%Y-%m-%dT%H:%M:%SZ")))
    for key in ("waited_s", "timeout_s"):
        value = check.get(key)
        if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0):
            problems.append("%s %s must be a finite number of 0 or more seconds" % (key, _fileio.short_repr(value)))


def _recheck_later(check, problems):
    """The placement re-check's and the restarts' problem lines (``_rehearsal.workloads.check``), or None when their shape is impossible.

    A placement re-check that names a check which did not agree must name a problem, and one whose checks all agree must name none;
    a restart names a problem exactly when it was not seen or its allocation changed.
    """
    placement, restarts = check.get("placement"), check.get("restarts")
    found = []
    if placement is not None:
        checks = placement.get("pods") if isinstance(placement, dict) else None
        if not isinstance(checks, list) or not names(placement.get("problems")) or not all(isinstance(pod, dict) for pod in checks):
            problems.append("placement is %s, not {pods: [...], problems: [lines]}" % _fileio.short_repr(placement))
            return None
        failing = any(not isinstance(entry, list) or entry[-1:] != ["agree"] for pod in checks for entry in pod.get("checks") or [])
        if failing != bool(placement["problems"]):
            problems.append("placement names %s problem, but its checks %s" % ("no" if failing else "a", "do not all agree" if failing else "all agree"))
            return None
        found += placement["problems"]
    if restarts is not None:
        if not isinstance(restarts, list) or not all(isinstance(entry, dict) and names(entry.get("problems")) and names(entry.get("changes"))
                                                     and isinstance(entry.get("restarted"), bool) for entry in restarts):
            problems.append("restarts is %s, not a list of restarts with their changes and problems" % _fileio.short_repr(restarts))
            return None
        for entry in restarts:
            if bool(entry["changes"] or not entry["restarted"]) != bool(entry["problems"]):
                said = ("a", "kept its allocation") if entry["problems"] else ("no", "was not seen or moved it")
                problems.append("a restart of %s names %s problem, but it %s" % (_fileio.short_repr(entry.get("pod")), said[0], said[1]))
                return None
            found += entry["problems"]
    return found


def recheck(check, rollback, now=None):
    """What makes the check kept after ``rollback`` (its summary) not believable: a list of lines (empty: its statements are its observations).

    Each workload's state, then ``came_back``, ``missing`` and ``reconciled`` are recomputed as
    ``_rehearsal.workloads.check`` computes them; an observation that is missing or impossible (more pods Ready
    than seen, a count that is not the pods named, a look before the rollback ended or in the future) is named.
    """
    if not isinstance(check, dict):
        return ["the check is %s, not a mapping of observations" % _fileio.short_repr(check)]
    absent = [key for key in OBSERVATIONS if key not in check]
    if absent:
        return ["its observations are missing: %s (a check's states are recomputed from what it observed, never taken as stated)"
                % ", ".join(absent)]
    problems = []
    workloads, pod_resources = check["workloads"], check["pod_resources"]
    if not isinstance(workloads, list):
        return ["workloads is %s, not a list of workloads" % _fileio.short_repr(workloads)]
    if (not isinstance(pod_resources, dict) or not isinstance(pod_resources.get("read"), bool)
            or not names(pod_resources.get("problems"))):
        return ["pod_resources is %s, not {read: true or false, problems: [lines]}" % _fileio.short_repr(pod_resources)]
    states = [recheck_workload(index, workload, problems) for index, workload in enumerate(workloads)]
    _recheck_time(check, rollback, now or datetime.datetime.now(datetime.timezone.utc), problems)
    if problems:
        return problems
    if not pod_resources["read"] and not pod_resources["problems"]:
        problems.append("pod_resources says it was not read and names no problem: a PodResources not read is never container scope")
    later = _recheck_later(check, problems)
    if later is None:
        return problems
    missing = [workload["owner"] for workload, state in zip(workloads, states) if state != "back"]
    stated = {"came_back": not missing, "missing": missing,
              "reconciled": not missing and pod_resources["read"] and not pod_resources["problems"] and not later}
    for key in ("came_back", "missing", "reconciled"):
        if check[key] != stated[key]:
            problems.append("%s is %s, but its observations give %s" % (key, _fileio.short_repr(check[key]), _fileio.short_repr(stated[key])))
    return problems


def _state(rollback, kept, refused):
    if rollback is None:
        return "not rehearsed"
    if rollback.get("outcome") != "converged" or rollback.get("open"):
        return "not converged"
    if refused:
        return "refused"
    if kept is None:
        return "unchecked"
    return "rehearsed" if kept.get("reconciled") is True else "not reconciled"


def evidence(node, transitions, checks, notes=(), refused=None, now=None):  # pylint: disable=too-many-arguments
    """The rollback evidence of ``node`` (see the module docstring): a JSON-able mapping the verdict reads.

    ``refused``: by rollback id, why its kept check is not trusted before it is read (its file not private).
    """
    ordered = _order(transitions)
    enable, rollback, re_enable = _pair(ordered)
    kept = (checks or {}).get(rollback["transition"]) if rollback else None
    distrust = list((refused or {}).get(rollback["transition"]) or []) if rollback else []
    if kept is not None and not distrust:
        distrust = recheck(kept, rollback, now)
    state = _state(rollback, kept, distrust)
    problems = []
    if state == "refused":
        problems = ["the check kept after rollback %s is refused: %s" % (rollback["transition"], "; ".join(distrust))]
        kept = None
    elif state == "not reconciled":
        problems = list(kept.get("problems") or []) or ["the check kept after the rollback says it did not reconcile, and names nothing"]
    elif state == "not converged":
        problems = ["rollback %s ended %s%s" % (rollback["transition"], rollback.get("outcome") or "unknown",
                                                " (failed: %s)" % ", ".join(rollback["failed_steps"]) if rollback.get("failed_steps") else "")]
    return {
        "schema_version": SCHEMA_VERSION,
        "node": node,
        "state": state,
        "rehearsed": state == "rehearsed",
        "enable": _shown(enable),
        "rollback": _shown(rollback),
        "re_enable": _shown(re_enable),
        "check": None if kept is None else {key: kept.get(key) for key in (
            "observed_at", "waited_s", "timeout_s", "workloads", "unowned", "came_back", "missing", "pod_resources", "reconciled")},
        "missing": list((kept or {}).get("missing") or []) if state == "not reconciled" else [],
        "problems": problems,
        "transitions": [item.get("transition") for item in ordered],
        "notes": list(notes),
    }
