# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The rollback criterion's evidence, from the node's own transition records and the check kept after a rehearsal (pure).

Public: `STATES`, `evidence(node, transitions, checks, notes=())`.

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
- ``not converged``: it was restored, failed or is still open;
- ``not rehearsed``: no rollback of this node follows a converged enable.

Only ``rehearsed`` is ``rehearsed: true``. The result names the enable, the rollback and the
re-enable (the first enable opened after the rollback, if any) with their ids, outcomes and durations.
"""

from __future__ import annotations

STATES = ("rehearsed", "not reconciled", "unchecked", "not converged", "not rehearsed")
SCHEMA_VERSION = 1
_KEYS = ("transition", "target", "outcome", "opened", "closed", "duration_s", "failed_steps")


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


def _state(rollback, kept):
    if rollback is None:
        return "not rehearsed"
    if rollback.get("outcome") != "converged" or rollback.get("open"):
        return "not converged"
    if kept is None:
        return "unchecked"
    return "rehearsed" if kept.get("reconciled") is True else "not reconciled"


def evidence(node, transitions, checks, notes=()):
    """The rollback evidence of ``node`` (see the module docstring): a JSON-able mapping the verdict reads."""
    ordered = _order(transitions)
    enable, rollback, re_enable = _pair(ordered)
    kept = (checks or {}).get(rollback["transition"]) if rollback else None
    state = _state(rollback, kept)
    problems = []
    if state == "not reconciled":
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
