# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The drain, checked before the cordon: would every pod the drain evicts leave now? Nothing is changed.

Public: `check`, `DryRunError`.

What is checked, in this order (each refusal names the pod and why; nothing is cordoned or evicted):
- the pods the drain would refuse, with the same filters and options (`filters.classify`: no controller
  without ``force``, local storage without ``delete_emptydir_data``, DaemonSet pods without
  ``ignore_daemonsets``);
- a server-side dry run of each eviction (``deleteOptions.dryRun: [All]``, what ``kubectl drain
  --dry-run=server`` sends, k8s.io/kubectl pkg/drain/drain.go ``makeDeleteOptions``; a DELETE with the
  same option under ``disable_eviction``): the API server runs every check and persists nothing
  (kubernetes pkg/registry/core/pod/storage/eviction.go ``propagateDryRun``, ``checkAndDecrement(...,
  dryRun)``); a 429 is a budget that allows no disruption now, a 500 a pod under two budgets;
- the node's pods added up per PodDisruptionBudget: the dry run judges each pod alone against the
  budget's ``disruptionsAllowed`` and never writes the decrement, so N pods under a budget that allows 1
  all pass one by one (GPU-NODE-FACTS.md section 7). Pods the eviction subresource lets go without a
  budget check (Pending, Succeeded, Failed, or already being deleted: eviction.go) are not counted.
  Not under ``disable_eviction``: a deletion consults no budget.
"""

from __future__ import annotations

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base.errors import NumaGateError
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kube_api import api as kube_api
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._transition.api import budgets, filters

# eviction.go: these phases, and a pod being deleted, skip the budget check.
_NO_BUDGET_CHECK = ("Pending", "Succeeded", "Failed")
NOTHING = "checked before the cordon by a server-side dry run; nothing was cordoned or evicted"


class DryRunError(NumaGateError):
    """A drain that would not go through now; ``details`` carry what blocks it."""


def _counted(pod):
    return (pod.get("status") or {}).get("phase") not in _NO_BUDGET_CHECK and not pod["metadata"].get("deletionTimestamp")


def _send(api, pod, options):
    meta = pod["metadata"]
    if options.disable_eviction:
        api.delete_pod(meta["namespace"], meta["name"], grace_period=options.grace_period, dry_run=True)
    else:
        api.evict(meta["namespace"], meta["name"], grace_period=options.grace_period, dry_run=True)


def _budget_name(pdb):
    return "%s/%s" % (pdb["metadata"]["namespace"], pdb["metadata"]["name"])


def _allowed(pdb):
    return (pdb.get("status") or {}).get("disruptionsAllowed", 0)


def _refused_line(name, exc, pdbs):
    """One pod the dry run refused: the budgets that block it (name, disruptions allowed) or the API's words."""
    chosen = budgets.blocking(pdbs, exc.causes) or budgets.named_in(pdbs, exc.causes)
    if chosen:
        return "%s cannot leave now: %s" % (name, "; ".join("PodDisruptionBudget %s allows %d disruption%s (%s)" % (
            _budget_name(b), _allowed(b), "" if _allowed(b) == 1 else "s", str(exc).rstrip(".")) for b in chosen))
    return "%s cannot leave now: the dry-run eviction answered %s: %s" % (name, exc.code, str(exc).rstrip("."))


def check(api, node, options):
    """Check the drain of ``node`` under ``options`` (`drain.DrainOptions`) without changing anything.

    Returns ``{changed: False, would_evict, skipped_pods, budgets: [{budget, disruptions_allowed, pods}], pod_warnings}``;
    raises `DryRunError` (with the same keys and ``refusals`` in ``details``) naming each pod that cannot leave now.
    """
    pods = api.pods_on_node(node)
    selection = filters.classify(api, pods, options)
    names = [filters.pod_name(p) for p in selection.evict]
    found = {"changed": False, "would_evict": names, "skipped_pods": selection.skipped, "pod_warnings": selection.warnings}
    if selection.refusals:
        raise DryRunError("the drain of %s would refuse: %s; %s" % (node, "; ".join(selection.refusals), NOTHING),
                          refusals=list(selection.refusals), budgets=[], **found)
    by_namespace, refusals, per_budget = {}, [], {}
    for pod in selection.evict:
        name, namespace = filters.pod_name(pod), pod["metadata"]["namespace"]
        if not options.disable_eviction and namespace not in by_namespace:
            by_namespace[namespace] = api.pdbs(namespace)
        covering = budgets.budgets_for(pod, by_namespace.get(namespace, []))
        try:
            _send(api, pod, options)
        except kube_api.KubeApiError as exc:
            if exc.code != 404:  # gone already: nothing to move
                refusals.append(_refused_line(name, exc, covering))
            continue
        if _counted(pod):
            for pdb in covering:
                per_budget.setdefault(_budget_name(pdb), (pdb, []))[1].append(name)
    summed = [{"budget": key, "disruptions_allowed": _allowed(pdb), "pods": pods_of} for key, (pdb, pods_of) in sorted(per_budget.items())]
    for entry in summed:
        if len(entry["pods"]) > entry["disruptions_allowed"]:
            refusals.append("%s cannot all leave now: PodDisruptionBudget %s allows %d disruption%s and the drain would evict %d of its pods (%s)" % (
                ", ".join(entry["pods"]), entry["budget"], entry["disruptions_allowed"], "" if entry["disruptions_allowed"] == 1 else "s",
                len(entry["pods"]), ", ".join(entry["pods"])))
    found["budgets"] = summed
    if refusals:
        raise DryRunError("the drain of %s would not go through now: %s; %s" % (node, "; ".join(refusals), NOTHING), refusals=refusals, **found)
    return found
