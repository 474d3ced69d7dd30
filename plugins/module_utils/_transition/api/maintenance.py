# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The node's maintenance lock through the NVIDIA Maintenance Operator's ``NodeMaintenance``, where its CRD is served.

Public: `served`, `hold`, `release`, `REQUESTOR`, `ANNOTATION`, `MaintenanceError`.

The operator gives every tool that disrupts a node one shared maintenance window (GPU-NODE-FACTS.md section 6;
Mellanox/maintenance-operator api/v1alpha1/nodemaintenance_types.go, ``maintenance.nvidia.com/v1alpha1``):
- `served` asks discovery for the group version; a 404 means no operator (the caller holds a Lease instead).
- `hold` requests maintenance with ``<namespace>/gpusmith-numa-gate-<node>`` (``spec.nodeName``, ``spec.requestorID``
  `REQUESTOR`, ``spec.cordon`` false and no ``drainSpec``: the transition cordons and drains itself, with its own
  checks), its transition in the `ANNOTATION`, then waits (bounded, progress lines) for the operator to grant it: the
  ``Ready`` condition ``True`` (reason ``Ready``). A request of this transition found again (a resumed run) is waited for,
  not made twice. Another requestor's request for the node, or another transition's, refuses naming the requestor and
  since when: the operator has no expiry a caller could judge. ``RequestorFailed`` refuses too.
- `release` deletes the request, with the ``resourceVersion`` read as a precondition, only while this transition owns it
  (what k8s-operator-libs pkg/upgrade/upgrade_requestor.go does as the request's owner).
"""

from __future__ import annotations

import time
import urllib.parse

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import progress
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base.errors import NumaGateError
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kube_api import api as kube_api
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._transition.api import lock

GROUP_VERSION = "/apis/maintenance.nvidia.com/v1alpha1"
# The CRD's requestorID is domain-name notation (no underscore), so not the collection's name.
REQUESTOR = "numa-gate.gpusmith"
ANNOTATION = "numa-gate.gpusmith/transition"


class MaintenanceError(NumaGateError):
    """The node is in another requestor's maintenance, the request failed, or it was not granted within the bound."""


def served(api):
    """Whether the API serves ``nodemaintenances`` in ``maintenance.nvidia.com/v1alpha1`` (the operator's CRD is installed)."""
    try:
        listed = api.request("GET", GROUP_VERSION)
    except kube_api.KubeApiError as exc:
        if exc.code == 404:
            return False
        raise
    return any(r.get("name") == "nodemaintenances" for r in (listed or {}).get("resources") or [])


def _path(namespace=None, name=None):
    if namespace is None:
        return GROUP_VERSION + "/nodemaintenances"
    base = "%s/namespaces/%s/nodemaintenances" % (GROUP_VERSION, urllib.parse.quote(namespace, safe=""))
    return base if name is None else "%s/%s" % (base, urllib.parse.quote(name, safe=""))


def _ready(obj):
    for condition in (obj.get("status") or {}).get("conditions") or []:
        if condition.get("type") == "Ready":
            return condition
    return {}


def _failed(obj):
    conditions = (obj.get("status") or {}).get("conditions") or []
    return [c for c in conditions if c.get("type") == "RequestorFailed" and c.get("status") == "True"]


def _facts(obj, namespace, name):
    meta, ready = (obj or {}).get("metadata") or {}, _ready(obj or {})
    return {"lock_kind": "NodeMaintenance", "maintenance": "%s/%s" % (namespace, name),
            "holder": ((obj or {}).get("spec") or {}).get("requestorID"), "transition": (meta.get("annotations") or {}).get(ANNOTATION),
            "acquired": meta.get("creationTimestamp"), "ready": ready.get("status"), "phase": ready.get("reason")}


def _theirs(obj):
    meta, spec = obj.get("metadata") or {}, obj.get("spec") or {}
    ready = _ready(obj)
    return "%s since %s (NodeMaintenance %s/%s, Ready %s%s)" % (
        spec.get("requestorID") or "an unnamed requestor", meta.get("creationTimestamp") or "an unstated time", meta.get("namespace"),
        meta.get("name"), ready.get("status") or "unset", " " + ready["reason"] if ready.get("reason") else "")


def hold(api, namespace, node, transition, timeout=600, poll=2, check_mode=False, display=None, clock=time.monotonic, sleep=time.sleep):
    # pylint: disable=too-many-arguments,too-many-locals
    """Request maintenance of ``node`` for ``transition`` (or find this transition's request) and wait for it to be granted.

    Returns ``{changed, lock_action: created|renewed, lock_kind, maintenance, holder, transition, acquired, ready, phase, waited_s}``;
    raises `MaintenanceError` naming who holds the node, a failed request, or the bound. ``check_mode``: reads only, no wait.
    """
    name = lock.lease_name(node)
    requests = [o for o in api.request("GET", _path()).get("items") or [] if (o.get("spec") or {}).get("nodeName") == node]
    ours = [o for o in requests if (o["metadata"].get("namespace"), o["metadata"].get("name")) == (namespace, name)
            and (o["metadata"].get("annotations") or {}).get(ANNOTATION) == transition]
    others = [o for o in requests if o not in ours]
    if others:
        first = others[0]["metadata"]
        raise MaintenanceError("node %s is in maintenance requested by %s; nothing was changed. Wait for it to be released"
                               % (node, "; ".join(_theirs(o) for o in others)), **_facts(others[0], first.get("namespace"), first.get("name")))
    if ours:
        current, action = ours[0], "renewed"
    else:
        body = {"apiVersion": "maintenance.nvidia.com/v1alpha1", "kind": "NodeMaintenance",
                "metadata": {"name": name, "namespace": namespace, "annotations": {ANNOTATION: transition}},
                "spec": {"requestorID": REQUESTOR, "nodeName": node, "cordon": False}}
        current, action = (body if check_mode else api.request("POST", _path(namespace), body=body)), "created"
    if check_mode:
        return dict(_facts(current, namespace, name), changed=action == "created", lock_action=action, waited_s=0)
    started = clock()
    pace = progress.Pace(display, clock)
    while True:
        waited = clock() - started
        ready, failed = _ready(current), _failed(current)
        if failed or ready.get("reason") == "RequestorFailed":
            why = (failed or [ready])[0]
            raise MaintenanceError("lock %s: the maintenance request NodeMaintenance %s/%s failed: %s (%s); the transition does not go on"
                                   % (node, namespace, name, why.get("reason"), why.get("message") or "no message"), changed=action == "created",
                                   **_facts(current, namespace, name))
        if ready.get("status") == "True":
            return dict(_facts(current, namespace, name), changed=action == "created", lock_action=action, waited_s=round(waited, 1))
        state = "Ready %s%s" % (ready.get("status") or "unset", " " + ready["reason"] if ready.get("reason") else "")
        if waited >= timeout:
            raise MaintenanceError("lock %s: the maintenance request NodeMaintenance %s/%s was not granted within %s (%s); nothing else was changed"
                                   % (node, namespace, name, progress.seconds(timeout), state), changed=action == "created",
                                   **_facts(current, namespace, name))
        pace.say(state, "lock %s: waiting for NodeMaintenance %s/%s to be granted (%s), %s of %s"
                 % (node, namespace, name, state, progress.seconds(waited), progress.seconds(timeout)))
        sleep(max(0, min(poll, timeout - waited)))
        current = api.request("GET", _path(namespace, name))


def release(api, namespace, node, transition, check_mode=False):
    """Delete this transition's request (``resourceVersion`` as a precondition); ``{changed, lock_action: released|absent|held_by_another, ...}``."""
    name = lock.lease_name(node)
    try:
        current = api.request("GET", _path(namespace, name))
    except kube_api.KubeApiError as exc:
        if exc.code == 404:
            return dict(_facts(None, namespace, name), changed=False, lock_action="absent")
        raise
    facts = _facts(current, namespace, name)
    if facts["transition"] != transition:
        return dict(facts, changed=False, lock_action="held_by_another")
    return lock.delete_held(api, _path(namespace, name), current, facts, check_mode)
