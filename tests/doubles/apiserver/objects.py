# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The objects tests seed into the API server double, shaped like the real API's objects.

Wording copied from the real components:
- Node Ready condition set by the kubelet (pkg/kubelet/nodestatus/setters.go ReadyCondition):
  ``True`` / reason ``KubeletReady`` / ``kubelet is posting ready status``; ``False`` / reason
  ``KubeletNotReady``. ``Unknown`` / reason ``NodeStatusUnknown`` / ``Kubelet stopped posting node
  status.`` is what the node lifecycle controller writes when the kubelet goes quiet
  (pkg/controller/nodelifecycle/node_lifecycle_controller.go).
- Mirror pods carry the annotation ``kubernetes.io/config.mirror`` and a controller
  ownerReference to their Node (pkg/kubelet/pod/mirror_client.go); kubectl drain and k8s_drain
  skip them by that annotation.
- Pods default ``terminationGracePeriodSeconds`` to 30 (pkg/apis/core/v1/defaults.go).
- Events (core/v1) as client-go's recorder writes them (client-go tools/record event.go
  ``makeEvent`` / ``generateEvent``): name ``<object name>.<creation time in ns, hex>``, the
  involved object's namespace or ``default`` for a cluster-scoped one, ``count`` 1, first and
  last timestamp the same, ``source`` the recorder's component and host. The involved object is an
  ObjectReference as client-go's ``reference.GetReference`` builds it (kind, namespace, name,
  uid, apiVersion, resourceVersion); the kubelet's own node events use its ``nodeRef``
  (pkg/kubelet/kubelet.go: kind Node, the node name as uid, no apiVersion), so ``kubectl events
  --for node/X``, which also selects ``involvedObject.apiVersion=v1``, does not show them.
"""

import time

from apiserver import node_resources

NODE_READY = {
    "True": ("KubeletReady", "kubelet is posting ready status"),
    "False": ("KubeletNotReady", "container runtime is down"),
    "Unknown": ("NodeStatusUnknown", "Kubelet stopped posting node status."),
}
MIRROR_ANNOTATION = "kubernetes.io/config.mirror"
OWNER_API_VERSIONS = {"DaemonSet": "apps/v1", "ReplicaSet": "apps/v1", "StatefulSet": "apps/v1", "Job": "batch/v1",
                      "ReplicationController": "v1", "Node": "v1"}


def ready_condition(status, now, message=None):
    """The Node ``Ready`` condition for ``status`` (``"True"``, ``"False"`` or ``"Unknown"``)."""
    if status not in NODE_READY:
        raise ValueError("node Ready status must be True, False or Unknown, not %r" % (status,))
    reason, default_message = NODE_READY[status]
    return {"type": "Ready", "status": status, "lastHeartbeatTime": now, "lastTransitionTime": now,
            "reason": reason, "message": message or default_message}


def node(name, now, ready="True", unschedulable=False, labels=None, kubelet_version="v1.37.1", address="127.0.0.1", kubelet_port=10250,
         resources=None):
    """A Node as a kubelet registers it (pkg/kubelet/kubelet_node_status.go initialNode) with a Ready condition;
    ``resources`` (``capacity``, ``allocatable``, ``reserved``, ``eviction_hard``) as node_resources.py computes them."""
    capacity, allocatable = node_resources.resources(**(resources or {}))
    node_labels = {"kubernetes.io/hostname": name, "kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64",
                   "beta.kubernetes.io/os": "linux", "beta.kubernetes.io/arch": "amd64"}
    node_labels.update(labels or {})
    spec = {"unschedulable": True} if unschedulable else {}
    return {
        "kind": "Node", "apiVersion": "v1",
        "metadata": {"name": name, "labels": node_labels, "annotations": {"node.alpha.kubernetes.io/ttl": "0"}},
        "spec": spec,
        "status": {
            "capacity": capacity,
            "allocatable": allocatable,
            "conditions": [ready_condition(ready, now)],
            "addresses": [{"type": "InternalIP", "address": address}, {"type": "Hostname", "address": name}],
            "daemonEndpoints": {"kubeletEndpoint": {"Port": kubelet_port}},
            "nodeInfo": {"kubeletVersion": kubelet_version, "kubeProxyVersion": "", "operatingSystem": "linux",
                         "architecture": "amd64", "containerRuntimeVersion": "containerd://2.1.0",
                         "osImage": "Debian GNU/Linux 12 (bookworm)", "kernelVersion": "6.1.0",
                         "machineID": "", "systemUUID": "", "bootID": ""},
        },
    }


def object_reference(obj, field_path=None):
    """reference.GetReference for a stored object: the ObjectReference an event's involvedObject holds."""
    meta = obj["metadata"]
    ref = {"kind": obj["kind"], "name": meta["name"], "uid": meta["uid"], "apiVersion": obj["apiVersion"], "resourceVersion": meta["resourceVersion"]}
    if meta.get("namespace"):
        ref["namespace"] = meta["namespace"]
    if field_path:
        ref["fieldPath"] = field_path
    return ref


def kubelet_node_reference(name):
    """The kubelet's ``nodeRef``, the involvedObject of the events it records about its node."""
    return {"kind": "Node", "name": name, "uid": name}


def event(involved, reason, message, now, event_type="Normal", component="kubelet", host=None):
    """A core/v1 Event about ``involved`` (an ObjectReference) as the recorder writes it (see the module docstring)."""
    return {"kind": "Event", "apiVersion": "v1",
            "metadata": {"name": "%s.%x" % (involved["name"], time.time_ns()), "namespace": involved.get("namespace") or "default"},
            "involvedObject": dict(involved), "reason": reason, "message": message,
            "source": {"component": component, "host": host} if host else {"component": component},
            "firstTimestamp": now, "lastTimestamp": now, "count": 1, "type": event_type, "eventTime": None,
            "reportingComponent": "", "reportingInstance": ""}


def controller_ref(obj):
    """The ownerReference marked ``controller`` (metav1.GetControllerOf), or None."""
    for ref in obj["metadata"].get("ownerReferences") or []:
        if ref.get("controller"):
            return ref
    return None


def is_ready(obj):
    """The object's ``Ready`` condition is True (podutil.IsPodReady for a pod; the kubelet's Ready for a node)."""
    return any(c.get("type") == "Ready" and c.get("status") == "True" for c in (obj.get("status") or {}).get("conditions") or [])


def is_pod_active(pod):
    """controller.IsPodActive (pkg/controller/controller_utils.go): not Succeeded, not Failed, not being deleted."""
    return (pod.get("status") or {}).get("phase") not in ("Succeeded", "Failed") and not pod["metadata"].get("deletionTimestamp")


def owner_reference(kind, name, uid):
    """A controller ownerReference as controllers set it (metav1.NewControllerRef)."""
    return {"apiVersion": OWNER_API_VERSIONS.get(kind, "apps/v1"), "kind": kind, "name": name, "uid": uid,
            "controller": True, "blockOwnerDeletion": True}


def pod(name, namespace, now, node_name=None, labels=None, ready=True, phase="Running", grace=30, emptydir=False, annotations=None):
    """A scheduled, running pod with one container; ``ready`` sets its Ready condition."""
    spec = {"containers": [{"name": "main", "image": "registry.k8s.io/pause:3.10", "resources": {}}],
            "restartPolicy": "Always", "terminationGracePeriodSeconds": grace, "dnsPolicy": "ClusterFirst",
            "schedulerName": "default-scheduler", "serviceAccountName": "default", "enableServiceLinks": True,
            "preemptionPolicy": "PreemptLowerPriority", "priority": 0}
    if node_name:
        spec["nodeName"] = node_name
    if emptydir:
        spec["volumes"] = [{"name": "scratch", "emptyDir": {}}]
        spec["containers"][0]["volumeMounts"] = [{"name": "scratch", "mountPath": "/scratch"}]
    flag = "True" if ready else "False"
    running = phase == "Running"
    status = {
        "phase": phase,
        "conditions": [{"type": t, "status": flag if t in ("Ready", "ContainersReady") else "True", "lastProbeTime": None, "lastTransitionTime": now}
                       for t in ("PodReadyToStartContainers", "Initialized", "Ready", "ContainersReady", "PodScheduled")],
        "hostIP": "127.0.0.1", "podIP": "10.244.0.10", "startTime": now, "qosClass": "BestEffort",
        "containerStatuses": [{"name": "main", "ready": bool(ready and running), "restartCount": 0, "started": running,
                               "image": "registry.k8s.io/pause:3.10", "imageID": "", "containerID": "containerd://0",
                               "state": {"running": {"startedAt": now}} if running else {"waiting": {"reason": "ContainerCreating"}}}],
    }
    metadata = {"name": name, "namespace": namespace, "labels": dict(labels or {})}
    if annotations:
        metadata["annotations"] = dict(annotations)
    return {"kind": "Pod", "apiVersion": "v1", "metadata": metadata, "spec": spec, "status": status}


def workload(kind, name, namespace, labels, replicas=1):
    """A DaemonSet or ReplicaSet that owns pods (enough for owner lookups)."""
    template = {"metadata": {"labels": dict(labels)}, "spec": {"containers": [{"name": "main", "image": "registry.k8s.io/pause:3.10"}]}}
    spec = {"selector": {"matchLabels": dict(labels)}, "template": template}
    if kind == "ReplicaSet":
        spec["replicas"] = replicas
    return {"kind": kind, "apiVersion": "apps/v1", "metadata": {"name": name, "namespace": namespace, "labels": dict(labels), "generation": 1},
            "spec": spec, "status": {}}


def workload_status(obj, owned_pods):
    """The status the DaemonSet / ReplicaSet controllers would report for the pods they own now
    (apps/v1 DaemonSetStatus and ReplicaSetStatus: the integer counts are always present)."""
    live = [p for p in owned_pods if not p["metadata"].get("deletionTimestamp")]
    ready = sum(1 for p in live if is_ready(p))
    generation = obj["metadata"].get("generation", 1)
    if obj["kind"] == "DaemonSet":
        return {"currentNumberScheduled": len(live), "desiredNumberScheduled": len(live), "numberMisscheduled": 0, "numberReady": ready,
                "numberAvailable": ready, "updatedNumberScheduled": len(live), "observedGeneration": generation}
    # replica_set_utils.go calculateStatus over FilterActivePods: finished pods are not replicas either.
    active = [p for p in owned_pods if is_pod_active(p)]
    ready = sum(1 for p in active if is_ready(p))
    return {"replicas": len(active), "fullyLabeledReplicas": len(active), "readyReplicas": ready, "availableReplicas": ready,
            "observedGeneration": generation}


def pdb(name, namespace, match_labels, min_available=None, max_unavailable=None):
    """A policy/v1 PodDisruptionBudget; its status is computed by the double on every read."""
    if (min_available is None) == (max_unavailable is None):
        raise ValueError("a PodDisruptionBudget takes exactly one of min_available and max_unavailable")
    spec = {"selector": {"matchLabels": dict(match_labels)}}
    if min_available is not None:
        spec["minAvailable"] = min_available
    else:
        spec["maxUnavailable"] = max_unavailable
    return {"kind": "PodDisruptionBudget", "apiVersion": "policy/v1",
            "metadata": {"name": name, "namespace": namespace, "generation": 1}, "spec": spec, "status": {}}


def qos_class(spec):
    """The pod's QoS class as pkg/apis/core/helper/qos GetPodQOS decides it for cpu and memory: BestEffort
    with no requests or limits anywhere; Guaranteed when every container limits both, with requests equal
    to the limits (a missing request defaults to the limit); Burstable otherwise. With pod-level
    ``spec.resources`` (PodLevelResources) those alone decide. Quantities are compared as written."""
    def requests_limits(resources):
        limits = {k: v for k, v in (resources.get("limits") or {}).items() if k in ("cpu", "memory")}
        requests = {k: v for k, v in (resources.get("requests") or {}).items() if k in ("cpu", "memory")}
        return requests, limits

    if spec.get("resources"):
        sets = [requests_limits(spec["resources"])]
    else:
        sets = [requests_limits(c.get("resources") or {}) for c in list(spec.get("initContainers") or []) + list(spec.get("containers") or [])]
    if not any(requests or limits for requests, limits in sets):
        return "BestEffort"
    guaranteed = all(set(limits) == {"cpu", "memory"} and all(requests.get(k, v) == v for k, v in limits.items()) for requests, limits in sets)
    return "Guaranteed" if guaranteed else "Burstable"
