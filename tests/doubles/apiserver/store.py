# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The double's in-memory object store: one lock, a resourceVersion counter, a watch event log.

Behaviour copied from the real API server:
- every write bumps a cluster-wide ``resourceVersion`` (etcd's revision) and new objects get a
  ``uid`` and ``creationTimestamp`` (apiserver/pkg/registry/rest/create.go FillObjectMetaSystemFields);
- a write that names a stale ``metadata.resourceVersion`` is refused with 409 Conflict and the
  registry's OptimisticLockErrorMsg;
- graceful pod deletion as pkg/registry/core/pod/strategy.go CheckGracefulDelete decides it: the
  DeleteOptions ``gracePeriodSeconds`` or else the pod's ``terminationGracePeriodSeconds``, 0 for
  an unscheduled or finished pod, negative -> 1. A positive period sets ``deletionTimestamp`` and
  ``deletionGracePeriodSeconds`` (apiserver/pkg/registry/rest/delete.go BeforeDelete); the double
  plays the kubelet and removes the pod once the period is over; the uid never changes.
- preconditions (``uid``, ``resourceVersion``) in DeleteOptions: 409 ``Precondition failed: ...``;
- server-side dry run (``dry_run=True`` on create, update and delete): every check runs and the
  answer is what would have been written, but nothing is stored, no revision is used and no watch
  event is sent (dryrun.py, from apiserver/pkg/registry/generic/registry/dryrun.go);
- Go's ``omitempty``: a stored Node's ``spec.unschedulable: false`` is dropped, as the API's JSON
  leaves it out (k8s.io/api/core/v1 types.go NodeSpec ``json:"unschedulable,omitempty"``).
"""

import copy
import datetime
import itertools
import threading
import time
import uuid

from apiserver import status as api_status

# resource -> (group, version, kind, namespaced)
RESOURCES = {
    "namespaces": ("", "v1", "Namespace", False),
    "nodes": ("", "v1", "Node", False),
    "pods": ("", "v1", "Pod", True),
    "events": ("", "v1", "Event", True),
    "daemonsets": ("apps", "v1", "DaemonSet", True),
    "replicasets": ("apps", "v1", "ReplicaSet", True),
    "deployments": ("apps", "v1", "Deployment", True),
    "statefulsets": ("apps", "v1", "StatefulSet", True),
    "poddisruptionbudgets": ("policy", "v1", "PodDisruptionBudget", True),
    "configmaps": ("", "v1", "ConfigMap", True),
    "resourceslices": ("resource.k8s.io", "v1", "ResourceSlice", False),
    "resourceclaims": ("resource.k8s.io", "v1", "ResourceClaim", True),
    "jobs": ("batch", "v1", "Job", True),
    "leases": ("coordination.k8s.io", "v1", "Lease", True),
    # Served only once a test installs its CRD (nodemaintenance.py).
    "nodemaintenances": ("maintenance.nvidia.com", "v1alpha1", "NodeMaintenance", True),
}


def timestamp(when=None):
    """RFC 3339 in UTC with second precision, as metav1.Time marshals."""
    moment = datetime.datetime.fromtimestamp(time.time() if when is None else when, datetime.timezone.utc)
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


class Store:
    """Objects by resource and (namespace, name), with a watch log; every method takes the lock."""

    def __init__(self):
        self.cond = threading.Condition(threading.RLock())
        self._objects = {resource: {} for resource in RESOURCES}
        self._revision = itertools.count(1000)
        self.revision = "999"
        self.events = []
        self._deadlines = {}

    def _bump(self, resource, event, obj):
        self.revision = str(next(self._revision))
        obj["metadata"]["resourceVersion"] = self.revision
        self.events.append((int(self.revision), resource, event, copy.deepcopy(obj)))
        self.cond.notify_all()

    @staticmethod
    def _omit_empty(resource, obj):
        if resource == "nodes" and obj.get("spec", {}).get("unschedulable") is False:
            del obj["spec"]["unschedulable"]

    @staticmethod
    def key(obj):
        meta = obj["metadata"]
        return (meta.get("namespace", ""), meta["name"])

    def create(self, resource, obj, dry_run=False):
        """Store a new object; 409 AlreadyExists when its name is taken. ``dry_run``: the object as it
        would be stored (uid, creationTimestamp) but unstored, so without a resourceVersion."""
        group, version, kind, namespaced = RESOURCES[resource]
        with self.cond:
            self.reap()
            obj = copy.deepcopy(obj)
            obj["kind"], obj["apiVersion"] = kind, ("%s/%s" % (group, version) if group else version)
            meta = obj["metadata"]
            if not namespaced:
                meta.pop("namespace", None)
            if self.key(obj) in self._objects[resource]:
                raise api_status.already_exists(resource, meta["name"], group)
            self._omit_empty(resource, obj)
            meta.setdefault("uid", str(uuid.uuid4()))
            meta["creationTimestamp"] = meta.get("creationTimestamp") or timestamp()
            if dry_run:
                meta.pop("resourceVersion", None)
                return obj
            self._objects[resource][self.key(obj)] = obj
            self._bump(resource, "ADDED", obj)
            return copy.deepcopy(obj)

    def get(self, resource, namespace, name):
        """A copy of one object, or 404 NotFound in the API's words."""
        with self.cond:
            self.reap()
            obj = self._objects[resource].get((namespace or "", name))
            if obj is None:
                raise api_status.not_found(resource, name, RESOURCES[resource][0])
            return copy.deepcopy(obj)

    def list(self, resource, namespace=None):
        """Copies of the objects (all namespaces when ``namespace`` is None) and the list's resourceVersion."""
        with self.cond:
            self.reap()
            items = [copy.deepcopy(o) for (ns, dummy), o in sorted(self._objects[resource].items()) if namespace in (None, ns)]
            return items, self.revision

    def update(self, resource, obj, check_version=True, dry_run=False):
        """Replace an existing object; 409 Conflict when ``metadata.resourceVersion`` is stale.
        ``dry_run``: the object as it would be stored, with the current resourceVersion, unstored."""
        group = RESOURCES[resource][0]
        with self.cond:
            self.reap()
            current = self._objects[resource].get(self.key(obj))
            if current is None:
                raise api_status.not_found(resource, obj["metadata"]["name"], group)
            asked = obj["metadata"].get("resourceVersion")
            if check_version and asked and asked != current["metadata"]["resourceVersion"]:
                raise api_status.conflict(resource, obj["metadata"]["name"], api_status.OPTIMISTIC_LOCK, group)
            obj = copy.deepcopy(obj)
            for field in ("uid", "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds"):
                if field in current["metadata"]:
                    obj["metadata"][field] = current["metadata"][field]
            obj["kind"], obj["apiVersion"] = current["kind"], current["apiVersion"]
            self._omit_empty(resource, obj)
            if dry_run:
                obj["metadata"]["resourceVersion"] = current["metadata"]["resourceVersion"]
                return obj
            self._objects[resource][self.key(obj)] = obj
            self._bump(resource, "MODIFIED", obj)
            return copy.deepcopy(obj)

    def remove(self, resource, namespace, name):
        """Delete an object now and return its last state."""
        with self.cond:
            obj = self._objects[resource].pop((namespace or "", name), None)
            if obj is None:
                raise api_status.not_found(resource, name, RESOURCES[resource][0])
            self._deadlines.pop((resource, namespace or "", name), None)
            self._bump(resource, "DELETED", obj)
            return copy.deepcopy(obj)

    def delete(self, resource, namespace, name, options=None, dry_run=False):
        """DELETE with DeleteOptions: graceful for pods (see the module docstring), immediate otherwise.
        ``dry_run``: the checks and the answer (with the deletionTimestamp a graceful deletion would
        set), nothing changed."""
        options = options or {}
        with self.cond:
            current = self.get(resource, namespace, name)
            self._check_preconditions(resource, current, options.get("preconditions") or {})
            period = self._grace_period(current, options.get("gracePeriodSeconds")) if resource == "pods" else 0
            if period == 0:
                return current if dry_run else self.remove(resource, namespace, name)
            meta = current["metadata"]
            deadline = time.time() + period
            old = self._deadlines.get((resource, namespace or "", name))
            if old is not None and old <= deadline:
                return current
            meta["deletionTimestamp"] = timestamp(deadline)
            meta["deletionGracePeriodSeconds"] = period
            if dry_run:
                return current
            stored = self._objects[resource][self.key(current)]
            stored["metadata"].update(deletionTimestamp=meta["deletionTimestamp"], deletionGracePeriodSeconds=period)
            self._deadlines[(resource, namespace or "", name)] = deadline
            self._bump(resource, "MODIFIED", stored)
            return copy.deepcopy(stored)

    @staticmethod
    def _grace_period(pod, asked):
        period = asked if asked is not None else pod["spec"].get("terminationGracePeriodSeconds", 30)
        if not pod["spec"].get("nodeName"):
            period = 0
        if pod.get("status", {}).get("phase") in ("Failed", "Succeeded"):
            period = 0
        return 1 if period < 0 else int(period)

    @staticmethod
    def _check_preconditions(resource, current, preconditions):
        meta = current["metadata"]
        for field in ("uid", "resourceVersion"):
            wanted = preconditions.get(field)
            if wanted and wanted != meta.get(field):
                label = "UID" if field == "uid" else "ResourceVersion"
                why = "Precondition failed: %s in precondition: %s, %s in object meta: %s" % (label, wanted, label, meta.get(field))
                raise api_status.conflict(resource, meta["name"], why, RESOURCES[resource][0])

    def reap(self):
        """Play the kubelet: remove the pods whose grace period is over."""
        with self.cond:
            now = time.time()
            for (resource, namespace, name), deadline in list(self._deadlines.items()):
                if deadline <= now:
                    self.remove(resource, namespace, name)

    def next_deadline(self):
        """Seconds until the next graceful deletion completes (None when none is pending)."""
        with self.cond:
            return min(self._deadlines.values()) - time.time() if self._deadlines else None
