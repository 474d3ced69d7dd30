# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The NVIDIA Maintenance Operator's ``NodeMaintenance``, served only once a test installs its CRD, and the operator's grant.

What the real cluster does (Mellanox/maintenance-operator @ 0beb29d1, GPU-NODE-FACTS.md section 6):
- the CRD ``nodemaintenances.maintenance.nvidia.com`` (config/crd/bases/maintenance.nvidia.com_nodemaintenances.yaml):
  group ``maintenance.nvidia.com``, version ``v1alpha1``, namespaced, kind ``NodeMaintenance``, plural ``nodemaintenances``,
  no short name, a ``status`` subresource. Until it is installed the group is in no discovery document and its paths answer
  404, as on a cluster without the operator. The apiextensions server lists a CR's resource with the verbs below.
- its schema: ``spec.nodeName`` and ``spec.requestorID`` required; ``requestorID`` 2 to 63 characters in domain-name
  notation (the CRD's pattern); ``spec.cordon`` defaults to true. A refusal is a 422 ``NodeMaintenance.maintenance.nvidia.com
  "<name>" is invalid: ...`` (apiextensions-apiserver's schema validation, apimachinery errors.go ``NewInvalid``).
- with a status subresource, a create or an update of the object keeps no ``status`` sent with it (apiextensions-apiserver
  pkg/registry/customresource strategy.go ``PrepareForCreate``/``PrepareForUpdate``).
- the operator (internal/controller/nodemaintenance_controller.go) sets the ``Ready`` condition: ``False`` with reason
  ``Pending`` until the scheduler takes the request, then through ``Scheduled``, ``Cordon``, ``WaitForPodCompletion`` and
  ``Draining`` to ``True`` with reason ``Ready`` (api/v1alpha1/nodemaintenance_types.go). `Operator` plays that with a
  thread: ``Pending`` at once, ``Ready`` once it has seen the request for ``grant_after`` seconds (never when it is None). The
  operator's finalizer (``maintenance.nvidia.com/finalizer``) is not played: a DELETE removes the object at once.
"""

import re
import threading
import time

from apiserver import status as api_status

GROUP, VERSION = "maintenance.nvidia.com", "v1alpha1"
GROUP_VERSION = "%s/%s" % (GROUP, VERSION)
_VERBS = ["delete", "deletecollection", "get", "list", "patch", "create", "update", "watch"]
RESOURCE_LIST = [
    {"name": "nodemaintenances", "singularName": "nodemaintenance", "namespaced": True, "kind": "NodeMaintenance", "verbs": _VERBS},
    {"name": "nodemaintenances/status", "singularName": "", "namespaced": True, "kind": "NodeMaintenance", "verbs": ["get", "patch", "update"]},
]
_REQUESTOR = re.compile(r"^([a-z0-9A-Z]([-a-z0-9A-Z]*[a-z0-9A-Z])?(\.[a-z0-9A-Z]([-a-z0-9A-Z]*[a-z0-9A-Z])?)*)$")


def _invalid(name, causes):
    message = "; ".join("%s: %s" % (field, why) for field, why in causes)
    if len(causes) > 1:
        message = "[%s]" % ", ".join("%s: %s" % (field, why) for field, why in causes)
    return api_status.ApiError({
        "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
        "message": 'NodeMaintenance.maintenance.nvidia.com "%s" is invalid: %s' % (name, message), "reason": "Invalid",
        "details": {"name": name, "group": GROUP, "kind": "NodeMaintenance",
                    "causes": [{"reason": "FieldValueInvalid", "message": why, "field": field} for field, why in causes]},
        "code": 422})


def prepare_create(obj):
    """The CRD's schema checks and defaults, and no status kept (see the module docstring); 422 before anything is stored."""
    name = (obj.get("metadata") or {}).get("name", "")
    spec = obj.get("spec") or {}
    causes = [("spec.%s" % field, "Required value") for field in ("nodeName", "requestorID") if field not in spec]
    requestor = spec.get("requestorID")
    if isinstance(requestor, str):
        if len(requestor) > 63:
            causes.append(("spec.requestorID", 'Too long: may not be more than 63 bytes'))
        elif len(requestor) < 2:
            causes.append(("spec.requestorID", 'Invalid value: "%s": spec.requestorID in body should be at least 2 chars long' % requestor))
        elif not _REQUESTOR.match(requestor):
            causes.append(("spec.requestorID", 'Invalid value: "%s": spec.requestorID in body should match \'%s\'' % (requestor, _REQUESTOR.pattern)))
    if causes:
        raise _invalid(name, causes)
    spec.setdefault("cordon", True)
    obj["spec"] = spec
    obj.pop("status", None)
    return obj


def ready_condition(obj):
    """The ``Ready`` condition of a stored NodeMaintenance, or None."""
    for condition in (obj.get("status") or {}).get("conditions") or []:
        if condition.get("type") == "Ready":
            return condition
    return None


class Operator:
    """The operator's grant, played on the double's store: ``Pending`` at once, ``Ready`` after ``grant_after`` seconds."""

    def __init__(self, store, grant_after=0.5, poll=0.05):
        self.store, self.grant_after, self.poll = store, grant_after, poll
        self._seen = {}  # uid -> when this thread first saw the request (creationTimestamp has whole seconds only)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def start(self):
        """Run in a daemon thread; returns self."""
        self._thread.start()
        return self

    def stop(self):
        """Stop the thread."""
        self._stop.set()
        self._thread.join(timeout=5)

    def _run(self):
        while not self._stop.wait(self.poll):
            self.step(time.time())

    def step(self, now):
        """One pass over the requests: set each one's Ready condition as the operator would by ``now``."""
        with self.store.cond:
            for obj in self.store.list("nodemaintenances")[0]:
                created = self._seen.setdefault(obj["metadata"]["uid"], now)
                granted = self.grant_after is not None and now - created >= self.grant_after
                wanted = ("True", "Ready", "Maintenance is ready") if granted else ("False", "Pending", "Waiting to be scheduled")
                current = ready_condition(obj)
                # Only forward: a request with a condition (set by a test, or already granted) is left as it is until its grant.
                if current is not None and (not granted or (current["status"], current["reason"]) == wanted[:2]):
                    continue
                # The operator sets its Ready condition and keeps the others (apimachinery meta.SetStatusCondition), so a
                # RequestorFailed condition a test set is not overwritten by a pass that finds no Ready condition yet.
                others = [c for c in (obj.get("status") or {}).get("conditions") or [] if c.get("type") != "Ready"]
                obj["status"] = dict(obj.get("status") or {}, conditions=others + [{
                    "type": "Ready", "status": wanted[0], "reason": wanted[1], "message": wanted[2],
                    "lastTransitionTime": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(now))}])
                self.store.update("nodemaintenances", obj, check_version=False)
