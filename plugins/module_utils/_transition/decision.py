# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Whether a node is already at its transition's target, why not, and whether this run may go on: one function.

Public: `TARGETS`, `unread(now)`, `decide(target, render, checkpoints, baseline, now=None, allow_disruption=False, host="the node",
mode="dropin", config_dir=None)`.

Pure. The inputs are what the role read, as its tasks return them: ``render``, the target rendered
without writing it (``kubelet_render``: ``changed``, ``path``); ``checkpoints``, whether the
kubelet would refuse its checkpoints under the target (``kubelet_checkpoint``: ``would_refuse``,
``refusals``); ``baseline``, the node's kept baseline (``kubelet_baseline``: ``intact``,
``problems``, ``open_transition``, ``drift``, ``manifest.facts.flags``); ``now``, the node's
readiness and ``/configz`` through the API (``kubelet_verify``: ``ready``, ``mismatches``,
``msg``), or None when it was not asked.

The node is at its target (``converged``) when nothing is to be rendered, no checkpoint would stop
the kubelet, no transition is open, for a rollback no kept file differs from the baseline, and the
API says either that the node is Ready with ``/configz`` showing the target, or that it is not
Ready: a node whose files are at the target is converged whatever its readiness, since a cordon,
a drain and a kubelet restart would not change its files, and what keeps it NotReady (a GPU driver
fault, a runtime down) is not the transition's doing; ``notes`` says so, naming what the API said.
An API that gave no answer about the node (no connection, a rejected credential, no such Node:
``now`` failed without the ``node_state`` a readiness answer carries) decides nothing: the
decision refuses, naming the error ("cannot decide"), and the node is left as it is.
``ask_api`` says whether the files alone allow the node to be at its target (only then is the
API asked); ``reasons`` says, one line each, why the node is not at its target (empty when it
is); ``refusal`` is the message to stop with, changing nothing (a baseline that does not match its
manifest, a drop-in the kubelet would not read, an API that could not be read, or a needed
transition the caller did not allow), else None.
"""

from __future__ import annotations

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base.errors import NumaGateError
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kubelet.config import unit
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._transition.api import configz

TARGETS = ("enable", "rollback")
MODES = ("dropin", "main")


def _mapping(value, what):
    if not isinstance(value, dict):
        raise NumaGateError("%s must be a mapping (the task's registered result), not %s" % (what, type(value).__name__))
    return value


def _flag(value, what):
    if not isinstance(value, bool):
        raise NumaGateError("%s must be true or false, not %r" % (what, value))
    return value


def _read(render, checkpoints, baseline, now):
    """The inputs' fields the decision reads, each checked: a wrong shape is refused naming the field."""
    _mapping(render, "render")
    _mapping(checkpoints, "checkpoints")
    _mapping(baseline, "baseline")
    pending = baseline.get("open_transition")
    if pending is not None and not (isinstance(pending, dict) and isinstance(pending.get("id"), str)):
        raise NumaGateError("baseline.open_transition must be null or a mapping with an id, not %r" % (pending,))
    drift = baseline.get("drift") or []
    if not isinstance(drift, list) or not all(isinstance(item, dict) and isinstance(item.get("path"), str) for item in drift):
        raise NumaGateError("baseline.drift must be a list of {path, differs}, not %r" % (drift,))
    problems = baseline.get("problems") or []
    if not isinstance(problems, list):
        raise NumaGateError("baseline.problems must be a list, not %r" % (problems,))
    refusals = checkpoints.get("refusals") or {}
    if not isinstance(refusals, dict):
        raise NumaGateError("checkpoints.refusals must be a mapping of checkpoint kind to refusal, not %r" % (refusals,))
    if now is not None:
        _mapping(now, "now")
        if now.get("mismatches") is not None and not isinstance(now["mismatches"], list):
            raise NumaGateError("now.mismatches must be a list, not %r" % (now["mismatches"],))
    return {"changed": _flag(render.get("changed"), "render.changed"), "path": render.get("path"),
            "would_refuse": _flag(checkpoints.get("would_refuse"), "checkpoints.would_refuse"),
            "refused": sorted(kind for kind, refusal in refusals.items() if refusal),
            "intact": _flag(baseline.get("intact"), "baseline.intact"), "problems": [str(p) for p in problems],
            "pending": pending, "drift": drift}


def unread(now):
    """The error when the API gave no answer about the node (``now`` failed without ``node_state``), else None."""
    if now is None or now.get("skipped") or not now.get("failed") or now.get("node_state") is not None:
        return None
    return now.get("msg") or "the API gave no answer about the node"


def _api_reasons(now):
    """(reasons, notes): why the API says the node is not at its target (none when it is), and what it says besides."""
    if now is None or now.get("skipped"):
        return ["the node's readiness and /configz were not read through the API"], []
    error = unread(now)
    if error is not None:
        return ["the API could not be read (%s)" % error], []
    if not now.get("ready"):
        said = now.get("msg") or "the API did not say it was Ready"
        return [], ["the node is not Ready (%s), for a reason the transition did not cause: its files are at the target, so it is "
                    "left alone (no cordon, no drain, no kubelet restart)" % said]
    mismatches = now.get("mismatches")
    if mismatches is None:
        return ["the API did not say what /configz shows"], []
    if mismatches:
        return ["/configz does not show the target (%s)" % configz.describe(mismatches)], []
    return [], []


def _config_dir_refusal(host, baseline, config_dir):
    flags = ((baseline.get("manifest") or {}).get("facts") or {})
    running = (flags.get("flags") or {}).get("config_dir")
    if running == config_dir:
        return None
    if flags.get("flags_source") == unit.NO_UNIT:
        # Nothing to read the flags from (no kubelet.service): say that, not "--config-dir=unset".
        return ("%s: no kubelet unit found, so whether a kubelet would read a drop-in in %s cannot be told; nothing was changed. "
                "Install and start the kubelet with --config-dir=%s, or use kubelet_transition_mode=main." % (host, config_dir, config_dir))
    return ("%s: the kubelet runs with --config-dir=%s (read from %s), so a drop-in in %s would never be read; nothing was changed. "
            "Start the kubelet with --config-dir=%s, or use kubelet_transition_mode=main."
            % (host, running or "unset", flags.get("flags_source"), config_dir, config_dir))


def decide(target, render, checkpoints, baseline, now=None, allow_disruption=False, host="the node", mode="dropin", config_dir=None):
    """``{converged, target_in_place, ask_api, reasons, notes, refusal}`` for one node (see the module docstring)."""
    if target not in TARGETS:
        raise NumaGateError("target must be one of %s, not %r" % (", ".join(TARGETS), target))
    if mode not in MODES:
        raise NumaGateError("mode must be one of %s, not %r" % (", ".join(MODES), mode))
    _flag(allow_disruption, "allow_disruption")
    seen = _read(render, checkpoints, baseline, now)
    reasons = []
    if seen["changed"]:
        reasons.append("the configuration differs (%s)" % seen["path"] if seen["path"] else "the configuration differs")
    if seen["would_refuse"]:
        reasons.append("a checkpoint would stop the kubelet (%s)" % ", ".join(seen["refused"]) if seen["refused"] else
                       "a checkpoint would stop the kubelet")
    if seen["pending"] is not None:
        reasons.append("transition %s is still open" % seen["pending"]["id"])
    if target == "rollback" and seen["drift"]:
        reasons.append("the node's files differ from the baseline (%s)" % "; ".join(
            "%s: %s" % (item["path"], item.get("differs") or "differs") for item in seen["drift"]))
    target_in_place = not seen["changed"] and not seen["would_refuse"]
    ask_api = not reasons
    notes = []
    if ask_api:
        reasons, notes = _api_reasons(now)
    converged = ask_api and not reasons
    refusal = None
    if not seen["intact"]:
        refusal = "%s: the baseline does not match its manifest (%s); nothing was changed" % (host, "; ".join(seen["problems"]))
    elif target == "enable" and mode == "dropin":
        refusal = _config_dir_refusal(host, baseline, config_dir)
    if refusal is None and ask_api and unread(now) is not None:
        refusal = ("%s: cannot decide whether the node is at its %s target: its files are, but the API gave no answer about the node "
                   "(%s); nothing was changed" % (host, target, unread(now)))
    if refusal is None and not converged and not allow_disruption:
        refusal = ("%s: reaching the %s target needs a cordon, a drain and a kubelet restart (%s), and kubelet_transition_allow_disruption is "
                   "false; nothing was changed. Set kubelet_transition_allow_disruption=true (playbooks/enable.yml and rollback.yml do) to let "
                   "this run do it." % (host, target, "; ".join(reasons)))
    return {"converged": converged, "target_in_place": target_in_place, "ask_api": ask_api, "reasons": reasons, "notes": notes,
            "refusal": refusal}
