# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The owning controller's answer to an admission failure: the probe the canary sends, and what was seen (pure).

Public: `probe`, `observed`, `PROBE_KEYS`, `LABELS`.

`probe(params)`: a Deployment of one replica (its ReplicaSet the owning controller of the pods) whose pod cannot fit one
NUMA node of the node: a pod budget of one CPU more than the plan's largest single-NUMA shape (its
``allocatable`` mapping, each node's ``largest_pod``, or ``{"cpu": N}``), the main container holding it
all, exclusive (Guaranteed, whole CPUs), pinned to the node like the canary and labelled apart from it,
so the kubelet's topology manager (single-numa-node) rejects it with TopologyAffinityError.
`observed(pods, events, window_s, waited_s, left)`: the failure grid's row: the pods the controller
created in the window and how many failed, the first kubelet rejection (reason and message), the
events by reason (a kubelet rejection's only for a pod listed Failed), the replacements (pods created after the first), and what was left after the
clean-up (``left``: ``Kind/name`` of each object still there; a row with something left says so).
"""

from __future__ import annotations

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import quantity as _quantity
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence import canary
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence.nodefs import EvidenceError

PROBE_KEYS = ("name", "namespace", "node", "pool_selector", "image", "largest", "memory")
LABELS = {"app.kubernetes.io/name": "numa-gate-admission-probe"}


def _largest_cpu(largest):
    """The plan's largest single-NUMA pod's CPUs, from its allocatable mapping, a node's entry or {"cpu": N}."""
    if isinstance(largest, dict) and "cpu" in largest:
        found = [largest["cpu"]]
    elif isinstance(largest, dict) and largest:
        found = [(entry or {}).get("largest_pod", {}).get("cpu") if isinstance(entry, dict) else None for entry in largest.values()]
    else:
        found = []
    if not found or any(isinstance(cpu, bool) or not isinstance(cpu, int) or cpu < 1 for cpu in found):
        raise EvidenceError("canary admission failure: largest must be the plan's allocatable mapping (each NUMA node's largest_pod.cpu, "
                            "a whole number of CPUs, 1 or more) or {\"cpu\": N}, got %r" % (largest,), value=largest)
    return max(found)


def probe(params):
    """{"manifest", "selector", "shape", "largest_cpu"}: the probe to send (see the module docstring)."""
    params = dict(params or {})
    unknown = sorted(set(params) - set(PROBE_KEYS))
    if unknown:
        raise EvidenceError("canary admission failure: unknown parameters %s (known: %s)" % (", ".join(unknown), ", ".join(PROBE_KEYS)),
                            keys=unknown)
    memory = str(params.get("memory") or "1Gi")
    try:
        _quantity.to_bytes(memory)
    except _quantity.QuantityError as exc:
        raise EvidenceError("canary admission failure: memory: %s" % exc, value=memory) from exc
    largest = _largest_cpu(params.get("largest"))
    shape = {"cpu": str(largest + 1), "memory": memory}
    name = params.get("name") or "pod-numa-admission-probe"
    template = {"metadata": {"labels": dict(LABELS)},
                "spec": {"terminationGracePeriodSeconds": 0,
                         "resources": {"requests": dict(shape), "limits": dict(shape)},
                         "containers": [{"name": "main", "image": params.get("image") or canary.IMAGE,
                                         "resources": {"requests": dict(shape), "limits": dict(shape)}}]}}
    workload = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name, "namespace": params.get("namespace") or "default"},
                "spec": {"replicas": 1, "selector": {"matchLabels": dict(LABELS)}, "template": template}}
    sent = canary.manifest({"name": name, "namespace": params.get("namespace"), "node": params.get("node"),
                            "pool_selector": params.get("pool_selector"), "labels": dict(LABELS), "workload": workload})
    return {"manifest": sent, "selector": dict(LABELS), "shape": shape, "largest_cpu": largest}


def _created(pod):
    return ((pod or {}).get("metadata") or {}).get("creationTimestamp") or ""


def _events(events, phases):
    """Events of the listed pods by (type, reason, message) with counts; a kubelet rejection's only for a pod listed Failed, so the events
    and the pods agree when the events are read after the pods (the kubelet records the event before it sets the status)."""
    grouped = {}
    for event in events or []:
        name = (event.get("involvedObject") or {}).get("name")
        if name not in phases or event.get("reason") in canary.KUBELET_REASONS and phases[name] != "Failed":
            continue
        key = (event.get("type") or "", event.get("reason") or "", event.get("message") or "")
        grouped[key] = grouped.get(key, 0) + int(event.get("count") or 1)
    return [{"type": kind, "reason": reason, "message": message, "count": count} for (kind, reason, message), count in sorted(grouped.items())]


def observed(pods, events=None, window_s=0, waited_s=0, left=None):
    """The row (see the module docstring): {"created", "failed", "replacements", "rejection", "pods", "events", "left", "row", ...}."""
    pods = sorted(pods or [], key=lambda pod: (_created(pod), (pod.get("metadata") or {}).get("name") or ""))
    listed = []
    for pod in pods:
        status = pod.get("status") or {}
        listed.append({"pod": "%s/%s" % ((pod.get("metadata") or {}).get("namespace"), (pod.get("metadata") or {}).get("name")),
                       "node": (pod.get("spec") or {}).get("nodeName"), "phase": status.get("phase"), "reason": status.get("reason")})
    failed = [pod for pod in pods if (pod.get("status") or {}).get("phase") == "Failed"]
    first = next((pod for pod in failed if (pod.get("status") or {}).get("reason") in canary.KUBELET_REASONS), None)
    rejection = None
    if first is not None:
        rejection = {"layer": "kubelet", "reason": first["status"]["reason"], "message": first["status"].get("message") or ""}
    phases = {(pod.get("metadata") or {}).get("name"): (pod.get("status") or {}).get("phase") for pod in pods}
    left = sorted(left or [])
    found = {"created": len(pods), "failed": len(failed), "replacements": max(0, len(pods) - 1), "rejection": rejection,
             "window_s": window_s, "waited_s": waited_s, "pods": listed, "events": _events(events, phases), "left": left}
    if rejection is None:
        said = "no pod was rejected by the kubelet in %s s (%d created, %d failed): the rejection was not observed" % (window_s, len(pods), len(failed))
    else:
        said = "%s at the kubelet; the controller created %d pods in %s s, %d failed, %d replacements" % (
            rejection["reason"], len(pods), window_s, len(failed), found["replacements"])
    found["row"] = said + ("; left after clean-up: %s" % ", ".join(left) if left else "; nothing left after clean-up")
    return found
