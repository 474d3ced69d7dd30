# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What kube-controller-manager's ReplicaSet controller and kube-scheduler would do, for a double that has neither.

Off unless asked for (``--controllers`` on the command line, ``ApiServerDouble(controllers=True)``):
tests of the API itself see only what clients did. With it, a drain behaves as on a cluster: a
ReplicaSet's evicted pod comes back on another node, so a PodDisruptionBudget over a Deployment's
pods spread on two nodes lets both nodes drain one after the other.

- ReplicaSet controller (pkg/controller/replicaset/replica_set.go ``syncReplicaSet`` /
  ``manageReplicas``): it counts only active pods (pkg/controller/controller_utils.go
  ``FilterActivePods`` / ``IsPodActive``: not Succeeded, not Failed, no ``deletionTimestamp``), so
  as soon as a pod it owns starts terminating (an eviction or a graceful delete sets
  ``deletionTimestamp``), finishes, or is gone, and fewer active pods than ``spec.replicas``
  remain, it creates the missing ones from the pod template with a generated name
  (``<replicaset>-`` and five characters of apiserver/pkg/storage/names SimpleNameGenerator's
  alphabet) and a controller ownerReference, while the old pod is still terminating. The double
  copies the old pod's spec, which is what the template gave it. (A Deployment's
  ``podReplacementPolicy: TerminationComplete``, KEP-3973, would wait; the double has no Deployments.)
- Scheduler (pkg/scheduler/framework/plugins/nodeunschedulable and the Ready filter of the node
  lifecycle taints): only a Ready node that is not ``spec.unschedulable``; among those the one
  with the fewest pods (NodeResourcesBalancedAllocation's effect for equal pods), then by name.
  With none, the pod stays Pending with ``PodScheduled`` False, reason ``Unschedulable``, and is
  tried again whenever the store changes (the scheduling queue moves unschedulable pods back on
  node events, pkg/scheduler/backend/queue), so it lands once a node is uncordoned.
- The kubelet then starts it: the double marks a placed pod Running and Ready at once.
"""

import copy

from apiserver import follower, objects
from apiserver import status as api_status
from apiserver import store as api_store

NAME_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"


def pick_node(nodes, pods):
    """The scheduler's choice for one pod: a Ready, schedulable node with the fewest pods; None if none fits."""
    load = {}
    for pod in pods:
        name = pod["spec"].get("nodeName")
        if name:
            load[name] = load.get(name, 0) + 1
    fits = [n["metadata"]["name"] for n in nodes if objects.is_ready(n) and not n.get("spec", {}).get("unschedulable")]
    return min(fits, key=lambda name: (load.get(name, 0), name)) if fits else None


def replacement(deleted, node_name, suffix, total_nodes):
    """The pod the ReplicaSet controller creates for ``deleted``, placed on ``node_name`` (None: unschedulable)."""
    meta = deleted["metadata"]
    ref = objects.controller_ref(deleted)
    now = api_store.timestamp()
    pod = objects.pod("%s-%s" % (ref["name"], suffix), meta["namespace"], now, node_name=node_name, labels=meta.get("labels"),
                      ready=node_name is not None, phase="Running" if node_name else "Pending")
    spec = copy.deepcopy(deleted["spec"])
    spec.pop("nodeName", None)
    if node_name:
        spec["nodeName"] = node_name
    pod["spec"] = spec
    pod["metadata"]["ownerReferences"] = [copy.deepcopy(ref)]
    pod["metadata"]["generateName"] = "%s-" % ref["name"]
    if not node_name:
        pod["status"] = {"phase": "Pending", "qosClass": deleted.get("status", {}).get("qosClass", "BestEffort"), "conditions": [{
            "type": "PodScheduled", "status": "False", "reason": "Unschedulable", "lastProbeTime": None, "lastTransitionTime": now,
            "message": "0/%d nodes are available: %d node(s) were unschedulable or not ready." % (total_nodes, total_nodes)}]}
    return pod


class ReplicaSetController(follower.EventFollower):
    """A thread following the store's event log and replacing a ReplicaSet's deleted pods."""

    def __init__(self, store, rng=None):
        super().__init__(store, rng)
        self.created = []

    def handle(self, events):
        """manageReplicas for each pod that went, then the scheduler's pass over what is pending."""
        for dummy, resource, event, obj in events:
            if resource == "pods" and (event == "DELETED" or not objects.is_pod_active(obj)):
                self._replace(obj)
        self._schedule_pending()

    def _schedule_pending(self):
        pods = self.store.list("pods")[0]
        for pod in pods:
            if pod["spec"].get("nodeName") or pod["metadata"].get("deletionTimestamp") or "%s/%s" % (
                    pod["metadata"]["namespace"], pod["metadata"]["name"]) not in self.created:
                continue
            node_name = pick_node(self.store.list("nodes")[0], self.store.list("pods")[0])
            if node_name is None:
                return
            placed = replacement(pod, node_name, "", 0)
            pod["spec"]["nodeName"] = node_name
            pod["status"] = placed["status"]
            self.store.update("pods", pod, check_version=False)

    def _replace(self, deleted):
        """manageReplicas for the owner of ``deleted`` (a pod gone, terminating or finished): create the missing replicas."""
        ref = objects.controller_ref(deleted)
        if not ref or ref.get("kind") != "ReplicaSet":
            return
        namespace = deleted["metadata"]["namespace"]
        try:
            owner = self.store.get("replicasets", namespace, ref["name"])
        except api_status.ApiError:
            return
        if (objects.controller_ref(owner) or {}).get("kind") == "Deployment":
            return  # a Deployment's ReplicaSet has its template: workloads.py keeps its replicas
        for dummy in range(int(owner["spec"].get("replicas", 1))):
            pods = self.store.list("pods")[0]
            active = [p for p in pods if (objects.controller_ref(p) or {}).get("uid") == owner["metadata"]["uid"] and objects.is_pod_active(p)]
            if len(active) >= int(owner["spec"].get("replicas", 1)):
                return
            nodes = self.store.list("nodes")[0]
            suffix = "".join(self.rng.choice(NAME_ALPHABET) for dummy in range(5))
            created = self.store.create("pods", replacement(deleted, pick_node(nodes, pods), suffix, len(nodes)))
            self.created.append("%s/%s" % (namespace, created["metadata"]["name"]))
