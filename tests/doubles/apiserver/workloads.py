# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""apps/v1 Deployments and StatefulSets in the double, the scheduler's filters a pinned pod meets, and the
PodLevelResources field drop on create: what kube-apiserver and kube-controller-manager would do.

- Create, the field drop (kubernetes/kubernetes pkg/api/pod/util.go ``dropDisabledPodLevelResourcesFields``,
  called by ``DropDisabledPodFields`` from the pod strategy's ``PrepareForCreate`` and by
  ``DropDisabledTemplateFields`` from the Deployment, StatefulSet, ReplicaSet, DaemonSet and Job
  strategies): with the PodLevelResources gate off and no old object using it, ``spec.resources`` of a
  Pod, or ``spec.template.spec.resources`` of a workload, is set to nil, silently (no warning, 201).
- Create, defaults (pkg/apis/apps/v1/defaults.go ``SetDefaults_Deployment`` / ``SetDefaults_StatefulSet``):
  replicas 1, revisionHistoryLimit 10, a Deployment's progressDeadlineSeconds 600 and RollingUpdate
  25%/25%, a StatefulSet's podManagementPolicy OrderedReady and RollingUpdate partition 0; the status
  is cleared (the strategies' ``PrepareForCreate``).
- Deployment controller (pkg/controller/deployment/sync.go ``getNewReplicaSet``): one ReplicaSet
  ``<deployment>-<pod-template-hash>``, the hash ``rand.SafeEncodeString(fmt.Sprint(fnv32a(template)))``
  (pkg/controller/controller_utils.go ``ComputeHash``; the double hashes the template's JSON, not Go's
  object dump, so the value differs from a cluster's but has its form), the label
  ``pod-template-hash`` on the ReplicaSet, its selector and its template, the annotations
  ``deployment.kubernetes.io/revision`` "1", ``desired-replicas`` and ``max-replicas``, and a controller
  ownerReference to the Deployment; its replicas are the Deployment's.
- ReplicaSet controller for those ReplicaSets (replica_set.go ``manageReplicas``): active pods below
  ``spec.replicas`` are created from the template, ``<replicaset>-<5 characters>`` (``generateName``),
  with a controller ownerReference; above it, the newest are deleted. A pod the kubelet rejected
  (phase Failed) is not active (controller_utils.go ``FilterActivePods`` / ``IsPodActive``), so its
  ReplicaSet creates a replacement as soon as the status update is seen, and the failed pod stays
  (the controller never deletes it; kubernetes#84869: a ReplicaSet keeps creating replacements).
- StatefulSet controller (pkg/controller/statefulset/stateful_set_control.go, OrderedReady): pods
  ``<statefulset>-<ordinal>`` one at a time, the next only once every lower ordinal is Running and Ready;
  labels ``statefulset.kubernetes.io/pod-name``, ``apps.kubernetes.io/pod-index`` and
  ``controller-revision-hash`` (``<statefulset>-<hash>``), ``hostname`` the pod's name and ``subdomain``
  the serviceName (stateful_set_utils.go ``newVersionedStatefulSetPod``); ordinals at or above replicas
  are deleted, highest first.
- Garbage collector (pkg/controller/garbagecollector): a ReplicaSet whose controlling Deployment is gone,
  and a pod whose controlling StatefulSet, or a ReplicaSet this module made, is gone, is deleted (the
  API's default for apps/v1 is Background).
- Scheduler filters (pkg/scheduler/framework/plugins): NodeUnschedulable, NodeAffinity (``nodeSelector``),
  NodeResourcesFit for extended resources (``nvidia.com/gpu``: the requests, or the limits that
  default them, of the pods already on the node and of this one, against ``status.allocatable``). A pod
  no node takes stays Pending with ``PodScheduled`` False, reason ``Unschedulable``, and a Warning event
  ``FailedScheduling`` from default-scheduler, in ``FitError.Error``'s words (framework/types.go):
  ``0/<n> nodes are available: <count> <reason>, ... preemption: 0/<n> nodes are available: <n>
  Preemption is not helpful for scheduling.``; it is tried again on the next change.
- A placed pod is Running and Ready at once (the double runs no kubelet), a status per container; on a
  node a kubelet stand-in registered (annotation ``numa-gate.test/standin``) it is bound and left
  Pending with ``PodScheduled`` True, for that kubelet to admit or reject (tests/doubles/kubelet).
"""

import copy
import hashlib
import json

from apiserver import controllers, follower, objects
from apiserver import status as api_status
from apiserver import store as api_store

GATE = "PodLevelResources"
TEMPLATED = ("deployments", "statefulsets", "replicasets", "daemonsets", "jobs")
HASH_LABEL = "pod-template-hash"
POD_NAME = "statefulset.kubernetes.io/pod-name"
POD_INDEX = "apps.kubernetes.io/pod-index"
REVISION = "controller-revision-hash"
# pkg/scheduler/framework/plugins: each filter's reason, as FitError counts them.
UNSCHEDULABLE = "node(s) were unschedulable"
STANDIN = "numa-gate.test/standin"  # the annotation the kubelet stand-in registers its node with
SELECTOR = "node(s) didn't match Pod's node affinity/selector"


def drop_disabled(resource, obj, enabled):
    """``obj`` as created with the gate ``enabled`` or not: without it, the pod's (or template's) ``spec.resources`` is gone."""
    if enabled:
        return obj
    spec = obj.get("spec") or {}
    if resource in TEMPLATED:
        spec = (spec.get("template") or {}).get("spec") or {}
    elif resource != "pods":
        return obj
    spec.pop("resources", None)
    return obj


def prepare_create(resource, obj):
    """A Deployment or StatefulSet as its registry stores it (defaults, no status); anything else as given."""
    if resource not in ("deployments", "statefulsets"):
        return obj
    spec = obj.setdefault("spec", {})
    spec.setdefault("replicas", 1)
    spec.setdefault("revisionHistoryLimit", 10)
    if resource == "deployments":
        spec.setdefault("progressDeadlineSeconds", 600)
        spec.setdefault("strategy", {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": "25%", "maxSurge": "25%"}})
    else:
        spec.setdefault("podManagementPolicy", "OrderedReady")
        spec.setdefault("updateStrategy", {"type": "RollingUpdate", "rollingUpdate": {"partition": 0}})
    obj.setdefault("metadata", {})["generation"] = 1
    obj["status"] = {}
    return obj


def template_hash(template):
    """rand.SafeEncodeString of the decimal FNV-32a of the template (see the module docstring)."""
    digest = 0x811C9DC5
    for byte in json.dumps(template, sort_keys=True).encode():
        digest = ((digest ^ byte) * 0x01000193) & 0xFFFFFFFF
    return "".join(controllers.NAME_ALPHABET[ord(c) % len(controllers.NAME_ALPHABET)] for c in str(digest))


def _extended(spec):
    """{extended resource: count} a pod requests (requests, else the limits that default them)."""
    found = {}
    for container in spec.get("containers") or []:
        resources = container.get("resources") or {}
        for key, value in dict(resources.get("limits") or {}, **(resources.get("requests") or {})).items():
            if "/" in key and not key.startswith("hugepages-"):
                found[key] = found.get(key, 0) + int(value)
    return found


def place(nodes, pods, spec):
    """(node name, None) for the node the scheduler picks, or (None, FitError's message) when none fits."""
    reasons, fits = {}, []
    wanted, selector = _extended(spec), spec.get("nodeSelector") or {}
    for node in nodes:
        labels = node["metadata"].get("labels") or {}
        if node.get("spec", {}).get("unschedulable") or not objects.is_ready(node):
            reason = UNSCHEDULABLE
        elif any(labels.get(key) != value for key, value in selector.items()):
            reason = SELECTOR
        else:
            name = node["metadata"]["name"]
            used = [_extended(p["spec"]) for p in pods if p["spec"].get("nodeName") == name and objects.is_pod_active(p)]
            allocatable = (node.get("status") or {}).get("allocatable") or {}
            short = sorted(key for key, count in wanted.items() if count + sum(u.get(key, 0) for u in used) > int(allocatable.get(key, 0)))
            reason = "Insufficient %s" % short[0] if short else None
        if reason:
            reasons[reason] = reasons.get(reason, 0) + 1
        else:
            fits.append(node)
    if fits:
        return controllers.pick_node(fits, pods), None
    total = len(nodes)
    said = ", ".join("%d %s" % (count, reason) for reason, count in sorted(reasons.items()))
    return None, ("0/%d nodes are available: %s. preemption: 0/%d nodes are available: %d Preemption is not helpful for scheduling."
                  % (total, said, total, total)) if total else "no nodes available to schedule pods"


def _has_kubelet(nodes, name):
    """Whether a kubelet stand-in registered node ``name``: its pods' status is that kubelet's to write."""
    return any(n["metadata"]["name"] == name and STANDIN in (n["metadata"].get("annotations") or {}) for n in nodes)


def _pod(store, name, namespace, template, owner, labels, extra_spec=None, generate_name=None):
    """A pod from ``template`` for ``owner`` (a controller ownerReference), placed or Pending with its event."""
    nodes, pods = store.list("nodes")[0], store.list("pods")[0]
    spec = copy.deepcopy(template.get("spec") or {})
    spec.update(extra_spec or {})
    spec.setdefault("terminationGracePeriodSeconds", 30)
    node_name, why = place(nodes, pods, spec)
    now = api_store.timestamp()
    pod = objects.pod(name, namespace, now, node_name=node_name, labels=labels, ready=node_name is not None,
                      phase="Running" if node_name else "Pending")
    if node_name and _has_kubelet(nodes, node_name):
        spec["nodeName"] = node_name
        pod["status"] = {"phase": "Pending", "conditions": [{"type": "PodScheduled", "status": "True", "lastProbeTime": None,
                                                             "lastTransitionTime": now}]}
    elif node_name:
        spec["nodeName"] = node_name
        first = pod["status"]["containerStatuses"][0]
        # Each container its own ID, as containerd's: sha256 of "<namespace>/<pod>/<container>" here.
        pod["status"]["containerStatuses"] = [
            dict(first, name=c.get("name", "main"), image=c.get("image", ""),
                 containerID="containerd://" + hashlib.sha256(("%s/%s/%s" % (namespace, name, c.get("name"))).encode()).hexdigest())
            for c in spec.get("containers") or []]
    else:
        pod["status"] = {"phase": "Pending", "conditions": [{"type": "PodScheduled", "status": "False", "reason": "Unschedulable",
                                                             "message": why, "lastProbeTime": None, "lastTransitionTime": now}]}
    pod["status"]["qosClass"] = objects.qos_class(spec)
    pod["spec"] = spec
    pod["metadata"]["ownerReferences"] = [owner]
    if generate_name:
        pod["metadata"]["generateName"] = generate_name
    created = store.create("pods", pod)
    if not node_name:
        store.create("events", objects.event({"kind": "Pod", "namespace": namespace, "name": name, "uid": created["metadata"]["uid"],
                                              "apiVersion": "v1"}, "FailedScheduling", why, now, "Warning", "default-scheduler"))
    return created


def _owned(pods, uid):
    return [p for p in pods if (objects.controller_ref(p) or {}).get("uid") == uid]


class WorkloadController(follower.EventFollower):
    """A thread following the store's event log: Deployments, their ReplicaSets, StatefulSets, and their garbage."""

    def __init__(self, store, rng=None):
        super().__init__(store, rng)
        self.made = set()  # the uids of the ReplicaSets this controller created

    def before_batch(self):
        """Deletions whose grace period has passed are carried out first (the kubelet's part)."""
        self.store.reap()

    def handle(self, events):
        with self.store.cond:
            self._collect()
            for deployment in self.store.list("deployments")[0]:
                self._deployment(deployment)
            for replicaset in self.store.list("replicasets")[0]:
                if replicaset["metadata"]["uid"] in self.made:
                    self._replicas(replicaset)
            for statefulset in self.store.list("statefulsets")[0]:
                self._statefulset(statefulset)
            self._retry_pending()
        self.skip_own_events()

    def _collect(self):
        deployments = {d["metadata"]["uid"] for d in self.store.list("deployments")[0]}
        for replicaset in self.store.list("replicasets")[0]:
            ref = objects.controller_ref(replicaset) or {}
            if ref.get("kind") == "Deployment" and ref.get("uid") not in deployments:
                self.store.delete("replicasets", replicaset["metadata"]["namespace"], replicaset["metadata"]["name"])
        owners = {r["metadata"]["uid"] for r in self.store.list("replicasets")[0]} | {s["metadata"]["uid"] for s in self.store.list("statefulsets")[0]}
        for pod in self.store.list("pods")[0]:
            ref = objects.controller_ref(pod) or {}
            mine = ref.get("kind") == "StatefulSet" or ref.get("uid") in self.made
            if mine and ref.get("uid") not in owners and not pod["metadata"].get("deletionTimestamp"):
                self.store.delete("pods", pod["metadata"]["namespace"], pod["metadata"]["name"])

    def _deployment(self, deployment):
        meta, spec = deployment["metadata"], deployment["spec"]
        if meta.get("deletionTimestamp"):
            return
        template = copy.deepcopy(spec.get("template") or {})
        pod_hash = template_hash(template)
        name = "%s-%s" % (meta["name"], pod_hash)
        labels = dict((template.get("metadata") or {}).get("labels") or {}, **{HASH_LABEL: pod_hash})
        template.setdefault("metadata", {})["labels"] = labels
        replicas = int(spec.get("replicas", 1))
        try:
            replicaset = self.store.get("replicasets", meta["namespace"], name)
        except api_status.ApiError:
            selector = copy.deepcopy(spec.get("selector") or {})
            selector.setdefault("matchLabels", {})[HASH_LABEL] = pod_hash
            replicaset = self.store.create("replicasets", {"metadata": {
                "name": name, "namespace": meta["namespace"], "labels": labels,
                "annotations": {"deployment.kubernetes.io/revision": "1", "deployment.kubernetes.io/desired-replicas": str(replicas),
                                "deployment.kubernetes.io/max-replicas": str(replicas + 1)},
                "ownerReferences": [objects.owner_reference("Deployment", meta["name"], meta["uid"])]},
                "spec": {"replicas": replicas, "selector": selector, "template": template}, "status": {}})
            self.made.add(replicaset["metadata"]["uid"])
        if int(replicaset["spec"].get("replicas", 1)) != replicas:
            replicaset["spec"]["replicas"] = replicas
            self.store.update("replicasets", replicaset, check_version=False)

    def _replicas(self, replicaset):
        meta = replicaset["metadata"]
        pods = self.store.list("pods", meta["namespace"])[0]
        active = _owned([p for p in pods if objects.is_pod_active(p)], meta["uid"])
        want = int(replicaset["spec"].get("replicas", 1))
        owner = objects.owner_reference("ReplicaSet", meta["name"], meta["uid"])
        labels = (replicaset["spec"]["template"].get("metadata") or {}).get("labels")
        for dummy in range(want - len(active)):
            suffix = "".join(self.rng.choice(controllers.NAME_ALPHABET) for dummy in range(5))
            _pod(self.store, "%s-%s" % (meta["name"], suffix), meta["namespace"], replicaset["spec"]["template"], owner, labels,
                 generate_name="%s-" % meta["name"])
        for pod in sorted(active, key=lambda p: p["metadata"]["creationTimestamp"], reverse=True)[:max(0, len(active) - want)]:
            self.store.delete("pods", pod["metadata"]["namespace"], pod["metadata"]["name"])

    def _statefulset(self, statefulset):
        meta, spec = statefulset["metadata"], statefulset["spec"]
        if meta.get("deletionTimestamp"):
            return
        template, replicas = spec.get("template") or {}, int(spec.get("replicas", 1))
        revision = "%s-%s" % (meta["name"], template_hash(template))
        owner = objects.owner_reference("StatefulSet", meta["name"], meta["uid"])
        pods = {p["metadata"]["name"]: p for p in _owned(self.store.list("pods", meta["namespace"])[0], meta["uid"])}
        for ordinal in range(replicas):
            name = "%s-%d" % (meta["name"], ordinal)
            pod = pods.get(name)
            if pod is None:
                labels = dict((template.get("metadata") or {}).get("labels") or {}, **{POD_NAME: name, POD_INDEX: str(ordinal), REVISION: revision})
                extra = {"hostname": name, "subdomain": spec["serviceName"]} if spec.get("serviceName") else {"hostname": name}
                pod = _pod(self.store, name, meta["namespace"], template, owner, labels, extra)
            if not (pod["status"].get("phase") == "Running" and objects.is_ready(pod)):
                return  # OrderedReady: the next ordinal waits for this one
        for name in sorted(pods, key=lambda n: int(n.rsplit("-", 1)[-1]), reverse=True):
            if int(name.rsplit("-", 1)[-1]) >= replicas and not pods[name]["metadata"].get("deletionTimestamp"):
                self.store.delete("pods", meta["namespace"], name)
                return

    def _retry_pending(self):
        """The scheduling queue: a Pending pod of ours is tried again on each change."""
        pods = self.store.list("pods")[0]
        for pod in pods:
            ref = objects.controller_ref(pod) or {}
            if pod["spec"].get("nodeName") or pod["metadata"].get("deletionTimestamp") or not (
                    ref.get("kind") == "StatefulSet" or ref.get("uid") in self.made):
                continue
            node_name, dummy = place(self.store.list("nodes")[0], pods, pod["spec"])
            if node_name:
                placed = objects.pod(pod["metadata"]["name"], pod["metadata"]["namespace"], api_store.timestamp(), node_name=node_name)
                pod["spec"]["nodeName"] = node_name
                pod["status"] = dict(placed["status"], qosClass=objects.qos_class(pod["spec"]))
                if _has_kubelet(self.store.list("nodes")[0], node_name):
                    pod["status"] = {"phase": "Pending", "qosClass": pod["status"]["qosClass"], "conditions": [
                        c for c in placed["status"]["conditions"] if c["type"] == "PodScheduled"]}
                self.store.update("pods", pod, check_version=False)


def status(store, resource, obj):
    """A Deployment's or StatefulSet's status from its pods now (what its controller would have written)."""
    pods = store.list("pods", obj["metadata"]["namespace"])[0]
    if resource == "deployments":
        sets = [r["metadata"]["uid"] for r in store.list("replicasets", obj["metadata"]["namespace"])[0]
                if (objects.controller_ref(r) or {}).get("uid") == obj["metadata"]["uid"]]
        owned = [p for uid in sets for p in _owned(pods, uid)]
    else:
        owned = _owned(pods, obj["metadata"]["uid"])
    active = [p for p in owned if objects.is_pod_active(p)]
    ready = sum(1 for p in active if objects.is_ready(p))
    found = {"observedGeneration": obj["metadata"].get("generation", 1), "replicas": len(active), "readyReplicas": ready,
             "availableReplicas": ready, "updatedReplicas": len(active)}
    return {key: value for key, value in found.items() if value or key in ("observedGeneration", "replicas")}
