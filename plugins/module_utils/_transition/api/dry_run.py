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
  all pass one by one (GPU-NODE-FACTS.md section 7). More pods than a budget allows, under a budget that
  allows at least one, is a wait (``budget_waits``), not a refusal: the drain evicts them in turn as their
  replacements become healthy elsewhere, as a rolling pool always needs. Pods the eviction subresource lets go without a
  budget check (Pending, Succeeded, Failed, or already being deleted: eviction.go) are not counted.
  Not under ``disable_eviction``: a deletion consults no budget.
"""

from __future__ import annotations

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base.errors import NumaGateError
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kube_api import api as kube_api
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._transition.api import budgets, device_access, filters, staying

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


def _admission(api, node, pods, selection, admission, found):
    """The pods that stay, predicted under the target (`staying.predict`), the GPU device plugin judged under it
    (`device_access.judge`), and what the node has before the stop."""
    config = admission.get("config") or {}
    target = staying.target_from(config, admission.get("numa_nodes") or [])
    predicted = staying.predict(staying.staying(pods, selection), target, allow=admission.get("allow") or ())
    node_object = api.get_node(node)
    found.update(staying=predicted["staying"], predicted_rejections=predicted["rejected"], extended_resources=staying.extended(node_object),
                 failed_before=sorted(p["metadata"].get("uid") or "" for p in pods if (p.get("status") or {}).get("phase") == "Failed"))
    found["pod_warnings"] = list(found["pod_warnings"]) + ["%s would be rejected after the restart (allowed by name): %s" % (r["pod"], r["why"])
                                                           for r in predicted["rejected"] if r["allowed"]]
    if predicted["refusals"]:
        raise DryRunError("the pods that stay on %s through the restart would not all be admitted under the target policy: %s; %s; %s"
                          % (node, "; ".join(predicted["refusals"]), staying.REFUSAL_HINT, NOTHING), refusals=predicted["refusals"], budgets=[], **found)
    try:
        found["device_access"] = device_access.judge(pods, node_object, config, override=bool(admission.get("device_access_override")),
                                                     runtime_versions=admission.get("runtime_versions"))
    except device_access.DeviceAccessError as exc:
        found["device_access"] = exc.details
        raise DryRunError("%s; %s" % (exc, NOTHING), refusals=[str(exc)], budgets=[], **found) from exc
    if found["device_access"]["safe"] is False:
        found["pod_warnings"].append("%s (overridden by %s)" % (found["device_access"]["why"], device_access.OVERRIDE))


def check(api, node, options, admission=None, check_mode=False):
    """Check the drain of ``node`` under ``options`` (`drain.DrainOptions`) without changing anything.

    With ``admission`` (``{config: the target's effective KubeletConfiguration, numa_nodes: the topology facts', allow:
    [namespace/pod or namespace/owner]}``), the pods that stay are predicted under the target first (`staying`), and the
    result adds ``staying``, ``predicted_rejections``, ``extended_resources`` and ``failed_before`` (what the verify compares);
    with the static CPU manager the node's GPU device plugin is judged too (``device_access``; ``device_access_override``).

    In ``check_mode`` no dry-run eviction is sent (the API sees only reads): a covering budget that allows no disruption
    now refuses as its 429 would, read from the budget's status.

    Returns ``{changed: False, would_evict, skipped_pods, budgets: [{budget, disruptions_allowed, pods}], budget_waits, pod_warnings}``;
    raises `DryRunError` (with the same keys and ``refusals`` in ``details``) naming each pod that cannot leave now.
    """
    pods = api.pods_on_node(node)
    selection = filters.classify(api, pods, options)
    names = [filters.pod_name(p) for p in selection.evict]
    found = {"changed": False, "would_evict": names, "skipped_pods": selection.skipped, "pod_warnings": selection.warnings}
    if selection.refusals:
        raise DryRunError("the drain of %s would refuse: %s; %s" % (node, "; ".join(selection.refusals), NOTHING),
                          refusals=list(selection.refusals), budgets=[], **found)
    if admission is not None:
        _admission(api, node, pods, selection, admission, found)
    by_namespace, refusals, per_budget = {}, [], {}
    for pod in selection.evict:
        name, namespace = filters.pod_name(pod), pod["metadata"]["namespace"]
        if not options.disable_eviction and namespace not in by_namespace:
            by_namespace[namespace] = api.pdbs(namespace)
        covering = budgets.budgets_for(pod, by_namespace.get(namespace, []))
        if check_mode:
            blocking = budgets.blocking(covering) if _counted(pod) else []
            if blocking:
                refusals.append("%s cannot leave now: %s (read in check mode; no dry run sent)" % (name, "; ".join(
                    "PodDisruptionBudget %s allows 0 disruptions" % _budget_name(b) for b in blocking)))
                continue
        try:
            if not check_mode:
                _send(api, pod, options)
        except kube_api.KubeApiError as exc:
            if exc.code != 404:  # gone already: nothing to move
                refusals.append(_refused_line(name, exc, covering))
            continue
        if _counted(pod):
            for pdb in covering:
                per_budget.setdefault(_budget_name(pdb), (pdb, []))[1].append(name)
    summed = [{"budget": key, "disruptions_allowed": _allowed(pdb), "pods": pods_of} for key, (pdb, pods_of) in sorted(per_budget.items())]
    waits = []
    for entry in summed:
        allowed, count, listed = entry["disruptions_allowed"], len(entry["pods"]), ", ".join(entry["pods"])
        if count <= allowed:
            continue
        # Only pods whose dry run passed are counted, so the budget allows at least one here: the drain's retries get
        # them through one at a time as each replacement becomes healthy elsewhere (a rolling pool gathers the pods
        # on the nodes left, so refusing here would refuse every pool's second node).
        waits.append("%s leave one by one: PodDisruptionBudget %s allows %d disruption%s and the drain would evict %d of its pods; "
                     "the drain waits for their replacements to be healthy elsewhere, within its bound" % (
                         listed, entry["budget"], allowed, "" if allowed == 1 else "s", count))
    found["budget_waits"] = waits
    found["budgets"] = summed
    if refusals:
        raise DryRunError("the drain of %s would not go through now: %s; %s" % (node, "; ".join(refusals), NOTHING), refusals=refusals, **found)
    return found
