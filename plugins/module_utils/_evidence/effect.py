# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Whether the pod-level resource managers took effect for the canary's pods (pure).

Public: `findings`, `control_plane`, `from_stack`, `GATE`, `CHECKS`.

`findings(subject)` -> [{"pod", "check", "result" (agree | disagree | unknown), "message"}], one
check per question the issue asks, each naming what it saw (``subject`` is built by
`composition.effect` from the canary, PodResources, placement, metrics and topology reads):

- ``stored_resources``: the stored pod's ``.spec.resources`` read back equals what was sent. With
  PodLevelResources off, kube-apiserver drops the field silently on create
  (``dropDisabledPodLevelResources``, kubernetes/kubernetes pkg/api/pod/util.go), so a missing
  field names the control plane: the kubelet's gate alone is not enough;
- ``control_plane``: ``/version`` and kube-apiserver's ``kubernetes_feature_enabled{name=
  "PodLevelResources"}`` (component-base metrics, since 1.26), as the stack_info action reads them
  (`from_stack`; the series parsed by `_stack.observe.feature_gates`); unreadable is unknown;
- ``pod_scope`` / ``container_scope``: PodResources' top-level ``cpu_ids``/``memory`` (fields 4/5)
  and where the shared containers' cgroups run (the pod set minus the exclusive sets, or the node's
  shared pool);
- ``assignments``: the kubelet's ``resource_manager_container_assignments`` gained the pod's
  ``pod_exclusive`` and ``pod_shared`` containers (KEP-5526 spells them ``..._total`` and
  ``exclusive_from_pod``/``shared_from_pod``: both accepted), ``resource_manager_allocations_total
  {source="pod"}`` rose (the errors are the monitoring criterion's);
- ``cpu_quota``: exclusive containers run without a CFS quota (``cpu.max`` ``max``), shared ones with one;
- ``gpu``: on a node with GPUs, a pod that got none observed no co-location.
"""

from __future__ import annotations

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import cpulist as _cpulist
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import quantity as _quantity
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._stack import observe as _observe

GATE = "PodLevelResources"
CHECKS = ("stored_resources", "control_plane", "pod_scope", "container_scope", "assignments", "cpu_quota", "gpu")
ASSIGNMENTS = ("resource_manager_container_assignments", "resource_manager_container_assignments_total")
TYPES = {"pod_exclusive": ("pod_exclusive", "exclusive_from_pod"), "pod_shared": ("pod_shared", "shared_from_pod")}
ALLOCATIONS = "resource_manager_allocations_total"
NOT_ENOUGH = "PodLevelResources must be on for kube-apiserver and kube-scheduler (the kubelet's gate alone is not enough)"


def _f(pod, check, result, message):
    return {"pod": pod, "check": check, "result": result, "message": message}


def control_plane(version=None, metrics_text=None, error=None):
    """{"version", "gates", "error"} from the API server's /version answer and /metrics text (None: not read)."""
    git = (version or {}).get("gitVersion") if isinstance(version, dict) else None
    gates = _observe.feature_gates(metrics_text) if metrics_text is not None else None
    return {"version": git, "gates": gates, "error": error}


def from_stack(result):
    """{"version", "gates", "error"} from the stack_info action's registered result (None: not read)."""
    if not isinstance(result, dict) or result.get("skipped"):
        return None
    if result.get("failed") or "control_plane_gates" not in result:
        return {"version": None, "gates": None, "error": "stack_info failed: %s" % (result.get("msg") or "no answer")}
    version = next((entry for entry in result.get("observed") or [] if entry.get("component") == "control_plane"), {})
    return {"version": version.get("version"), "gates": result.get("control_plane_gates"),
            "error": result.get("control_plane_gates_error") or version.get("error")}


def _canonical(resources):
    """requests/limits with every quantity as a number (cpu in millicpu, the rest in bytes or units), for comparing."""
    found = {}
    for part in ("requests", "limits"):
        for key, value in sorted(((resources or {}).get(part) or {}).items()):
            try:
                found[(part, key)] = _quantity.to_millicpu(str(value)) if key == "cpu" else _quantity.to_bytes(str(value))
            except _quantity.QuantityError:
                found[(part, key)] = str(value)
    return found


def _said(resources):
    parts = []
    for part in ("requests", "limits"):
        values = (resources or {}).get(part) or {}
        if values:
            parts.append("%s %s" % (part, ", ".join("%s=%s" % item for item in sorted(values.items()))))
    return "; ".join(parts) or "none"


def _stored(pod, sent):
    label = pod["pod"]
    if not sent:
        return _f(label, "stored_resources", "unknown", "pod %s was sent without a pod-level budget (.spec.resources): the pod-level "
                  "resource managers were not exercised" % label)
    if not pod.get("stored_read"):
        return _f(label, "stored_resources", "unknown", "pod %s was not read back from the API: whether the API server kept .spec.resources "
                  "(sent %s) is unknown" % (label, _said(sent)))
    stored = pod.get("stored_resources")
    if not stored:
        return _f(label, "stored_resources", "disagree", "the API server dropped .spec.resources from pod %s (sent %s; stored: none): %s"
                  % (label, _said(sent), NOT_ENOUGH))
    if _canonical(stored) != _canonical(sent):
        return _f(label, "stored_resources", "disagree", "pod %s: the stored .spec.resources (%s) differs from what was sent (%s)"
                  % (label, _said(stored), _said(sent)))
    return _f(label, "stored_resources", "agree", "pod %s: the API server kept .spec.resources as sent (%s)" % (label, _said(sent)))


def _control_plane(plane):
    plane = plane or {}
    version = plane.get("version") or "of unknown version (/version not read)"
    where = "the control plane %s" % version
    series = 'kubernetes_feature_enabled{name="%s"}' % GATE
    gates = plane.get("gates")
    if gates is None:
        return _f(None, "control_plane", "unknown", "%s: whether %s is on for kube-apiserver is unknown: its /metrics could not be read (%s); "
                  "unknown is not agreement" % (where, GATE, plane.get("error") or "not read"))
    if GATE not in gates:
        return _f(None, "control_plane", "unknown", "%s: whether %s is on for kube-apiserver is unknown: its /metrics has no %s series; "
                  "unknown is not agreement" % (where, GATE, series))
    if not gates[GATE]:
        return _f(None, "control_plane", "disagree", "%s: kube-apiserver reports %s 0: it drops .spec.resources on create; %s"
                  % (where, series, NOT_ENOUGH))
    return _f(None, "control_plane", "agree", "%s: kube-apiserver reports %s 1" % (where, series))


def _cgroup_cpus(pod):
    """{container name: its cgroup's effective CPUs} for the containers whose IDs the pod status gave."""
    ids = {name: str(cid or "").rsplit("://", maxsplit=1)[-1] for name, cid in (pod.get("container_ids") or {}).items()}
    placed = {c.get("id"): c for c in (pod.get("placed") or {}).get("containers") or []}
    return {name: placed[cid] for name, cid in ids.items() if cid and cid in placed}


def _scope(pod, scope):
    label, allocation = pod["pod"], pod.get("allocation")
    if allocation is None:
        return [_f(label, "%s_scope" % scope, "unknown", "pod %s: PodResources has no entry for it: its allocation is unknown" % label)]
    views, shared = _cgroup_cpus(pod), allocation.get("shared_containers") or []
    if scope == "container":
        if allocation.get("pod_level_fields"):
            return [_f(label, "container_scope", "disagree", "pod %s: PodResources reports pod-level cpu_ids or memory under container scope, "
                       "where the kubelet leaves them empty" % label)]
        want, pool = allocation.get("shared_cpus"), "the node's shared pool"
    else:
        if not allocation.get("pod_level_fields"):
            return [_f(label, "pod_scope", "disagree", "pod %s: PodResources has no pod-level cpu_ids or memory (fields 4 and 5) under pod "
                       "scope: the pod-level resource managers did not allocate it (PodLevelResourceManagers off, or a kubelet before 1.37)"
                       % label)]
        outside = _cpulist.difference(_cpulist.union("", *(allocation.get("exclusive") or {}).values()), allocation.get("pod_cpus") or "")
        if outside:
            return [_f(label, "pod_scope", "disagree", "pod %s: exclusive CPUs %s are outside the pod-level set %s"
                       % (label, outside, allocation.get("pod_cpus")))]
        want, pool = allocation.get("shared_cpus"), "the pod's shared set"
    found = []
    for name in shared:
        view = views.get(name)
        cpus = (view or {}).get("cpus")
        if cpus is None:
            found.append(_f(label, "%s_scope" % scope, "unknown", "pod %s: container %s's cgroup CPUs were not read: whether it runs on %s (%s) "
                            "is unknown" % (label, name, pool, want)))
        elif want is None or _cpulist.canonical(cpus) != _cpulist.canonical(want):
            found.append(_f(label, "%s_scope" % scope, "disagree", "pod %s: helper %s runs on CPUs %s, not on %s %s"
                            % (label, name, cpus, pool, want if want is not None else "(unknown)")))
    if found:
        return found
    return [_f(label, "%s_scope" % scope, "agree", "pod %s: %s; helpers %s on %s %s" % (
        label, "pod-level cpu_ids %s, exclusive %s within it" % (allocation.get("pod_cpus"), _exclusive(allocation)) if scope == "pod"
        else "no pod-level fields, exclusive %s" % _exclusive(allocation), ", ".join(shared) or "none", pool, want))]


def _exclusive(allocation):
    return ", ".join("%s %s" % item for item in sorted((allocation.get("exclusive") or {}).items())) or "none"


def _increase(entries, names, kind=None, source=None):
    total, seen = 0.0, False
    for entry in entries:
        labels = entry.get("labels") or {}
        if entry.get("name") not in names or (kind and labels.get("assignment_type") not in kind) or (source and labels.get("source") != source):
            continue
        if labels.get("resource_name") not in (None, "cpu"):
            continue
        seen = True
        total += float(entry.get("increase") or 0)
    return total if seen else None


def _assignments(pods, metrics):
    if metrics is None or (isinstance(metrics, dict) and metrics.get("error")):
        why = metrics.get("error") if isinstance(metrics, dict) else "not scraped"
        return [_f(None, "assignments", "unknown", "the kubelet's metrics were not read (%s): whether its assignments moved for the canary is "
                   "unknown" % why)]
    entries = metrics.get("samples") if isinstance(metrics, dict) else metrics
    exclusive = sum(len((p.get("allocation") or {}).get("exclusive") or {}) for p in pods)
    shared = sum(len((p.get("allocation") or {}).get("shared_containers") or []) for p in pods)
    found = []
    for kind, want in (("pod_exclusive", exclusive), ("pod_shared", shared)):
        if not want:
            continue
        rose = _increase(entries, ASSIGNMENTS, TYPES[kind])
        if rose is None or rose < want:
            moved = "has no series" if rose is None else "rose by %s" % format(rose, "g")
            found.append(_f(None, "assignments", "disagree", "resource_manager_container_assignments{assignment_type=\"%s\"} %s between the "
                            "scrapes, for %d %s container%s of the canary" % (kind, moved, want, kind, "" if want == 1 else "s")))
    rose = _increase(entries, (ALLOCATIONS,), source="pod")
    if not rose:
        found.append(_f(None, "assignments", "disagree", '%s{source="pod"} %s between the scrapes: no pod-level allocation was counted'
                        % (ALLOCATIONS, "has no series" if rose is None else "did not rise")))
    return found or [_f(None, "assignments", "agree", "the kubelet counted %d pod_exclusive and %d pod_shared assignments and pod-level "
                        "allocations" % (exclusive, shared))]


def _quota(pod):
    label, allocation = pod["pod"], pod.get("allocation") or {}
    views, found = _cgroup_cpus(pod), []
    if not views or not any("cpu_max" in view for view in views.values()):
        return [_f(label, "cpu_quota", "unknown", "pod %s: the containers' cpu.max was not read: whether the CPU quota follows the allocation "
                   "is unknown" % label)]
    for name, view in views.items():
        exclusive, quota = name in (allocation.get("exclusive") or {}), view.get("cpu_max")
        if quota is None:
            found.append(_f(label, "cpu_quota", "unknown", "pod %s: container %s's cpu.max was not read" % (label, name)))
        elif exclusive and str(quota).split()[0] != "max":
            found.append(_f(label, "cpu_quota", "disagree", "pod %s: exclusive container %s runs with a CFS quota (cpu.max %s), not max"
                            % (label, name, quota)))
        elif not exclusive and str(quota).split()[0] == "max":
            found.append(_f(label, "cpu_quota", "disagree", "pod %s: shared container %s runs without a CFS quota (cpu.max %s)" % (label, name, quota)))
    return found or [_f(label, "cpu_quota", "agree", "pod %s: exclusive containers without a CFS quota, shared ones with one" % label)]


def _gpu(pod, gpus):
    label = pod["pod"]
    got = [d.get("id") for devices in ((pod.get("allocation") or {}).get("devices") or {}).values() for d in devices or []
           if d.get("kind") == "gpu" or "gpu" in str(d.get("resource_name") or "")]
    if got:
        return _f(label, "gpu", "agree", "pod %s got GPU %s" % (label, ", ".join(str(g) for g in got)))
    return _f(label, "gpu", "disagree", "pod %s got no GPU on a node with %d GPU%s: co-location of its CPUs and memory with a GPU was not observed"
              % (label, gpus, "" if gpus == 1 else "s"))


def findings(subject):
    """Every check of the subject's pods (see the module docstring), in `CHECKS` order."""
    pods, scope = subject.get("pods") or [], subject.get("scope") or "pod"
    if not pods:
        return [_f(None, "stored_resources", "unknown", "no pod of the canary was read: whether the pod-level resource managers took effect "
                   "is unknown")]
    found = [_stored(pod, subject.get("sent_resources")) for pod in pods]
    found.append(_control_plane(subject.get("control_plane")))
    for pod in pods:
        found += _scope(pod, scope)
    if scope == "pod":
        found += _assignments(pods, subject.get("metrics"))
    for pod in pods:
        found += _quota(pod)
    if subject.get("gpus"):
        found += [_gpu(pod, subject["gpus"]) for pod in pods]
    return found
