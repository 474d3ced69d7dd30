# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The allocation canary: its manifest, its Guaranteed QoS check, and its admission read by layer (pure).

Public: `manifest`, `workload`, `subjects`, `admissions`, `pod_spec`, `diff`, `qos_problems`, `admission`, `MANIFEST_KEYS`, `KUBELET_REASONS`,
`WORKLOAD_KINDS`.

`manifest(params)`: the allocation canary (pod budget 4 CPU / 4Gi in ``.spec.resources``, the main
container 2 CPU / 2Gi with requests equal to limits, two restartable sidecars sharing the rest),
or the operator's own workload (``workload``: a Deployment, StatefulSet, Job or Pod; a CronJob or a
DaemonSet is refused naming the kinds accepted) with its images, GPU request or DRA claim kept;
either is pinned to one node of the canary pool by node selector (the scheduler still places it),
its pods labelled with the canary's labels, and a workload's budget moved to the pod template's
``.spec.resources`` (the containers' requests summed, when each asks cpu and memory with limits
equal and none is set there; the helpers' requests as given).
`workload(params)`: that manifest with the reviewed change (`diff`: ``path: before -> after``), the
budget sent and the label selector of its pods.
`subjects(pods)`: the pods the canary created, as the evidence reads them by uid (each with its
stored ``.spec.resources`` read back, its controller and the GPUs it asked for).
`qos_problems(pod, exclusive)`: what keeps it from Guaranteed QoS or its exclusive slices, checked
before it is sent (pod-level requests equal limits for CPU and memory; each exclusive container's
requests equal its limits with a whole, positive number of CPUs; containers within the pod's budget).
`admission(pod, events, api_error)`: admitted or not, and each failure at the layer that produced
it (``api``: the create was refused; ``scheduler``: PodScheduled False; ``kubelet``: the pod failed
admission on the node, such as TopologyAffinityError).
"""

from __future__ import annotations

import copy
import json

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import quantity as _quantity
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence.nodefs import EvidenceError

IMAGE = "registry.k8s.io/pause:3.9"
MANIFEST_KEYS = ("name", "namespace", "node", "pool_selector", "image", "pod_cpu", "pod_memory", "main_cpu", "main_memory", "sidecars",
                 "gpu_resource", "gpu_count", "labels", "workload")
DEFAULTS = {"name": "pod-numa-allocation-canary", "namespace": "default", "node": None, "pool_selector": {"example.com/pod-managers": "canary"},
            "image": IMAGE, "pod_cpu": "4", "pod_memory": "4Gi", "main_cpu": "2", "main_memory": "2Gi", "sidecars": ["metrics", "logging"],
            "gpu_resource": None, "gpu_count": 1, "labels": {"app.kubernetes.io/name": "numa-gate-canary"}, "workload": None}
WORKLOAD_KINDS = ("Deployment", "StatefulSet", "Job", "Pod")
REFUSED = {"CronJob": "its pods come on a schedule, not when the canary is sent",
           "DaemonSet": "its pods go to every node of its selector, and a pinned one would leave the rest of the pool"}
_NONE = object()
# Pod status reasons the kubelet's admission handlers set (pkg/kubelet/lifecycle, cm/topologymanager, cm/*/admit).
KUBELET_REASONS = ("TopologyAffinityError", "UnexpectedAdmissionError", "OutOfcpu", "OutOfmemory", "OutOfpods", "NodeAffinity",
                   "SMTAlignmentError", "UnsupportedPodLevelResources")


def _params(params):
    params = dict(params or {})
    unknown = sorted(set(params) - set(MANIFEST_KEYS))
    if unknown:
        raise EvidenceError("canary: unknown parameters %s (known: %s)" % (", ".join(unknown), ", ".join(MANIFEST_KEYS)), keys=unknown)
    return dict(DEFAULTS, **{key: value for key, value in params.items() if value is not None})


def _selector(values):
    selector = dict(values["pool_selector"] or {})
    if values["node"]:
        selector["kubernetes.io/hostname"] = values["node"]
    return selector


def pod_spec(obj, where="canary: workload"):
    """The pod spec of a Pod, or of a Deployment's, StatefulSet's or Job's pod template (the same dict, not a copy)."""
    if not isinstance(obj, dict) or obj.get("kind") not in WORKLOAD_KINDS:
        kind = obj.get("kind") if isinstance(obj, dict) else obj
        raise EvidenceError("%s must be a %s manifest, got kind %r: %s" % (where, ", ".join(WORKLOAD_KINDS[:-1]) + " or " + WORKLOAD_KINDS[-1],
                                                                           kind, REFUSED.get(kind, "not a workload the canary can send")),
                            kind=kind)
    if obj["kind"] == "Pod":
        return obj.setdefault("spec", {})
    template = (obj.get("spec") or {}).get("template")
    if not isinstance(template, dict):
        raise EvidenceError("%s %s %s has no spec.template: its controller has no pods to make" % (
            where, obj["kind"], (obj.get("metadata") or {}).get("name")), kind=obj["kind"])
    return template.setdefault("spec", {})


def _pod_labels(obj):
    if obj["kind"] == "Pod":
        return obj.setdefault("metadata", {})
    return obj["spec"]["template"].setdefault("metadata", {})


def _budget(spec):
    """The containers' requests summed into a pod budget, when every container asks cpu and memory with limits equal; else None."""
    containers = list(spec.get("containers") or []) + [c for c in spec.get("initContainers") or [] if c.get("restartPolicy") == "Always"]
    total = {"cpu": 0, "memory": 0}
    for container in containers:
        resources = container.get("resources") or {}
        if _equal(resources, "container %s" % container.get("name")):
            return None
        total["cpu"] += _millicpu(resources["requests"]["cpu"], "container %s requests.cpu" % container.get("name"))
        total["memory"] += _bytes(resources["requests"]["memory"], "container %s requests.memory" % container.get("name"))
    if not containers:
        return None
    cpu = "%d" % (total["cpu"] // 1000) if total["cpu"] % 1000 == 0 else "%dm" % total["cpu"]
    budget = {"cpu": cpu, "memory": _quantity.from_bytes(total["memory"])}
    return {"requests": dict(budget), "limits": dict(budget)}


def diff(before, after, path=""):
    """["<path>: <before> -> <after>"] for every leaf that differs between two manifests (absent is ``(none)``), in key order."""
    if isinstance(before, dict) and isinstance(after, dict):
        found = []
        for key in sorted(set(before) | set(after), key=str):
            found += diff(before.get(key, _NONE), after.get(key, _NONE), "%s.%s" % (path, key) if path else str(key))
        return found
    if before == after:
        return []
    return ["%s: %s -> %s" % (path, "(none)" if before is _NONE else _compact(before), "(none)" if after is _NONE else _compact(after))]


def _compact(value):
    return json.dumps(value, sort_keys=True, separators=(",", ":")) if isinstance(value, (dict, list)) else str(value)


def workload(params=None):
    """{"manifest", "diff", "sent_resources", "kind", "selector"}: the canary as sent, the reviewed change, and how to find its pods."""
    values = _params(params)
    sent = manifest(params)
    original = copy.deepcopy(values["workload"]) if values["workload"] is not None else None
    spec = pod_spec(sent)
    return {"manifest": sent, "kind": sent["kind"], "diff": diff(original, sent) if original is not None else [],
            "sent_resources": copy.deepcopy(spec.get("resources")), "selector": dict(values["labels"])}


def manifest(params=None):
    """The canary (a dict ready for the API): the allocation canary pod, or the operator's workload pinned to the node."""
    values = _params(params)
    if values["workload"] is not None:
        obj = copy.deepcopy(values["workload"])
        spec = pod_spec(obj)
        spec["nodeSelector"] = dict(spec.get("nodeSelector") or {}, **_selector(values))
        if not spec.get("resources"):
            budget = _budget(spec)
            if budget:
                spec["resources"] = budget
        meta = obj.setdefault("metadata", {})
        meta.setdefault("namespace", values["namespace"])
        meta["labels"] = dict(meta.get("labels") or {}, **values["labels"])
        pod_meta = _pod_labels(obj)
        pod_meta["labels"] = dict(pod_meta.get("labels") or {}, **values["labels"])
        return obj
    budget = {"cpu": str(values["pod_cpu"]), "memory": str(values["pod_memory"])}
    main = {"cpu": str(values["main_cpu"]), "memory": str(values["main_memory"])}
    main_limits = dict(main)
    if values["gpu_resource"]:
        main_limits[values["gpu_resource"]] = str(values["gpu_count"])
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": values["name"], "namespace": values["namespace"], "labels": dict(values["labels"])},
            "spec": {"nodeSelector": _selector(values), "restartPolicy": "Never", "terminationGracePeriodSeconds": 5,
                     "resources": {"requests": dict(budget), "limits": dict(budget)},
                     "initContainers": [{"name": name, "image": values["image"], "restartPolicy": "Always"} for name in values["sidecars"]],
                     "containers": [{"name": "main", "image": values["image"], "resources": {"requests": main, "limits": main_limits}}]}}


def _millicpu(value, where):
    try:
        return _quantity.to_millicpu(str(value))
    except _quantity.QuantityError as exc:
        raise EvidenceError("canary: %s: %s" % (where, exc)) from exc


def _bytes(value, where):
    try:
        return _quantity.to_bytes(str(value))
    except _quantity.QuantityError as exc:
        raise EvidenceError("canary: %s: %s" % (where, exc)) from exc


def _equal(resources, what):
    problems = []
    requests, limits = resources.get("requests") or {}, resources.get("limits") or {}
    for key, convert in (("cpu", _millicpu), ("memory", _bytes)):
        if key not in requests or key not in limits:
            problems.append("%s: %s needs both requests.%s and limits.%s for Guaranteed QoS" % (what, key, key, key))
        elif convert(requests[key], "%s requests.%s" % (what, key)) != convert(limits[key], "%s limits.%s" % (what, key)):
            problems.append("%s: requests.%s %s differs from limits.%s %s (Guaranteed QoS needs them equal)" % (
                what, key, requests[key], key, limits[key]))
    return problems


def qos_problems(pod, exclusive=("main",)):
    """[message] that keep ``pod`` from Guaranteed QoS or its ``exclusive`` containers from whole-CPU slices; [] when it may be sent."""
    kind = (pod or {}).get("kind")
    spec = pod_spec(copy.deepcopy(pod)) if kind in WORKLOAD_KINDS[:-1] else (pod or {}).get("spec") or {}
    containers = list(spec.get("containers") or []) + list(spec.get("initContainers") or [])
    problems = []
    pod_level = spec.get("resources")
    if pod_level:
        problems += _equal(pod_level, "pod .spec.resources")
    else:
        for container in containers:
            problems += _equal(container.get("resources") or {}, "container %s" % container.get("name"))
    names = [c.get("name") for c in containers]
    for name in exclusive:
        if name not in names:
            problems.append("container %s: not in the pod, so it cannot hold an exclusive slice" % name)
            continue
        resources = [c for c in containers if c.get("name") == name][0].get("resources") or {}
        found = _equal(resources, "container %s" % name)
        problems += [p for p in found if p not in problems]
        cpu = (resources.get("requests") or {}).get("cpu")
        if cpu is not None and (_millicpu(cpu, "container %s requests.cpu" % name) % 1000 or _millicpu(cpu, "container %s requests.cpu" % name) <= 0):
            problems.append("container %s: requests.cpu %s is not a whole, positive number of CPUs: it would run on the shared pool, "
                            "not an exclusive slice" % (name, cpu))
    if pod_level and not problems:
        for key, convert, unit in (("cpu", _millicpu, "%dm"), ("memory", _bytes, "%d bytes")):
            total = sum(convert((c.get("resources") or {}).get("requests", {}).get(key, 0), "container %s requests.%s" % (c.get("name"), key))
                        for c in containers)
            budget = convert(pod_level["requests"][key], "pod requests.%s" % key)
            if total > budget:
                problems.append("containers request %s %s in all, more than the pod's budget %s" % (key, unit % total, pod_level["requests"][key]))
    return problems


def _container_ids(pod):
    status = (pod or {}).get("status") or {}
    statuses = list(status.get("containerStatuses") or []) + list(status.get("initContainerStatuses") or [])
    return {entry.get("name"): entry.get("containerID") or "" for entry in statuses}


def _gpus(spec):
    return {key: value for container in list(spec.get("containers") or []) + list(spec.get("initContainers") or [])
            for key, value in (((container.get("resources") or {}).get("limits")) or {}).items() if "gpu" in key}


def subjects(pods):
    """[{"pod", "uid", "node", "container_ids", "stored_read", "stored_resources", "controller", "gpu_requests"}] of the pods read back."""
    found = []
    for pod in pods or []:
        meta, spec = pod.get("metadata") or {}, pod.get("spec") or {}
        owner = next((o for o in meta.get("ownerReferences") or [] if o.get("controller")), None)
        found.append({"pod": "%s/%s" % (meta.get("namespace"), meta.get("name")), "uid": meta.get("uid"), "node": spec.get("nodeName"),
                      "container_ids": _container_ids(pod), "stored_read": True, "stored_resources": spec.get("resources"),
                      "controller": "%s/%s" % (owner.get("kind"), owner.get("name")) if owner else None, "gpu_requests": _gpus(spec)})
    return sorted(found, key=lambda entry: entry["pod"])


def _condition(pod, kind):
    return next((c for c in ((pod or {}).get("status") or {}).get("conditions") or [] if c.get("type") == kind), None)


def admission(pod, events=None, api_error=None):
    """{"admitted", "phase", "node", "failures": [{"layer", "reason", "message"}]} of one canary pod."""
    if api_error:
        return {"admitted": False, "phase": None, "node": None,
                "failures": [{"layer": "api", "reason": str(api_error.get("reason") or api_error.get("status") or "Refused"),
                              "message": str(api_error.get("message") or api_error.get("msg") or "")}]}
    status = (pod or {}).get("status") or {}
    failures = []
    scheduled = _condition(pod, "PodScheduled")
    if scheduled is not None and scheduled.get("status") == "False":
        failures.append({"layer": "scheduler", "reason": scheduled.get("reason") or "Unschedulable", "message": scheduled.get("message") or ""})
    if status.get("phase") == "Failed" or status.get("reason") in KUBELET_REASONS:
        failures.append({"layer": "kubelet", "reason": status.get("reason") or "Failed", "message": status.get("message") or ""})
    seen = set((f["layer"], f["reason"]) for f in failures)
    for event in events or []:
        reason = event.get("reason")
        if reason in KUBELET_REASONS and ("kubelet", reason) not in seen:
            failures.append({"layer": "kubelet", "reason": reason, "message": event.get("message") or ""})
            seen.add(("kubelet", reason))
        elif reason == "FailedScheduling" and not any(f["layer"] == "scheduler" for f in failures):
            failures.append({"layer": "scheduler", "reason": reason, "message": event.get("message") or ""})
    ready = _condition(pod, "Ready")
    admitted = not failures and status.get("phase") == "Running" and ready is not None and ready.get("status") == "True"
    return {"admitted": admitted, "phase": status.get("phase"), "node": ((pod or {}).get("spec") or {}).get("nodeName"), "failures": failures}


def admissions(pods, events=None, api_error=None, expected=1):
    """The admission of a canary with several pods: each pod's (its own events, by uid or name), admitted only when ``expected`` are."""
    if api_error or not pods:
        return admission(None if api_error else {}, events if not pods else None, api_error)
    failures, admitted = [], 0
    for pod in pods:
        meta = pod.get("metadata") or {}
        own = [e for e in events or [] if (e.get("involvedObject") or {}).get("uid") == meta.get("uid")
               or (e.get("involvedObject") or {}).get("name") == meta.get("name")]
        found = admission(pod, own)
        admitted += 1 if found["admitted"] else 0
        failures += [dict(f, message="pod %s: %s" % (meta.get("name"), f["message"])) if len(pods) > 1 else f for f in found["failures"]]
    first = admission(pods[0])
    return {"admitted": not failures and admitted >= int(expected), "phase": first["phase"], "node": first["node"], "failures": failures}
