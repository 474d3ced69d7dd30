# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""One maintenance lock per node that other tools see: a ``coordination.k8s.io/v1`` Lease named for the collection.

Public: `hold`, `release`, `delete_held`, `lease_name`, `holder_for`, `LockError`, `PREFIX`.

- The Lease is ``<namespace>/gpusmith-numa-gate-<node>``; its ``holderIdentity`` is
  ``gpusmith.numa_gate/<node>/<transition id>``, so a resumed run of the same transition (another
  controller, after a kill) knows the lease for its own and renews it.
- `hold` creates it (``acquireTime`` and ``renewTime`` now, ``leaseDurationSeconds``,
  ``leaseTransitions`` 0), renews it when this transition holds it, takes it over when its holder's
  ``renewTime + leaseDurationSeconds`` has passed or it names no holder (``leaseTransitions`` + 1, as
  client-go's leader election counts a change of holder), and refuses it when another holder's lease
  has not expired, naming the holder and since when. Every write carries the ``resourceVersion`` it
  read (create-if-absent, then optimistic concurrency: a 409 means someone else wrote first, and the
  lease is read and judged again, once).
- `release` deletes it with that ``resourceVersion`` as a precondition, only when this transition
  holds it (a lease taken over by someone else since is theirs).
Leases "provide a mechanism to lock shared resources and coordinate activity between members of a
set" (https://kubernetes.io/docs/concepts/architecture/leases/); times are ``MicroTime``
(RFC 3339 with microseconds, metav1 micro_time.go). ``clock`` is a parameter so tests need not wait.
"""

from __future__ import annotations

import datetime
import time
import urllib.parse

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base.errors import NumaGateError
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kube_api import api as kube_api

PREFIX = "gpusmith-numa-gate-"
IDENTITY = "gpusmith.numa_gate"
_GROUP = "/apis/coordination.k8s.io/v1/namespaces/%s/leases"


class LockError(NumaGateError):
    """The lock is held by someone else, or was lost; ``details`` carry the lease as read."""


def lease_name(node):
    """``gpusmith-numa-gate-<node>``; refused when longer than an object name may be (253)."""
    if len(PREFIX + node) > 253:
        raise NumaGateError("node name %r is too long for its lock's Lease name %s<node> (at most 253 characters)" % (node, PREFIX))
    return PREFIX + node


def holder_for(node, transition):
    """``gpusmith.numa_gate/<node>/<transition id>``."""
    return "%s/%s/%s" % (IDENTITY, node, transition)


def _micro(when):
    return datetime.datetime.fromtimestamp(when, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _parse(text):
    """A MicroTime or Time string as seconds since the epoch, or None when it is missing or unreadable."""
    if not isinstance(text, str):
        return None
    for form in ("%Y-%m-%dT%H:%M:%S.%fZ", "%Y-%m-%dT%H:%M:%SZ"):
        try:
            return datetime.datetime.strptime(text, form).replace(tzinfo=datetime.timezone.utc).timestamp()
        except ValueError:
            continue
    return None


def _path(namespace, name=None):
    base = _GROUP % urllib.parse.quote(namespace, safe="")
    return base if name is None else "%s/%s" % (base, urllib.parse.quote(name, safe=""))


def _read(api, namespace, name):
    try:
        return api.request("GET", _path(namespace, name))
    except kube_api.KubeApiError as exc:
        if exc.code == 404:
            return None
        raise


def _facts(lease, namespace, name):
    spec = (lease or {}).get("spec") or {}
    return {"lease": "%s/%s" % (namespace, name), "holder": spec.get("holderIdentity"), "acquired": spec.get("acquireTime"),
            "renewed": spec.get("renewTime"), "duration_s": spec.get("leaseDurationSeconds"), "transitions": spec.get("leaseTransitions")}


def _expires(spec):
    renewed, duration = _parse(spec.get("renewTime") or spec.get("acquireTime")), spec.get("leaseDurationSeconds")
    if renewed is None or not isinstance(duration, int):
        return None
    return renewed + duration


def hold(api, namespace, node, transition, duration, check_mode=False, clock=time.time):
    """Take (or renew) the node's lock for ``transition``; returns the result dict.

    ``{changed, lock_action: created|renewed|taken_over, lease, holder, acquired, renewed, duration_s, transitions, previous_holder}``.
    Raises `LockError` naming the holder and since when when another holder's lease has not expired. ``check_mode``: the
    same answer (what it would do), nothing written.
    """
    if not isinstance(duration, int) or duration <= 0:
        raise NumaGateError("the lock's duration must be a whole number of seconds above 0, not %r" % (duration,))
    name, holder = lease_name(node), holder_for(node, transition)
    for attempt in (1, 2):
        try:
            return _hold_once(api, namespace, name, holder, duration, check_mode, clock)
        except kube_api.KubeApiError as exc:
            if exc.code != 409 or attempt == 2:
                raise
    raise AssertionError("unreachable")  # pragma: no cover


def _hold_once(api, namespace, name, holder, duration, check_mode, clock):  # pylint: disable=too-many-arguments
    now = clock()
    lease = _read(api, namespace, name)
    if lease is None:
        body = {"apiVersion": "coordination.k8s.io/v1", "kind": "Lease", "metadata": {"name": name, "namespace": namespace},
                "spec": {"holderIdentity": holder, "leaseDurationSeconds": duration, "acquireTime": _micro(now), "renewTime": _micro(now),
                         "leaseTransitions": 0}}
        made = body if check_mode else api.request("POST", _path(namespace), body=body)
        return dict(_facts(made, namespace, name), changed=True, lock_action="created", previous_holder=None)
    spec = dict(lease.get("spec") or {})
    current = spec.get("holderIdentity")
    expires = _expires(spec)
    if current == holder:
        action, previous = "renewed", None
    elif not current or (expires is not None and expires <= now):
        action, previous = "taken_over", current or None
        spec.update(holderIdentity=holder, acquireTime=_micro(now), leaseTransitions=int(spec.get("leaseTransitions") or 0) + 1)
    else:
        facts = _facts(lease, namespace, name)
        until = "until %s unless renewed" % _micro(expires) if expires is not None else "with no expiry it states"
        raise LockError("node %s is held for maintenance by %s since %s (Lease %s, renewed %s, %s); nothing was changed. Wait for it to be "
                        "released or to expire" % (name[len(PREFIX):], current, spec.get("acquireTime") or "an unstated time", facts["lease"],
                                                   spec.get("renewTime") or "never", until), **facts)
    spec.update(renewTime=_micro(now), leaseDurationSeconds=duration)
    body = dict(lease, spec=spec)
    stored = body if check_mode else api.request("PUT", _path(namespace, name), body=body)
    return dict(_facts(stored, namespace, name), changed=True, lock_action=action, previous_holder=previous)


def release(api, namespace, node, transition, check_mode=False):
    """Give the node's lock back (delete the Lease) when ``transition`` holds it; ``{changed, lock_action, lease, holder, ...}``."""
    name, holder = lease_name(node), holder_for(node, transition)
    lease = _read(api, namespace, name)
    facts = _facts(lease, namespace, name)
    if lease is None:
        return dict(facts, changed=False, lock_action="absent")
    if facts["holder"] != holder:
        return dict(facts, changed=False, lock_action="held_by_another")
    return delete_held(api, _path(namespace, name), lease, facts, check_mode)


def delete_held(api, path, obj, facts, check_mode=False):
    """Delete the lock object ``obj`` at ``path`` only as it was read (resourceVersion precondition): ``facts`` with
    ``changed`` and ``lock_action`` ``released``, or ``absent`` when it was gone already. The Lease and NodeMaintenance share it."""
    if check_mode:
        return dict(facts, changed=True, lock_action="released")
    options = {"apiVersion": "v1", "kind": "DeleteOptions", "preconditions": {"resourceVersion": obj["metadata"].get("resourceVersion")}}
    try:
        api.request("DELETE", path, body=options)
    except kube_api.KubeApiError as exc:
        if exc.code == 404:
            return dict(facts, changed=False, lock_action="absent")
        raise
    return dict(facts, changed=True, lock_action="released")
