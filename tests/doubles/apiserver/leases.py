# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""``coordination.k8s.io/v1`` Leases as the real API server serves them, and the node leases a kubelet keeps.

- The resource: namespaced, kind ``Lease``, short name none, verbs create/delete/deletecollection/get/list/
  patch/update/watch (pkg/registry/coordination/lease/storage/storage.go; ``kubectl api-resources`` on a
  1.37 server lists ``leases coordination.k8s.io/v1 true Lease``).
- Validation (pkg/apis/coordination/validation/validation.go ``ValidateLeaseSpec``): ``leaseDurationSeconds``,
  when set, "must be greater than 0"; ``leaseTransitions``, when set, "must be greater than or equal to 0".
  A refusal is a 422 ``Lease.coordination.k8s.io "<name>" is invalid: <field>: Invalid value: <v>: <why>``
  (apimachinery errors.go ``NewInvalid``). The ``acquireTime``/``renewTime`` are ``MicroTime``
  (RFC 3339 with microseconds, ``2006-01-02T15:04:05.000000Z07:00``, metav1 micro_time.go).
- The node lease: the kubelet creates ``kube-node-lease/<node name>`` with ``holderIdentity`` the node's
  name, ``leaseDurationSeconds`` 40 (``nodeLeaseDurationSeconds`` default, kubelet config v1beta1
  defaults.go) and an ownerReference to its Node, and renews ``renewTime`` (pkg/kubelet/nodelease and
  component-helpers/apimachinery/lease controller.go ``newLease``). ``kubectl describe node`` reads it
  (k8s.io/kubectl pkg/describe/describe.go ``describeNode``: ``Leases(corev1.NamespaceNodeLease).Get``)
  and prints ``Lease:`` with HolderIdentity, AcquireTime and RenewTime; without it, ``Failed to get lease``.
"""

import datetime
import time

from apiserver import status as api_status

NODE_LEASE_NAMESPACE = "kube-node-lease"
NODE_LEASE_DURATION = 40


def micro_time(when=None):
    """metav1.MicroTime in UTC: ``2026-12-04T09:00:00.000000Z``."""
    moment = datetime.datetime.fromtimestamp(time.time() if when is None else when, datetime.timezone.utc)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _invalid(name, field, value, why):
    detail = "Invalid value: %s: %s" % (value, why)
    return api_status.ApiError({
        "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
        "message": 'Lease.coordination.k8s.io "%s" is invalid: %s: %s' % (name, field, detail), "reason": "Invalid",
        "details": {"name": name, "group": "coordination.k8s.io", "kind": "Lease",
                    "causes": [{"reason": "FieldValueInvalid", "message": detail, "field": field}]},
        "code": 422})


def validate(obj):
    """ValidateLeaseSpec: refuse what the real server refuses (422), before anything is stored."""
    name = (obj.get("metadata") or {}).get("name", "")
    spec = obj.get("spec") or {}
    duration = spec.get("leaseDurationSeconds")
    if duration is not None and duration <= 0:
        raise _invalid(name, "spec.leaseDurationSeconds", duration, "must be greater than 0")
    transitions = spec.get("leaseTransitions")
    if transitions is not None and transitions < 0:
        raise _invalid(name, "spec.leaseTransitions", transitions, "must be greater than or equal to 0")


def node_lease(node):
    """The Lease a kubelet creates for its Node (``node``: the stored Node, for its uid)."""
    meta = node["metadata"]
    return {"metadata": {"name": meta["name"], "namespace": NODE_LEASE_NAMESPACE,
                         "ownerReferences": [{"apiVersion": "v1", "kind": "Node", "name": meta["name"], "uid": meta["uid"]}]},
            "spec": {"holderIdentity": meta["name"], "leaseDurationSeconds": NODE_LEASE_DURATION, "renewTime": micro_time()}}
