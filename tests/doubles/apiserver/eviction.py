# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""``pods/eviction`` (policy/v1 Eviction) and PodDisruptionBudget status, as the real ones decide.

The eviction steps copy pkg/registry/core/pod/storage/eviction.go (``EvictionREST.Create``):
- a body whose name differs from the URL: 400 ``name in URL does not match name in Eviction object``;
- a pod that is Succeeded, Failed, Pending or already being deleted: deleted without a PDB check
  (``canIgnorePDB``);
- more than one matching PDB: a 500 Status ``This pod has more than one PodDisruptionBudget, which
  the eviction subresource does not support.``; a PDB with an empty selector matches nothing;
- an unready pod while the budget is met (currentHealthy >= desiredHealthy > 0): deleted;
- ``checkAndDecrement``: no disruption allowed -> 429 TooManyRequests, message ``Cannot evict pod
  as it would violate the pod's disruption budget.``, ``details.causes`` one ``DisruptionBudget``
  cause ``The disruption budget <pdb> needs <desired> healthy pods and has <current> currently``
  (retryAfterSeconds 0, so no Retry-After header); otherwise the pod goes into
  ``status.disruptedPods`` and is deleted with the Eviction's DeleteOptions;
- success: 201 with ``{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Success"}``;
- server-side dry run (``propagateDryRun``): the query's ``dryRun`` goes into the Eviction's
  ``deleteOptions.dryRun`` when that is empty; both set and different: ``Non-matching dry-run
  options in request and content: %v and %v`` (a plain error, so a 500 InternalError). A non-empty
  ``deleteOptions.dryRun`` (k8s.io/apiserver/pkg/util/dryrun ``IsDryRun``: ``len(flag) > 0``) runs
  every check and answers as above, 429 included, but ``checkAndDecrement`` leaves the PDB's
  ``disruptedPods`` alone and the pod DELETE persists nothing (DryRunnableStorage): nothing changes.

``ApiServerDouble.fail_eviction`` makes the evictions of one pod fail with a given code and message
(what an admission webhook, a storage error or a broken PDB does to a real eviction), checked
right after the name, before the pod is read.

PDB status copies the disruption controller (pkg/controller/disruption/disruption.go):
``countHealthyPods`` (not being deleted, not in disruptedPods, Ready), ``getExpectedPodCount``
(integer minAvailable: the number of matching pods; percentages and maxUnavailable: the sum of
the owning controllers' scale, ReplicaSet ``spec.replicas``, DaemonSet its pod count; a pod
without a known controller leaves the budget at 0 disruptions, as the controller's ``found no
controllers`` error does), ``disruptionsAllowed = max(0, currentHealthy - desiredHealthy)`` and 0
when no pods are expected, and the ``DisruptionAllowed`` condition (reasons ``SufficientPods`` /
``InsufficientPods``, k8s.io/component-helpers/apps/poddisruptionbudget). The double recomputes
it on every read: it never lags, so the ``still being processed`` 429 never happens here.
"""

import math

from apiserver import objects, selection
from apiserver import status as api_status
from apiserver import store as api_store

PDB_MESSAGE = "Cannot evict pod as it would violate the pod's disruption budget."
MULTIPLE_PDBS = "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support."


def _scaled(value, total):
    """intstr.GetScaledValueFromIntOrPercent(value, total, roundUp=true)."""
    if isinstance(value, str) and value.endswith("%"):
        return int(math.ceil(int(value[:-1]) * total / 100.0))
    return int(value)


def _expected_scale(store, pods):
    """The sum of the owning controllers' scale, or None when a pod has no known controller."""
    scales = {}
    for pod in pods:
        ref = objects.controller_ref(pod)
        if ref is None or ref["kind"] not in ("ReplicaSet", "DaemonSet"):
            return None
        resource = ref["kind"].lower() + "s"
        try:
            owner = store.get(resource, pod["metadata"]["namespace"], ref["name"])
        except api_status.ApiError:
            return None
        if ref["kind"] == "ReplicaSet":
            scales[owner["metadata"]["uid"]] = owner["spec"].get("replicas", 1)
        else:
            scales[owner["metadata"]["uid"]] = scales.get(owner["metadata"]["uid"], 0) + 1
    return sum(scales.values())


def matching_pods(store, pdb):
    """The pods in the PDB's namespace that its selector selects (an empty selector selects none)."""
    selector = pdb["spec"].get("selector")
    if selection.selector_is_empty(selector):
        return []
    pods = store.list("pods", pdb["metadata"]["namespace"])[0]
    return [p for p in pods if selection.match_labels(selector, p["metadata"].get("labels"))]


def with_status(store, pdb):
    """``pdb`` with ``status`` recomputed from the pods now in the store."""
    pods = matching_pods(store, pdb)
    disrupted = pdb.get("status", {}).get("disruptedPods") or {}
    live_names = {p["metadata"]["name"] for p in pods if not p["metadata"].get("deletionTimestamp")}
    disrupted = {name: when for name, when in disrupted.items() if name in live_names}
    healthy = sum(1 for p in pods if not p["metadata"].get("deletionTimestamp") and p["metadata"]["name"] not in disrupted and objects.is_ready(p))
    spec = pdb["spec"]
    known = True
    if "minAvailable" in spec and not str(spec["minAvailable"]).endswith("%"):
        expected, desired = len(pods), int(spec["minAvailable"])
    else:
        scale = _expected_scale(store, pods)
        known = scale is not None
        expected = scale or 0
        if "minAvailable" in spec:
            desired = _scaled(spec["minAvailable"], expected)
        else:
            desired = max(0, expected - _scaled(spec["maxUnavailable"], expected))
    allowed = healthy - desired if known else 0
    if expected <= 0 or allowed <= 0:
        allowed = 0
    generation = pdb["metadata"].get("generation", 1)
    status = {"observedGeneration": generation, "disruptionsAllowed": allowed, "currentHealthy": healthy,
              "desiredHealthy": desired, "expectedPods": expected,
              "conditions": [{"type": "DisruptionAllowed", "status": "True" if allowed > 0 else "False",
                              "reason": "SufficientPods" if allowed > 0 else "InsufficientPods", "message": "",
                              "observedGeneration": generation, "lastTransitionTime": pdb["metadata"].get("creationTimestamp")}]}
    if disrupted:
        status["disruptedPods"] = disrupted
    result = dict(pdb)
    result["status"] = status
    return result


def _pdbs_for(store, pod):
    pdbs = store.list("poddisruptionbudgets", pod["metadata"]["namespace"])[0]
    return [p for p in pdbs if not selection.selector_is_empty(p["spec"].get("selector"))
            and selection.match_labels(p["spec"]["selector"], pod["metadata"].get("labels"))]


# The reason NewGenericServerResponse (k8s.io/apimachinery/pkg/api/errors/errors.go) gives each code.
REASONS = {400: "BadRequest", 401: "Unauthorized", 403: "Forbidden", 404: "NotFound", 405: "MethodNotAllowed", 409: "Conflict",
           410: "Gone", 422: "Invalid", 429: "TooManyRequests", 500: "InternalError", 503: "ServiceUnavailable", 504: "Timeout"}


def failure(code, message):
    """The Status of an injected eviction failure: ``code``, its reason, ``message`` as given."""
    body = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure", "message": message}
    if code in REASONS:
        body["reason"] = REASONS[code]
    body["code"] = code
    return api_status.ApiError(body)


def _propagate_dry_run(options, query_dry_run):
    """eviction.go ``propagateDryRun``: the DeleteOptions' dryRun, filled from the query's when empty."""
    asked = [query_dry_run] if isinstance(query_dry_run, str) else (["All"] if query_dry_run else [])
    body = list(options.get("dryRun") or [])
    if not body:
        return asked
    if asked and asked != body:
        raise api_status.internal_error("Non-matching dry-run options in request and content: [%s] and [%s]" % (" ".join(asked), " ".join(body)))
    return body


def evict(store, namespace, name, eviction, dry_run=False, failures=None):
    """Run one eviction; returns (HTTP code, Status body) or raises ApiError.

    ``dry_run``: the query's ``dryRun`` (a string, or a bool for ``All``); ``failures``: {(namespace,
    name): (code, message)} of pods whose eviction fails so (`ApiServerDouble.fail_eviction`).
    """
    if (eviction.get("metadata") or {}).get("name") != name:
        raise api_status.bad_request("name in URL does not match name in Eviction object")
    options = dict(eviction.get("deleteOptions") or {})
    options["dryRun"] = _propagate_dry_run(options, dry_run)
    dry_run = len(options["dryRun"]) > 0
    if (failures or {}).get((namespace, name)):
        raise failure(*failures[(namespace, name)])
    with store.cond:
        pod = store.get("pods", namespace, name)
        phase = pod.get("status", {}).get("phase")
        if phase in ("Succeeded", "Failed", "Pending") or pod["metadata"].get("deletionTimestamp"):
            return _delete(store, pod, options, dry_run)
        pdbs = _pdbs_for(store, pod)
        if len(pdbs) > 1:
            return 500, {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure", "message": MULTIPLE_PDBS, "code": 500}
        if not pdbs:
            return _delete(store, pod, options, dry_run)
        pdb = with_status(store, pdbs[0])
        current = pdb["status"]
        if not objects.is_ready(pod) and current["currentHealthy"] >= current["desiredHealthy"] > 0:
            return _delete(store, pod, options, dry_run)
        if current["disruptionsAllowed"] == 0:
            cause = {"reason": "DisruptionBudget",
                     "message": "The disruption budget %s needs %d healthy pods and has %d currently"
                                % (pdb["metadata"]["name"], current["desiredHealthy"], current["currentHealthy"])}
            raise api_status.too_many_requests(PDB_MESSAGE, 0, [cause])
        if not dry_run:
            stored = store.get("poddisruptionbudgets", namespace, pdb["metadata"]["name"])
            stored.setdefault("status", {}).setdefault("disruptedPods", {})[name] = api_store.timestamp()
            store.update("poddisruptionbudgets", stored, check_version=False)
        return _delete(store, pod, options, dry_run)


def _delete(store, pod, options, dry_run):
    """addConditionAndDeletePod: the pod DELETE with the Eviction's options (a dry run checks and stores nothing)."""
    options = {k: v for k, v in options.items() if k != "dryRun"}
    store.delete("pods", pod["metadata"]["namespace"], pod["metadata"]["name"], options, dry_run=dry_run)
    return 201, api_status.success()
