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
  processed) is retried after a delay until the global timeout, the pod re-read between tries;
  403 with cause ``NamespaceTerminating`` is waited out (the pod is deleting) or retried; any other
  error fails the drain. ``disable_eviction`` deletes instead (``deletePods``), no budget consulted.
- ``waitForDelete``: a pod is gone when the API answers NotFound or a pod of that name has another
  UID. kubectl retries evictions every 5 s and polls deletions every second; here both happen every
  ``poll`` seconds, and the one ``timeout`` bounds the whole drain (kubectl's global timeout; 0: none).
When the bound runs out the error names every pod left: the budgets that refuse it (name,
minAvailable/maxUnavailable, disruptions allowed now) or that it is still terminating.
``clock`` and ``sleep`` are parameters so tests run without waiting.
"""

from __future__ import annotations

import collections
import time

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._errors import NumaGateError
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._transition import api as kube_api
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._transition import budgets, cordon, filters, progress

DrainOptions = collections.namedtuple("DrainOptions", "timeout poll ignore_daemonsets delete_emptydir_data force grace_period disable_eviction")
DEFAULT_OPTIONS = DrainOptions(timeout=300, poll=5, ignore_daemonsets=True, delete_emptydir_data=False, force=False,
                               grace_period=None, disable_eviction=False)


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
        evicted = runs[0].evicted if runs else []
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
        exc.details.update(facts, changed=bool(cordoned or run.evicted), evicted=run.evicted, skipped_pods=selection.skipped,
                           waited_s=round(clock() - started, 1))
        raise DrainError("%s; %s" % (exc, _stays_cordoned(node, facts)), **exc.details) from exc
    return dict(result, changed=bool(cordoned or run.evicted), evicted=run.evicted, waited_s=round(clock() - started, 1))


class _Run:
    """One drain's eviction loop: pods to evict, pods evicted and not yet gone, what refuses them."""

    def __init__(self, api, node, options, display, clock, sleep, started):
        self.api, self.node, self.options = api, node, options
        self.display, self.clock, self.sleep, self.started = display, clock, sleep, started
        self.pending = []
        self.terminating = {}
        self.refused = {}
        self.evicted = []

    def run(self, pods):
        """Evict ``pods`` and wait until every one is gone, or raise DrainError at the bound."""
        self.pending = list(pods)
        while True:
            self._evict_pending()
            self._forget_gone()
            left = sorted([filters.pod_name(p) for p in self.pending] + list(self.terminating))
            if not left:
                return
            waited = self.clock() - self.started
            timeout = self.options.timeout
            if timeout and waited >= timeout:
                raise DrainError(self._timed_out(left, waited), pending=left, blocked=self._blocked_details())
            refused = list(self._blocked())
            blocked = sorted({budgets.short(b) for _name, _why, pdbs in refused for b in pdbs})
            blocked += ["pod %s: %s" % (name, why) for name, why, pdbs in refused if not pdbs]
            progress.say(self.display, progress.drain_line(self.node, [n.split("/", 1)[1] for n in left], waited, timeout, blocked))
            self.sleep(min(self.options.poll, timeout - waited) if timeout else self.options.poll)

    def _send(self, pod):
        meta = pod["metadata"]
        if self.options.disable_eviction:
            self.api.delete_pod(meta["namespace"], meta["name"], grace_period=self.options.grace_period)
        else:
            self.api.evict(meta["namespace"], meta["name"], grace_period=self.options.grace_period)

    def _evict_pending(self):
        still = []
        for pod in self.pending:
            name = filters.pod_name(pod)
            try:
                self._send(pod)
            except kube_api.KubeApiError as exc:
                if exc.code == 404:
                    self.refused.pop(name, None)
                    continue
                terminating_ns = exc.code == 403 and any(c.get("reason") == "NamespaceTerminating" for c in exc.causes)
                if terminating_ns and pod["metadata"].get("deletionTimestamp"):
                    self.terminating[name] = _uid(pod)
                    continue
                if exc.code != 429 and not terminating_ns:
                    raise DrainError('drain %s: error when %s pods/"%s" -n "%s": %s'
                                     % (self.node, "deleting" if self.options.disable_eviction else "evicting",
                                        pod["metadata"]["name"], pod["metadata"]["namespace"], exc)) from exc
                self.refused[name] = str(exc)
                fresh = self.api.get_pod(pod["metadata"]["namespace"], pod["metadata"]["name"])
                if fresh is not None and _uid(fresh) == _uid(pod):
                    still.append(fresh)
                else:
                    self.refused.pop(name, None)
                continue
            self.refused.pop(name, None)
            self.evicted.append(name)
            self.terminating[name] = _uid(pod)
        self.pending = still

    def _forget_gone(self):
        for name, uid in list(self.terminating.items()):
            namespace, pod_name = name.split("/", 1)
            fresh = self.api.get_pod(namespace, pod_name)
            if fresh is None or _uid(fresh) != uid:
                del self.terminating[name]

    def _blocked(self):
        """(pod name, API message, covering PDBs) for every pod whose eviction is refused now."""
        by_namespace = {}
        for pod in self.pending:
            name = filters.pod_name(pod)
            if name not in self.refused:
                continue
            namespace = pod["metadata"]["namespace"]
            if namespace not in by_namespace:
                by_namespace[namespace] = self.api.pdbs(namespace)
            yield name, self.refused[name], budgets.budgets_for(pod, by_namespace[namespace])

    def _blocked_details(self):
        return [{"pod": name, "message": why, "budgets": [{"name": b["metadata"]["name"], "spec": b.get("spec"), "status": {
            k: (b.get("status") or {}).get(k) for k in ("disruptionsAllowed", "currentHealthy", "desiredHealthy", "expectedPods")}}
            for b in pdbs]} for name, why, pdbs in self._blocked()]

    def _timed_out(self, left, waited):
        reasons = {}
        for name, why, pdbs in self._blocked():
            reasons[name] = "eviction refused: %s%s" % (why.rstrip("."), "".join("; " + budgets.describe(b) for b in pdbs))
        for name in self.terminating:
            reasons[name] = "evicted, still terminating" if name in self.evicted else "being deleted, still terminating"
        parts = ["%s (%s)" % (name, reasons.get(name, "not evicted yet")) for name in left]
        return "drain %s: timed out after %s (timeout %s) with %d pod%s left: %s" % (
            self.node, progress.seconds(waited), progress.seconds(self.options.timeout), len(left), "" if len(left) == 1 else "s",
            "; ".join(parts))
