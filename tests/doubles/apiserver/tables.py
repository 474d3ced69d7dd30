# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Server-side printing (meta.k8s.io/v1 ``Table``) for nodes, pods and PDBs, for ``kubectl get``.

kubectl asks for ``application/json;as=Table;v=v1;g=meta.k8s.io``; the columns and cells copy
pkg/printers/internalversion/printers.go (``nodeColumnDefinitions`` / ``printNode``: status
``Ready``/``NotReady``/``Unknown`` plus ``SchedulingDisabled``, roles from
``node-role.kubernetes.io/<role>`` labels or ``<none>``; ``podColumnDefinitions`` / ``printPod``:
``Terminating`` for a pod being deleted; ``jobColumnDefinitions`` / ``printJob``: Complete, Failed, Terminating,
Suspended, FailureTarget, SuccessCriteriaMet or Running, in that order; ``podDisruptionBudgetColumnDefinitions``, ``N/A`` for the
unset bound; ``eventColumnDefinitions`` / ``printEvent``: last seen falls back to the first, the
object as ``<lowercased kind>/<name>``, the source as ``formatEventSource``, count 1 when unset;
the server prints wide, pkg/printers/storage ConvertToTable) and the age wording of
k8s.io/apimachinery/pkg/util/duration HumanDuration. Rows carry the object as ``includeObject``
asks (``None``, ``Object``, default ``Metadata`` as PartialObjectMetadata).
"""

import calendar
import time

NODE_COLUMNS = [("Name", "string", "name", 0), ("Status", "string", "", 0), ("Roles", "string", "", 0), ("Age", "string", "", 0),
                ("Version", "string", "", 0), ("Internal-IP", "string", "", 1), ("External-IP", "string", "", 1),
                ("OS-Image", "string", "", 1), ("Kernel-Version", "string", "", 1), ("Container-Runtime", "string", "", 1)]
POD_COLUMNS = [("Name", "string", "name", 0), ("Ready", "string", "", 0), ("Status", "string", "", 0), ("Restarts", "string", "", 0),
               ("Age", "string", "", 0), ("IP", "string", "", 1), ("Node", "string", "", 1), ("Nominated Node", "string", "", 1),
               ("Readiness Gates", "string", "", 1)]
EVENT_COLUMNS = [("Last Seen", "string", "", 0), ("Type", "string", "", 0), ("Reason", "string", "", 0), ("Object", "string", "", 0),
                 ("Subobject", "string", "", 1), ("Source", "string", "", 1), ("Message", "string", "", 0), ("First Seen", "string", "", 1),
                 ("Count", "string", "", 1), ("Name", "string", "name", 1)]
JOB_COLUMNS = [("Name", "string", "name", 0), ("Status", "string", "", 0), ("Completions", "string", "", 0), ("Duration", "string", "", 0),
               ("Age", "string", "", 0), ("Containers", "string", "", 1), ("Images", "string", "", 1), ("Selector", "string", "", 1)]
PDB_COLUMNS = [("Name", "string", "name", 0), ("Min Available", "string", "", 0), ("Max Unavailable", "string", "", 0),
               ("Allowed Disruptions", "integer", "", 0), ("Age", "string", "", 0)]


def human_duration(seconds):
    """duration.HumanDuration."""
    seconds = int(seconds)
    if seconds < -1:
        return "<invalid>"
    if seconds < 0:
        return "0s"
    if seconds < 120:
        return "%ds" % seconds
    minutes = seconds // 60
    if minutes < 10:
        return "%dm%ds" % (minutes, seconds % 60) if seconds % 60 else "%dm" % minutes
    if minutes < 180:
        return "%dm" % minutes
    hours = minutes // 60
    if hours < 8:
        return "%dh%dm" % (hours, minutes % 60) if minutes % 60 else "%dh" % hours
    if hours < 48:
        return "%dh" % hours
    if hours < 24 * 8:
        return "%dd%dh" % (hours // 24, hours % 24) if hours % 24 else "%dd" % (hours // 24)
    if hours < 24 * 365 * 2:
        return "%dd" % (hours // 24)
    return "%dy" % (hours // (24 * 365))


def _since(stamp):
    """printers' translateTimestampSince: ``<unknown>`` for an unset time."""
    if not stamp:
        return "<unknown>"
    return human_duration(time.time() - calendar.timegm(time.strptime(stamp[:19], "%Y-%m-%dT%H:%M:%S")))


def _age(meta):
    return _since(meta["creationTimestamp"])


def _node_cells(node):
    conditions = {c["type"]: c["status"] for c in node.get("status", {}).get("conditions") or []}
    states = []
    if "Ready" in conditions:
        states.append("Ready" if conditions["Ready"] == "True" else "NotReady")
    if not states:
        states.append("Unknown")
    if node.get("spec", {}).get("unschedulable"):
        states.append("SchedulingDisabled")
    prefix = "node-role.kubernetes.io/"
    roles = sorted(k[len(prefix):] for k in node["metadata"].get("labels", {}) if k.startswith(prefix) and k[len(prefix):])
    addresses = {a["type"]: a["address"] for a in node.get("status", {}).get("addresses") or []}
    info = node.get("status", {}).get("nodeInfo", {})
    return [node["metadata"]["name"], ",".join(states), ",".join(roles) or "<none>", _age(node["metadata"]), info.get("kubeletVersion", ""),
            addresses.get("InternalIP", "<none>"), addresses.get("ExternalIP", "<none>"), info.get("osImage", "<unknown>"),
            info.get("kernelVersion", "<unknown>"), info.get("containerRuntimeVersion", "<unknown>")]


def _pod_cells(pod):
    statuses = pod.get("status", {}).get("containerStatuses") or []
    ready = sum(1 for s in statuses if s.get("ready"))
    restarts = sum(s.get("restartCount", 0) for s in statuses)
    reason = pod.get("status", {}).get("reason") or pod.get("status", {}).get("phase", "")
    if pod["metadata"].get("deletionTimestamp"):
        reason = "Terminating"
    return [pod["metadata"]["name"], "%d/%d" % (ready, len(pod["spec"].get("containers", []))), reason, str(restarts), _age(pod["metadata"]),
            pod.get("status", {}).get("podIP") or "<none>", pod["spec"].get("nodeName") or "<none>", "<none>", "<none>"]


def _event_cells(event):
    first = _since(event.get("firstTimestamp")) if event.get("firstTimestamp") else _since(event.get("eventTime"))
    last = _since(event.get("lastTimestamp")) if event.get("lastTimestamp") else first
    count = event.get("count") or 1
    if event.get("series"):
        last, count = _since(event["series"].get("lastObservedTime")), event["series"].get("count", 0)
    involved = event.get("involvedObject") or {}
    target = involved.get("kind", "").lower()
    if involved.get("name"):
        target = "%s/%s" % (target, involved["name"])
    source = event.get("source") or {}
    component = source.get("component") or event.get("reportingComponent", "")
    instance = source.get("host") or event.get("reportingInstance", "")
    return [last, event.get("type", ""), event.get("reason", ""), target, involved.get("fieldPath", ""),
            "%s, %s" % (component, instance) if instance else component, (event.get("message") or "").strip(), first, count,
            event["metadata"]["name"]]


def _pdb_cells(pdb):
    spec = pdb["spec"]
    return [pdb["metadata"]["name"], str(spec["minAvailable"]) if "minAvailable" in spec else "N/A",
            str(spec["maxUnavailable"]) if "maxUnavailable" in spec else "N/A", pdb["status"]["disruptionsAllowed"], _age(pdb["metadata"])]


def _job_cells(job):
    """printers.go ``printJob``: completions ``<succeeded>/<completions>``, the duration from startTime, the status word."""
    spec, status = job["spec"], job.get("status") or {}
    completions = "%d/%d" % (status.get("succeeded", 0), spec["completions"]) if spec.get("completions") is not None else \
        "%d/1" % status.get("succeeded", 0)
    if not status.get("startTime"):
        took = ""
    elif not status.get("completionTime"):
        took = _since(status["startTime"])
    else:
        took = human_duration(_epoch(status["completionTime"]) - _epoch(status["startTime"]))
    true = {c["type"] for c in status.get("conditions") or [] if c.get("status") == "True"}
    word = "Running"
    for kind, shown in (("Complete", "Complete"), ("Failed", "Failed"), (None, "Terminating"), ("Suspended", "Suspended"),
                        ("FailureTarget", "FailureTarget"), ("SuccessCriteriaMet", "SuccessCriteriaMet")):
        if (kind is None and job["metadata"].get("deletionTimestamp")) or kind in true:
            word = shown
            break
    containers = job["spec"]["template"].get("spec", {}).get("containers") or []
    selector = ",".join("%s=%s" % item for item in sorted(((spec.get("selector") or {}).get("matchLabels") or {}).items()))
    return [job["metadata"]["name"], word, completions, took, _age(job["metadata"]), ",".join(c.get("name", "") for c in containers),
            ",".join(c.get("image", "") for c in containers), selector]


def _epoch(stamp):
    return calendar.timegm(time.strptime(stamp[:19], "%Y-%m-%dT%H:%M:%S"))


def _row_object(obj, include):
    if include == "None":
        return None
    if include == "Object":
        return obj
    return {"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1", "metadata": obj["metadata"]}


def table(resource, items, resource_version, include="Metadata"):
    """A Table of ``items`` (nodes, pods, PDBs or events); None for a resource without a printer here."""
    if resource == "nodes":
        columns, cells = NODE_COLUMNS, _node_cells
    elif resource == "pods":
        columns, cells = POD_COLUMNS, _pod_cells
    elif resource == "poddisruptionbudgets":
        columns, cells = PDB_COLUMNS, _pdb_cells
    elif resource == "events":
        columns, cells = EVENT_COLUMNS, _event_cells
    elif resource == "jobs":
        columns, cells = JOB_COLUMNS, _job_cells
    else:
        return None
    rows = []
    for item in items:
        row = {"cells": cells(item)}
        obj = _row_object(item, include)
        if obj is not None:
            row["object"] = obj
        rows.append(row)
    return {"kind": "Table", "apiVersion": "meta.k8s.io/v1", "metadata": {"resourceVersion": resource_version},
            "columnDefinitions": [{"name": n, "type": t, "format": f, "description": "", "priority": p} for n, t, f, p in columns],
            "rows": rows}
