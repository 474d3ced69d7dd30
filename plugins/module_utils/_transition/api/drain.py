# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Drain a node as ``kubectl drain`` does, within a bound, saying what it waits for while it waits.

Public: `drain`, `DrainOptions`, `DEFAULT_OPTIONS`, `DrainError`.

Semantics copied (not code) from k8s.io/kubectl:
- pkg/cmd/drain/drain.go ``RunDrain``: cordon first, then select the pods; refused pods stop the
  drain before any eviction; a failed drain leaves the node cordoned (the caller decides).
- pkg/drain/filters.go: which pods are evicted, skipped or refused (see `filters`).
- pkg/drain/drain.go ``evictPods``: each pod gets a policy/v1 Eviction (``DeleteOptions`` with
  ``gracePeriodSeconds`` only when one is given; kubectl's ``--grace-period -1`` means the pod's
  own); 404 means the pod is already gone; 429 (a PodDisruptionBudget, or one still being
  processed) is retried after ``EvictErrorRetryDelay`` (``poll``, kubectl's 5 s) until the global
  timeout, the pod re-read between tries (a failed re-read is ignored, "let eviction sort it out
  with the original pod"); 403 with cause ``NamespaceTerminating`` is waited out (the pod is
  deleting) or retried. Any other error ends that pod only (``error when evicting pods/%q -n %q:
  %v``): every other pod is still evicted and awaited, and the drain then fails naming each pod
  left with its error (kubectl aggregates the errors of all its per-pod goroutines).
- ``waitForDelete``: a pod is gone when the API answers NotFound or a pod of that name has another
  UID, checked at once and then every second (``interval: 1 * time.Second``): ``wait_poll``,
  apart from the retry delay. An error reading it ends that pod (``error when waiting for pod %q
  in namespace %q to terminate: %v``). The one ``timeout`` bounds the whole drain (kubectl's global
  timeout; 0: none).
- ``deletePods`` (``disable_eviction``): DELETE each pod, no budget consulted; its first error
  other than NotFound stops the drain at once (``return err``: the pods after it are not deleted,
  those before it not awaited), so the error names that pod and every pod left.
When the bound runs out the error names every pod left: the budgets that refuse it (name,
minAvailable/maxUnavailable, disruptions allowed now), that it is still terminating, or its error.
A progress line is printed at once and then at most every ``poll`` seconds; it names as blocking only
the budgets that refuse an eviction now (`budgets.blocking`); a refused pod nothing blocks now is
"retrying", with the budget that refused it (and what it allows now) or the API's message.
``clock`` and ``sleep`` are parameters so tests run without waiting.
"""

from __future__ import annotations

import collections
import time

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base.errors import NumaGateError
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kube_api import api as kube_api
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._transition.api import budgets, cordon, filters
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import progress

# kubectl's cadences: EvictErrorRetryDelay 5 s (pkg/cmd/drain/drain.go NewDrainCmdOptions), waitForDelete every 1 s.
WAIT_POLL = 1.0
DrainOptions = collections.namedtuple("DrainOptions", "timeout poll ignore_daemonsets delete_emptydir_data force grace_period disable_eviction wait_poll",
                                      defaults=(WAIT_POLL,))
DEFAULT_OPTIONS = DrainOptions(timeout=300, poll=5, ignore_daemonsets=True, delete_emptydir_data=False, force=False,
                               grace_period=None, disable_eviction=False, wait_poll=WAIT_POLL)


class DrainError(NumaGateError):
    """A drain that refused or did not finish; ``details`` carry the node's facts (cordoned, evicted, ...)."""


def _uid(pod):
    return pod["metadata"].get("uid")


def _stays_cordoned(node, facts):
    why = "this task cordoned it" if facts["cordoned"] else "it was cordoned before this task"
    return "node %s stays cordoned (%s)" % (node, why)


def drain(api, node, options=DEFAULT_OPTIONS, check_mode=False, display=None, clock=time.monotonic, sleep=time.sleep):
    """Cordon ``node`` and evict its pods; returns the result dict (see the kube_node module's RETURN).

    ``api``: an `api.Api` (or anything with its methods); ``display``: a callable for progress lines.
    Raises `DrainError` (with the node's facts in ``details``) when pods refuse or the bound runs out.
    """
    started = clock()
    cordoned, was = cordon.set_unschedulable(api, node, True, check_mode)
    facts = {"was_unschedulable": was, "cordoned": cordoned}
    runs = []
    try:
        return _after_cordon(api, node, options, check_mode, display, (clock, sleep, started), facts, runs)
    except DrainError:
        raise
    except NumaGateError as exc:
        # An API error or a refused answer after the cordon: the result still says whose cordon it is and what was evicted.
        evicted = sorted(runs[0].evicted) if runs else []
        raise DrainError("drain %s: %s; %s" % (node, exc, _stays_cordoned(node, facts)), changed=bool((cordoned and not check_mode) or evicted),
                         evicted=evicted, waited_s=round(clock() - started, 1), **facts) from exc


def _after_cordon(api, node, options, check_mode, display, timing, facts, runs):  # pylint: disable=too-many-arguments
    """The drain once the node is cordoned: select, refuse or evict and wait; ``runs`` gets the `_Run` once it starts."""
    clock, sleep, started = timing
    cordoned = facts["cordoned"]
    selection = filters.classify(api, api.pods_on_node(node), options)
    names = [filters.pod_name(p) for p in selection.evict]
    if selection.refusals:
        raise DrainError("drain %s refused: %s; nothing was evicted; %s" % (node, "; ".join(selection.refusals), _stays_cordoned(node, facts)),
                         changed=bool(cordoned and not check_mode), evicted=[], skipped_pods=selection.skipped, would_evict=names, waited_s=0.0, **facts)
    result = dict(facts, skipped_pods=selection.skipped, pod_warnings=selection.warnings)
    if check_mode:
        return dict(result, changed=bool(cordoned or names), evicted=names, waited_s=0.0)
    if names:
        progress.say(display, "drain %s: evicting %d pod%s (%s)" % (node, len(names), "" if len(names) == 1 else "s", progress.names(names)))
    run = _Run(api, node, options, display, clock, sleep, started)
    runs.append(run)
    try:
        run.run(selection.evict)
    except DrainError as exc:
        exc.details.update(facts, changed=bool(cordoned or run.evicted), evicted=sorted(run.evicted), skipped_pods=selection.skipped,
                           waited_s=round(clock() - started, 1))
        raise DrainError("%s; %s" % (exc, _stays_cordoned(node, facts)), **exc.details) from exc
    return dict(result, changed=bool(cordoned or run.evicted), evicted=sorted(run.evicted), waited_s=round(clock() - started, 1))


class _Run:
    """One drain's eviction loop: pods to evict (with when to try next), pods evicted and not yet gone,
    what refuses them, the pods an error ended."""

    def __init__(self, api, node, options, display, clock, sleep, started):
        self.api, self.node, self.options = api, node, options
        self.display, self.clock, self.sleep, self.started = display, clock, sleep, started
        self.pending = {}
        self.terminating = {}
        self.refused = {}
        self.failed = {}
        self.evicted = []
        self.stopped = None
        self.shown = None

    def run(self, pods):
        """Evict ``pods`` and wait until every one is gone or ended by an error; raise DrainError then, or at the bound."""
        self.pending = collections.OrderedDict((filters.pod_name(p), (p, self.started)) for p in pods)
        timeout = self.options.timeout
        while True:
            self._send_due()
            self._forget_gone()
            if self.stopped is not None:
                raise DrainError(self._stopped_message(), pending=self._left(), failed_pods=self._failed_details())
            left = self._left()
            if not self.pending and not self.terminating:
                if self.failed:
                    raise DrainError(self._failed_message(left), pending=left, failed_pods=self._failed_details())
                return
            waited = self.clock() - self.started
            if timeout and waited >= timeout:
                raise DrainError(self._timed_out(left, waited), pending=left, blocked=self._blocked_details(), failed_pods=self._failed_details())
            if self.shown is None or waited - self.shown >= self.options.poll:
                self.shown = waited
                blocked, retrying = self._blockers()
                progress.say(self.display, progress.drain_line(self.node, [n.split("/", 1)[1] for n in left], waited, timeout, blocked,
                                                               [n.split("/", 1)[1] for n in sorted(self.failed)], retrying))
            pause = self._pause(waited)
            if pause > 0:
                self.sleep(min(pause, timeout - waited) if timeout else pause)

    def _left(self):
        return sorted(list(self.pending) + list(self.terminating) + list(self.failed))

    def _pause(self, waited):
        """Seconds until the next eviction retry is due or, with pods terminating, the next deletion check."""
        wakes = [due - self.started - waited for _pod, due in self.pending.values()]
        if self.terminating:
            wakes.append(self.options.wait_poll)
        return min(wakes)

    def _send(self, pod):
        meta = pod["metadata"]
        if self.options.disable_eviction:
            self.api.delete_pod(meta["namespace"], meta["name"], grace_period=self.options.grace_period)
        else:
            self.api.evict(meta["namespace"], meta["name"], grace_period=self.options.grace_period)

    def _error_text(self, pod, exc):
        meta = pod["metadata"]
        return 'error when %s pods/"%s" -n "%s": %s' % ("deleting" if self.options.disable_eviction else "evicting", meta["name"], meta["namespace"], exc)

    def _send_due(self):
        now = self.clock()
        for name, (pod, due) in list(self.pending.items()):
            if due > now:
                continue
            del self.pending[name]
            try:
                self._send(pod)
            except kube_api.KubeApiError as exc:
                self._refused(name, pod, exc)
                if self.stopped is not None:
                    return
                continue
            self.refused.pop(name, None)
            self.evicted.append(name)
            self.terminating[name] = _uid(pod)

    def _refused(self, name, pod, exc):
        """One eviction (or deletion) answered ``exc``: gone, waited out, retried later, or that pod's end."""
        if exc.code == 404:
            self.refused.pop(name, None)
            return
        if self.options.disable_eviction:
            self.failed[name] = (exc.code, str(exc), self._error_text(pod, exc))
            self.stopped = name
            return
        terminating_ns = exc.code == 403 and any(c.get("reason") == "NamespaceTerminating" for c in exc.causes)
        if terminating_ns and pod["metadata"].get("deletionTimestamp"):
            self.terminating[name] = _uid(pod)
            return
        if exc.code != 429 and not terminating_ns:
            self.refused.pop(name, None)
            self.failed[name] = (exc.code, str(exc), self._error_text(pod, exc))
            return
        self.refused[name] = exc
        try:
            fresh = self.api.get_pod(pod["metadata"]["namespace"], pod["metadata"]["name"])
        except kube_api.KubeApiError:
            fresh = pod  # kubectl: "we ignore errors and let eviction sort it out with the original pod"
        if fresh is not None and _uid(fresh) == _uid(pod):
            self.pending[name] = (fresh, self.clock() + self.options.poll)
        else:
            self.refused.pop(name, None)

    def _forget_gone(self):
        for name, uid in list(self.terminating.items()):
            namespace, pod_name = name.split("/", 1)
            try:
                fresh = self.api.get_pod(namespace, pod_name)
            except kube_api.KubeApiError as exc:
                del self.terminating[name]
                self.failed[name] = (exc.code, str(exc), 'error when waiting for pod "%s" in namespace "%s" to terminate: %s' % (pod_name, namespace, exc))
                continue
            if fresh is None or _uid(fresh) != uid:
                del self.terminating[name]

    def _blocked(self):
        """(pod name, the API's error, covering PDBs) for every pod whose eviction is refused now."""
        by_namespace = {}
        for name, (pod, _due) in self.pending.items():
            if name not in self.refused:
                continue
            namespace = pod["metadata"]["namespace"]
            if namespace not in by_namespace:
                by_namespace[namespace] = self.api.pdbs(namespace)
            yield name, self.refused[name], budgets.budgets_for(pod, by_namespace[namespace])

    def _blockers(self):
        """For the progress line: (the budgets that refuse evictions now, the refused pods nothing blocks now, each with why
        it was refused: a budget that refused it and allows a disruption now, or the API's message)."""
        named, retrying = set(), []
        for name, exc, pdbs in self._blocked():
            chosen = budgets.blocking(pdbs, exc.causes)
            named.update(budgets.short(b, exc.causes) for b in chosen)
            if chosen:
                continue
            refusers = budgets.named_in(pdbs, exc.causes)
            if refusers:
                retrying.append("%s (%s)" % (name, ", ".join("PDB %s refused it, %s now" % (b["metadata"]["name"], budgets.allows(b)) for b in refusers)))
            else:
                retrying.append("%s (%s)" % (name, exc))
        return sorted(named), retrying

    def _blocked_details(self):
        return [{"pod": name, "message": str(exc), "budgets": [{"name": b["metadata"]["name"], "spec": b.get("spec"), "status": {
            k: (b.get("status") or {}).get(k) for k in ("disruptionsAllowed", "currentHealthy", "desiredHealthy", "expectedPods")}}
            for b in pdbs]} for name, exc, pdbs in self._blocked()]

    def _failed_details(self):
        return [{"pod": name, "code": code, "message": message} for name, (code, message, _text) in sorted(self.failed.items())]

    def _evicted_part(self):
        verb = "deleted" if self.options.disable_eviction else "evicted"
        if not self.evicted:
            return "nothing was %s" % verb
        return "%s %d (%s)" % (verb, len(self.evicted), progress.names(sorted(self.evicted)))

    def _failed_message(self, left):
        return "drain %s: %d pod%s left after %s: %s; %s" % (
            self.node, len(left), "" if len(left) == 1 else "s", "an error" if len(left) == 1 else "errors",
            "; ".join("%s (%s)" % (name, self.failed[name][2]) for name in left), self._evicted_part())

    def _stopped_message(self):
        left = self._left()
        return "drain %s: %s; the drain stopped there, as kubectl's deletePods does, with %d pod%s left (%s); %s" % (
            self.node, self.failed[self.stopped][2], len(left), "" if len(left) == 1 else "s", ", ".join(left), self._evicted_part())

    def _timed_out(self, left, waited):
        reasons = {}
        for name, exc, pdbs in self._blocked():
            reasons[name] = "eviction refused: %s%s" % (str(exc).rstrip("."), "".join("; " + budgets.describe(b) for b in budgets.blocking(pdbs, exc.causes)))
        for name in self.terminating:
            reasons[name] = "evicted, still terminating" if name in self.evicted else "being deleted, still terminating"
        for name, (_code, _message, text) in self.failed.items():
            reasons[name] = text
        parts = ["%s (%s)" % (name, reasons.get(name, "not evicted yet")) for name in left]
        return "drain %s: timed out after %s (timeout %s) with %d pod%s left: %s" % (
            self.node, progress.seconds(waited), progress.seconds(self.options.timeout), len(left), "" if len(left) == 1 else "s",
            "; ".join(parts))
