# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A kube-scheduler STAND-IN's binding for one node (tests only; neither the scheduler nor the kubelet).

No kube-scheduler runs in the tests, and the API server double binds nothing, so a pod sent with
a nodeSelector (the canary) would stay Pending. With `--bind-pods` each kubelet stand-in binds the
pending pods meant for its own node, the way the default scheduler's filters would let it:
- spec.nodeName empty, schedulerName default-scheduler (or unset), not being deleted;
- NodeUnschedulable: the node is not cordoned (pkg/scheduler/framework/plugins/nodeunschedulable);
- NodeAffinity: every nodeSelector label equals the node's (plugins/nodeaffinity; required
  nodeAffinity terms are not read);
- NodeResourcesFit: the pod's cpu and memory requests (pod-level `.spec.resources` when set,
  component-helpers resource.PodRequests; else the containers' sum, or the largest init container)
  fit the node's allocatable minus the requests of the non-terminated pods already bound to it
  (plugins/noderesources/fit.go). A pod that does not fit stays Pending (the scheduler's
  Unschedulable condition and its "0/N nodes are available" message are not written).
The binding is POST pods/<name>/binding (pkg/registry/core/pod/storage BindingREST); where the API
answers 404 (the double has no binding subresource), a merge patch of spec.nodeName conditioned on
the resourceVersion (the real API refuses that change of an existing pod's spec).
"""

import json
import urllib.parse

import standin_admission as adm


def requests_of(pod):
    """{cpu: Fraction CPUs, memory: bytes} the scheduler counts for a pod."""
    spec = pod.get("spec") or {}
    if adm.is_pod_level(pod):
        res = spec.get("resources") or {}
        merged = dict(res.get("limits") or {}, **(res.get("requests") or {}))
        return {key: adm.quantity(merged.get(key, 0)) for key in ("cpu", "memory")}
    total = {"cpu": 0, "memory": 0}
    for container in spec.get("containers") or []:
        for key in total:
            total[key] += adm.quantity(((container.get("resources") or {}).get("requests") or {}).get(key, 0))
    for container in spec.get("initContainers") or []:
        for key in total:
            total[key] = max(total[key], adm.quantity(((container.get("resources") or {}).get("requests") or {}).get(key, 0)))
    return total


def fits(pod, node, bound):
    """NodeResourcesFit over cpu and memory."""
    allocatable = (node.get("status") or {}).get("allocatable") or {}
    want = requests_of(pod)
    for key in ("cpu", "memory"):
        used = sum(requests_of(p)[key] for p in bound)
        if key in allocatable and used + want[key] > adm.quantity(allocatable[key]):
            return False
    return True


def bind_pending(kubelet, log):
    """One pass: bind every pending pod meant for this node; returns the names bound."""
    code, body = kubelet.request("GET", "/api/v1/nodes/%s" % kubelet.node_name)
    if code != 200:
        return []
    node = json.loads(body)
    if (node.get("spec") or {}).get("unschedulable"):
        return []
    labels = (node.get("metadata") or {}).get("labels") or {}
    code, body = kubelet.request("GET", "/api/v1/pods")
    if code != 200:
        return []
    pods = json.loads(body).get("items") or []
    bound = [p for p in pods if (p.get("spec") or {}).get("nodeName") == kubelet.node_name
             and (p.get("status") or {}).get("phase") not in ("Failed", "Succeeded")]
    done = []
    for pod in pods:
        spec, meta = pod.get("spec") or {}, pod["metadata"]
        if spec.get("nodeName") or meta.get("deletionTimestamp") or spec.get("schedulerName", "default-scheduler") != "default-scheduler":
            continue
        selector = spec.get("nodeSelector") or {}
        if not selector or any(labels.get(k) != v for k, v in selector.items()):
            continue
        if not fits(pod, node, bound):
            log("W", "Pod does not fit this node's allocatable; left Pending", pod="%s/%s" % (meta.get("namespace"), meta["name"]))
            continue
        namespace = meta.get("namespace", "default")
        binding = {"apiVersion": "v1", "kind": "Binding", "metadata": {"name": meta["name"], "namespace": namespace, "uid": meta["uid"]},
                   "target": {"apiVersion": "v1", "kind": "Node", "name": kubelet.node_name}}
        path = "/api/v1/namespaces/%s/pods/%s" % (namespace, urllib.parse.quote(meta["name"]))
        code = kubelet.request("POST", path + "/binding", binding)[0]
        if code == 404:
            patch = {"metadata": {"resourceVersion": meta["resourceVersion"]}, "spec": {"nodeName": kubelet.node_name}}
            code = kubelet.request("PATCH", path, patch, "application/merge-patch+json")[0]
        if 200 <= code < 300:
            bound.append(pod)
            done.append(meta["name"])
            log("I", "Bound pod to this node (scheduler stand-in)", pod="%s/%s" % (namespace, meta["name"]))
    return done
