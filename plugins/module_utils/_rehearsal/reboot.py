# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The rehearsed reboot after an enable: what was observed, what it means, and whether a kept one is believed (pure).

Public: `NAME`, `STATES`, `OBSERVATIONS`, `check(enable, node, observed, now)`, `judge(document)`,
`recheck(document, enable, now=None)`, `fold(evidence, document, distrust=(), now=None)`, `said(document)`.

``rehearse.yml`` with ``numa_gate_rehearse_reboot`` reboots each node after its enable (the rehearsal role's
``reboot`` entry point): drain, reboot, the kubelet's checkpoints read under the effective configuration and the
machine as it booted, the documented recovery when the kubelet refuses them (stop, remove the refused state, start),
then the kubelet Ready with the policies it had, the node uncordoned and its workloads back. The observations are kept
beside the enable's journal (``transitions/<enable id>/reboot.json``). The state is recomputed from them, never taken
as stated:

- ``came back``: rebooted; the checkpoints read and none refused; Ready with the same policies; every workload back;
- ``recovered``: the same, after the kubelet refused a checkpoint and the recovery removed the refused files;
- ``not rebooted``: the reboot did not happen or did not finish (its error kept);
- ``not back``: rebooted, and something above did not hold (each named in ``problems``).

``fold`` puts a kept reboot into the rollback evidence (``_rehearsal.evidence.evidence``): a reboot that is not
believed, did not happen or did not come back makes a rehearsal that would count ``not reconciled``, naming why.
"""

from __future__ import annotations

import datetime

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import fileio as _fileio
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._rehearsal import evidence as _evidence
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._transition import record as _record

NAME = "reboot.json"
STATES = ("came back", "recovered", "not rebooted", "not back")
SCHEMA_VERSION = 1
OBSERVATIONS = ("observed_at", "reboot", "refusals", "recovery", "verify", "workloads", "state", "problems")
_WORKLOAD_KEYS = ("owner", "state", "expected", "ready", "before", "now")


def _workloads(observed):
    """Each workload as the kept observations (the pods' names, not their objects)."""
    shown = []
    for workload in observed.get("workloads") or []:
        item = {key: workload.get(key) for key in _WORKLOAD_KEYS}
        item["now"] = [pod.get("name") if isinstance(pod, dict) else pod for pod in workload.get("now") or []]
        shown.append(item)
    return shown


def check(enable, node, observed, now):
    """The document kept after the reboot of ``node`` that followed enable ``enable``.

    ``observed``: ``reboot`` (the ``ansible.builtin.reboot`` result: ``rebooted``, ``elapsed``, ``msg``), ``refusals``
    (``kubelet_checkpoint_info``'s after the boot, by file; None: not read), ``recovery`` (``kubelet_checkpoint``'s
    result when the recovery ran: ``removed``, and ``msg`` when it failed; None: it did not run), ``verify``
    (``kubelet_verify``'s: ``ready``, ``mismatches``, ``msg``) and ``workloads`` (``rehearsal_workloads``' with ``before``).
    """
    reboot = observed.get("reboot") or {}
    # ansible.builtin.reboot reports a timeout as rebooted: true with failed: true; only a finished reboot is one.
    rebooted = reboot.get("rebooted") is True and not reboot.get("failed")
    recovery = observed.get("recovery")
    verify = observed.get("verify") or {}
    document = {
        "schema_version": SCHEMA_VERSION,
        "enable": enable,
        "node": node,
        "observed_at": now,
        "reboot": {"rebooted": rebooted, "elapsed_s": reboot.get("elapsed"),
                   "error": None if rebooted else (reboot.get("msg") or "no result")},
        "refusals": observed.get("refusals"),
        "recovery": None if recovery is None else {"removed": list(recovery.get("removed") or []),
                                                   "error": recovery.get("msg") if recovery.get("failed") else None},
        "verify": {"ready": verify.get("ready") is True, "mismatches": list(verify.get("mismatches") or []),
                   "message": verify.get("msg")},
        "workloads": _workloads(observed.get("workloads") or {}),
    }
    document["state"], document["problems"] = judge(document)
    return document


def _refused(refusals):
    return {name: text for name, text in sorted((refusals or {}).items()) if text}


def judge(document):
    """(state, problems) from the observations of a reboot document (see the module docstring)."""
    reboot = document["reboot"]
    if not reboot["rebooted"]:
        return "not rebooted", ["the node did not reboot: %s" % (reboot.get("error") or "no result")]
    problems = []
    refusals, recovery, verify = document["refusals"], document["recovery"], document["verify"]
    refused = _refused(refusals)
    if refusals is None:
        problems.append("the kubelet's checkpoints were not read after the boot: whether the kubelet refuses them is unknown")
    if refused and recovery is None:
        problems.append("after the boot the kubelet refused %s, and no recovery ran" % "; ".join("%s: %s" % item for item in refused.items()))
    if recovery is not None and recovery.get("error"):
        problems.append("the recovery failed: %s" % recovery["error"])
    elif refused and recovery is not None and not recovery.get("removed"):
        problems.append("the recovery removed no file, and the kubelet refused %s" % ", ".join(refused))
    if not verify["ready"] or verify["mismatches"]:
        problems.append("the kubelet did not come back Ready with the policies it had: %s%s" % (
            verify.get("message") or "not Ready", "; mismatches %s" % _fileio.short_repr(verify["mismatches"]) if verify["mismatches"] else ""))
    missing = [workload.get("owner") for workload in document["workloads"] if workload.get("state") != "back"]
    if missing:
        problems.append("not back after the reboot: %s" % ", ".join(str(owner) for owner in missing))
    if problems:
        return "not back", problems
    return ("recovered" if refused else "came back"), []


def _shape(document):
    """Lines naming what makes the document's shape impossible (empty: it can be judged)."""
    if not isinstance(document, dict):
        return ["the reboot document is %s, not a mapping of observations" % _fileio.short_repr(document)]
    absent = [key for key in OBSERVATIONS if key not in document]
    if absent:
        return ["its observations are missing: %s (a reboot's state is recomputed from what it observed)" % ", ".join(absent)]
    reboot, verify, recovery, refusals = (document[key] for key in ("reboot", "verify", "recovery", "refusals"))
    lines = []
    if not isinstance(reboot, dict) or not isinstance(reboot.get("rebooted"), bool):
        lines.append("reboot is %s, not {rebooted: true or false, elapsed_s, error}" % _fileio.short_repr(reboot))
    if not isinstance(verify, dict) or not isinstance(verify.get("ready"), bool) or not isinstance(verify.get("mismatches"), list):
        lines.append("verify is %s, not {ready: true or false, mismatches: [...], message}" % _fileio.short_repr(verify))
    if recovery is not None and (not isinstance(recovery, dict) or not _evidence.names(recovery.get("removed"))):
        lines.append("recovery is %s, not null or {removed: [paths], error}" % _fileio.short_repr(recovery))
    if refusals is not None and (not isinstance(refusals, dict) or not all(v is None or isinstance(v, str) for v in refusals.values())):
        lines.append("refusals is %s, not null or the kubelet's refusal (or null) by file" % _fileio.short_repr(refusals))
    if not isinstance(document["workloads"], list):
        lines.append("workloads is %s, not a list of workloads" % _fileio.short_repr(document["workloads"]))
    return lines


def recheck(document, enable, now=None):
    """What makes the reboot kept after ``enable`` (its summary) not believable: lines (empty: its statements are its observations)."""
    problems = _shape(document)
    if problems:
        return problems
    for index, workload in enumerate(document["workloads"]):
        _evidence.recheck_workload(index, workload, problems)
    observed = _record.event_time(document["observed_at"])
    now = now or datetime.datetime.now(datetime.timezone.utc)
    skew = datetime.timedelta(seconds=_evidence.CLOCK_SKEW_S)
    closed = _record.event_time((enable or {}).get("closed"))
    if observed is None:
        problems.append("observed_at %s is not a time such as 2026-12-01T09:00:00.000000Z" % _fileio.short_repr(document["observed_at"]))
    elif closed is not None and observed < closed - skew:
        problems.append("observed_at %s is before enable %s closed (%s): the reboot follows the enable" % (
            document["observed_at"], enable.get("transition"), enable.get("closed")))
    elif observed > now + skew:
        problems.append("observed_at %s is later than now: a reboot cannot have been observed in the future" % document["observed_at"])
    if problems:
        return problems
    state, lines = judge(document)
    if (document["state"], document["problems"]) != (state, lines):
        problems.append("it states %s (%s), but its observations give %s (%s)" % (
            _fileio.short_repr(document["state"]), "; ".join(map(str, document["problems"] or [])) or "no problem", state, "; ".join(lines) or "no problem"))
    return problems


def fold(evidence, document, distrust=(), now=None):
    """The rollback ``evidence`` with the reboot kept after its enable (``reboot``: null when none was kept).

    A reboot not believed (``distrust``: why, before it is read; else ``recheck``), not rebooted or not back turns a
    ``rehearsed`` rehearsal into ``not reconciled``, naming why; a recovered one is named in the notes.
    """
    result = dict(evidence)
    if document is None:
        result["reboot"] = None
        return result
    enable = evidence.get("enable")
    distrust = list(distrust) or recheck(document, enable, now)
    if distrust:
        shown = {"state": "refused", "problems": ["the reboot kept after enable %s is refused: %s"
                                                  % ((enable or {}).get("transition"), "; ".join(distrust))]}
    else:
        shown = {key: document.get(key) for key in ("enable",) + OBSERVATIONS}
    result["reboot"] = shown
    if shown["state"] == "recovered":
        refused = _refused(document["refusals"])
        result["notes"] = list(result.get("notes") or []) + [
            "after the reboot the kubelet refused %s; the recovery removed %s and it came back" % (
                "; ".join("%s: %s" % item for item in refused.items()), ", ".join(document["recovery"]["removed"]))]
    elif shown["state"] != "came back":
        result["problems"] = list(result.get("problems") or []) + list(shown["problems"])
        if result.get("state") == "rehearsed":
            result["state"], result["rehearsed"] = "not reconciled", False
    return result


def said(document):
    """A reboot that came back or recovered, in a sentence (the acceptance record's rollback criterion)."""
    if document["state"] == "came back":
        return "rebooted after the enable, it came back Ready with its policies and its workloads in %ss" % document["reboot"]["elapsed_s"]
    refused = "; ".join("%s: %s" % item for item in _refused(document["refusals"]).items())
    return ("rebooted after the enable, the kubelet refused its checkpoints (%s), and the documented recovery (stop, remove %s, start) "
            "brought it back Ready with its policies and its workloads" % (refused, ", ".join(document["recovery"]["removed"])))
