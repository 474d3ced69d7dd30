# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The check after a rehearsed rollback: did the node's workloads come back, and does PodResources show container scope (pure).

Public: `SCHEMA_VERSION`, `workloads(pods, node)`, `came_back(before, pods)`, `pod_level_left(back, pod_resources)`,
`check(rollback_id, node, observed, pod_resources, placement, restarts)`, `progress_line(node, result, waited, timeout)`.

The node's workloads are the pods bound to it before the rollback that a controller owns (an
``ownerReferences`` entry with ``controller: true``), not terminating and not finished. Mirror pods
(a static pod's API copy, owned by the Node) and pods without a controller are listed as
``unowned``: nothing recreates them, so nothing is expected of them.

After the rollback each workload (one per controller, counting its pods on the node) is:

- ``back``: as many pods of the same controller (its uid) as before are on the node, active and
  Ready, each a new pod (a uid the node did not have before: the drain evicted the old one and the
  controller recreated it). A DaemonSet's pods are not evicted by the drain (kubectl drain
  ``--ignore-daemonsets``), so for a DaemonSet the same pod, Ready again after the kubelet's restart,
  counts too (``kept``);
- ``not ready``: the controller's pods are on the node but fewer of them are Ready (or new) than before;
- ``missing``: none of its pods is on the node (not recreated, or recreated on another node).

PodResources is read on the node after the rollback (the ``pod_resources_info`` module's result). The
rolled-back kubelet runs its baseline configuration, whose resource managers assign per container:
every pod that came back must be listed, with no pod-level ``cpu_ids`` or ``memory`` (fields 4 and 5
of Kubernetes 1.37's ``PodResources``) left. A PodResources that was not read is never agreement.

After the rollback the pods that came back also get the canary's placement checks (their CPU
sets, thread masks, devices' NUMA nodes, memory nodes and resident pages against PodResources: the
placement_recheck filter, `_evidence.reconcile.recheck`), and, when asked, the main container of
each is restarted and its PodResources allocation read again, which must be unchanged.

`check` is the document kept on the node beside the rollback's journal
(``transitions/<id>/rehearsal.json``, ``_rehearsal.kept``); ``reconciled`` is true only when
every workload is back, PodResources shows each of their pods at container scope, every placement
re-check agrees and every asked restart kept its allocation.
"""

from __future__ import annotations

SCHEMA_VERSION = 1
STATES = ("back", "not ready", "missing")
MIRROR_ANNOTATION = "kubernetes.io/config.mirror"
_SHOWN = 5


def _controller(pod):
    for ref in (pod.get("metadata") or {}).get("ownerReferences") or []:
        if isinstance(ref, dict) and ref.get("controller") is True:
            return ref
    return None


def _active(pod):
    meta, status = pod.get("metadata") or {}, pod.get("status") or {}
    return not meta.get("deletionTimestamp") and status.get("phase") not in ("Succeeded", "Failed")


def _ready(pod):
    status = pod.get("status") or {}
    if not _active(pod) or status.get("phase") != "Running":
        return False
    return any(c.get("type") == "Ready" and c.get("status") == "True" for c in status.get("conditions") or [] if isinstance(c, dict))


def _container_ids(pod):
    """{container name: containerID} of the pod's containers and restartable init containers that have one (the cgroups' names)."""
    status = pod.get("status") or {}
    found = {}
    for entry in list(status.get("containerStatuses") or []) + list(status.get("initContainerStatuses") or []):
        if isinstance(entry, dict) and isinstance(entry.get("name"), str) and isinstance(entry.get("containerID"), str) and entry["containerID"]:
            found[entry["name"]] = entry["containerID"]
    return dict(sorted(found.items()))


def _name(pod):
    meta = pod.get("metadata") or {}
    return "%s/%s" % (meta.get("namespace"), meta.get("name"))


def workloads(pods, node):
    """The node's workloads from the API's pods bound to ``node``: ``{"workloads": [...], "unowned": [...]}``.

    Each workload: ``owner`` (``kind/namespace/name``), ``kind``, ``namespace``, ``name``, ``uid`` (the
    controller's), ``pods`` (``[{"name", "uid", "ready", "container_ids"}]``, sorted by name; ``container_ids``
    maps each container's name to its status' ``containerID``, which names its cgroup, for the placement re-check). ``unowned``: names of the
    pods no controller owns (or mirror pods), sorted.
    """
    found, unowned = {}, []
    for pod in pods:
        meta = pod.get("metadata") or {}
        if (pod.get("spec") or {}).get("nodeName") != node or not _active(pod):
            continue
        ref = _controller(pod)
        if ref is None or ref.get("kind") == "Node" or MIRROR_ANNOTATION in (meta.get("annotations") or {}):
            unowned.append(_name(pod))
            continue
        key = ref.get("uid") or "%s/%s/%s" % (ref.get("kind"), meta.get("namespace"), ref.get("name"))
        entry = found.setdefault(key, {"owner": "%s/%s/%s" % (ref.get("kind"), meta.get("namespace"), ref.get("name")),
                                       "kind": ref.get("kind"), "namespace": meta.get("namespace"), "name": ref.get("name"),
                                       "uid": ref.get("uid"), "pods": []})
        entry["pods"].append({"name": meta.get("name"), "uid": meta.get("uid"), "ready": _ready(pod), "container_ids": _container_ids(pod)})
    result = sorted(found.values(), key=lambda w: w["owner"])
    for entry in result:
        entry["pods"].sort(key=lambda p: p["name"])
    return {"workloads": result, "unowned": sorted(unowned)}


def _names(items):
    items = list(items)
    shown = ", ".join(items[:_SHOWN])
    return shown + (", +%d more" % (len(items) - _SHOWN) if len(items) > _SHOWN else "")


def _one(workload, now):
    before = {p["uid"] for p in workload["pods"]}
    daemon = workload["kind"] == "DaemonSet"
    mine = [p for p in now["workloads"] if (p["uid"] or p["owner"]) == (workload["uid"] or workload["owner"])]
    pods = [pod for entry in mine for pod in entry["pods"]]
    counted = [p for p in pods if p["ready"] and (daemon or p["uid"] not in before)]
    expected = len(workload["pods"])
    if not pods:
        state = "missing"
    elif len(counted) >= expected:
        state = "back"
    else:
        state = "not ready"
    return {"owner": workload["owner"], "kind": workload["kind"], "namespace": workload["namespace"], "name": workload["name"],
            "uid": workload["uid"], "expected": expected, "ready": len(counted), "state": state,
            "before": [p["name"] for p in workload["pods"]],
            "now": [{"name": p["name"], "uid": p["uid"], "ready": p["ready"], "kept": p["uid"] in before, "container_ids": p.get("container_ids") or {}}
                    for p in pods]}


def came_back(before, pods, node):
    """Each of ``before``'s workloads (a `workloads` result) checked against the API's pods on ``node`` now.

    Returns ``{"workloads": [...], "back": bool, "missing": [owner, ...]}``: each workload with its
    ``state`` (``back``, ``not ready``, ``missing``), ``expected`` and ``ready`` counts, its pods
    ``before`` (names) and ``now`` (name, uid, ready, kept: the same pod as before, container_ids).
    """
    now = workloads(pods, node)
    checked = [_one(workload, now) for workload in before["workloads"]]
    missing = [w["owner"] for w in checked if w["state"] != "back"]
    return {"workloads": checked, "back": not missing, "missing": missing}


def describe(workload):
    """One line for a workload that is not back: ``ReplicaSet/default/cache: missing, 0 of 1 pods Ready on the node (before: cache-x)``."""
    return "%s: %s, %d of %d pods Ready on the node (before: %s)" % (
        workload["owner"], workload["state"], workload["ready"], workload["expected"], _names(workload["before"]))


def pod_level_left(back, pod_resources):
    """What PodResources says against container scope for the pods that came back: a list of lines (empty: reconciled).

    ``pod_resources``: the pod_resources_info result (``reachable``, ``pods``, ``findings``), or None.
    """
    if not pod_resources or not pod_resources.get("reachable"):
        said = "; ".join(f.get("message", "") for f in (pod_resources or {}).get("findings") or [] if isinstance(f, dict))
        return ["PodResources was not read on the node after the rollback%s: container scope is unknown" % (": %s" % said if said else "")]
    listed = {"%s/%s" % (p.get("namespace"), p.get("name")): p for p in pod_resources.get("pods") or []}
    problems = []
    for workload in back["workloads"]:
        for pod in workload["now"]:
            if not pod["ready"]:
                continue
            name = "%s/%s" % (workload["namespace"], pod["name"])
            entry = listed.get(name)
            if entry is None:
                problems.append("%s (%s) is not listed by PodResources" % (name, workload["owner"]))
                continue
            if entry.get("cpu_ids"):
                problems.append("%s still has a pod-level CPU set %s in PodResources" % (name, entry["cpu_ids"]))
            for block in entry.get("memory") or []:
                problems.append("%s still has pod-level %s memory on NUMA %s in PodResources" % (
                    name, block.get("memory_type"), ",".join(str(n) for n in block.get("numa_nodes") or []) or "unknown"))
    return problems


def _placement(placement):
    """The kept form of the placement re-check (the placement_recheck filter's result), or None when it was not asked."""
    if placement is None:
        return None
    return {"checked": placement.get("checked"), "problems": list(placement.get("problems") or []),
            "pods": [{"pod": pod.get("pod"), "owner": pod.get("owner"),
                      "checks": [[f.get("check"), f.get("container"), f.get("result")] for f in pod.get("findings") or []]}
                     for pod in placement.get("pods") or []]}


def _restart(restart):
    """The kept form of the opt-in restart of the main container (see `check`), or None when it was not asked."""
    if restart is None:
        return None
    kept = {key: restart.get(key) for key in ("pod", "container", "restarted", "restart_count")}
    kept["changes"] = list(restart.get("changes") or [])
    kept["error"] = restart.get("error")
    problems = ["after the restart of %s's container %s: %s" % (restart.get("pod"), restart.get("container"), line) for line in kept["changes"]]
    if not restart.get("restarted"):
        problems.append("the restart of %s's container %s was asked but not seen: %s"
                        % (restart.get("pod"), restart.get("container"), restart.get("error") or "its restart count did not rise"))
    kept["problems"] = problems
    return kept


def check(rollback_id, node, observed, pod_resources, placement=None, restarts=None):
    """The document kept on the node after a rehearsed rollback (see the module docstring).

    ``observed``: the rehearsal_workloads result after the rollback (``workloads``, ``back``,
    ``missing``, ``unowned``, ``observed_at``, ``waited_s``, ``timeout_s``). ``pod_resources``: the
    pod_resources_info result read on the node after it, or None. ``placement``: the placement
    re-check of the pods that came back (the placement_recheck filter: ``pods``, ``problems``,
    ``checked``), or None when it was not asked; each problem there makes the check not reconciled.
    ``restarts``: for the opt-in restart of the main container, one entry per pod restarted (``pod``,
    ``container``, ``restarted``, ``restart_count``, ``changes``: how its PodResources allocation
    changed, ``error``), or None when not asked; a change, or a restart not seen, is a problem.
    """
    not_back = [describe(w) for w in observed["workloads"] if w["state"] != "back"]
    left = pod_level_left(observed, pod_resources)
    placed = _placement(placement)
    restarted = None if restarts is None else [_restart(entry) for entry in restarts]
    left = left + (placed["problems"] if placed else []) + [line for entry in restarted or [] for line in entry["problems"]]
    return {
        "schema_version": SCHEMA_VERSION,
        "rollback": rollback_id,
        "node": node,
        "observed_at": observed.get("observed_at"),
        "waited_s": observed.get("waited_s"),
        "timeout_s": observed.get("timeout_s"),
        "workloads": [dict({key: w[key] for key in ("owner", "state", "expected", "ready", "before")}, now=[p["name"] for p in w["now"]])
                      for w in observed["workloads"]],
        "unowned": list(observed.get("unowned") or []),
        "came_back": not not_back,
        "missing": [w["owner"] for w in observed["workloads"] if w["state"] != "back"],
        "pod_resources": {"read": bool(pod_resources and pod_resources.get("reachable")), "problems": pod_level_left(observed, pod_resources)},
        "placement": placed,
        "restarts": restarted,
        "problems": not_back + left,
        "reconciled": not not_back and not left,
    }


def progress_line(node, result, waited, timeout):
    """The line a wait prints at each look: how many workloads are back, and which it still waits for."""
    total = len(result["workloads"])
    waiting = [w for w in result["workloads"] if w["state"] != "back"]
    line = "rehearsal %s: %d of %d workloads back after the rollback, %ds of %ds" % (node, total - len(waiting), total, int(waited), int(timeout))
    if waiting:
        line += "; waiting for %s" % _names("%s (%s, %d of %d Ready)" % (w["owner"], w["state"], w["ready"], w["expected"]) for w in waiting)
    return line
