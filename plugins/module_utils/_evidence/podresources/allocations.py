# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""PodResources allocations reconciled per pod by the Topology Manager scope, never double-counted.

Public: `reconcile_allocations`, `SCOPES`.

Pod scope (KEP-5526 in github.com/kubernetes/enhancements, and the comment on fields 4/5 of k8s.io/kubelet
pkg/apis/podresources/v1/api.proto): a
pod's pod-level ``cpu_ids``/``memory`` are its whole exclusive allocation; exclusive containers
report subsets of it; shared containers report nothing and run on the pod's shared pool, the pod
set minus the union of the exclusive sets. Container scope: the pod-level fields are empty, each
exclusive container is allocated from the node, and shared containers run on the node's shared
pool: the online CPUs minus every exclusive allocation (the kubelet's default CPU set, which keeps
the reserved CPUs). A pod counts its pod-level set once, never plus its containers' subsets.
A pod-scope pod whose containers hold exclusive CPUs but whose pod-level fields are empty comes
from a kubelet without fields 4 and 5 (before 1.37, or PodLevelResourceManagers off): named, and
its shared pool left unknown rather than guessed.
"""

from __future__ import annotations

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import cpulist as _cpulist
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._device_path import devices as _devices
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._device_path import dra_claims as _dra
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence import inputs
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence import nodefs

SCOPES = ("pod", "container")


def _finding(pod, container, check, result, message, **values):
    entry = {"pod": pod, "container": container, "check": check, "result": result, "message": message}
    entry.update(values)
    return entry


def _memory_totals(blocks):
    totals = {}
    for block in blocks:
        entry = totals.setdefault(block["memory_type"], {"size": 0, "numa_nodes": []})
        entry["size"] += block["size"]
        entry["numa_nodes"] = sorted(set(entry["numa_nodes"]) | set(block["numa_nodes"]))
    return totals


MAX_OVERLAP_FINDINGS = 64


def _overlaps(label, names, exclusive):
    """One finding per container whose exclusive CPUs an earlier one (in name order) holds too, at most `MAX_OVERLAP_FINDINGS`.

    One pass with a running union (not every pair): the work grows with the containers, the findings with them at most.
    """
    findings, held, owner, sets, more = [], set(), {}, {}, 0
    for name in names:
        cpus = sets[name] = set(_cpulist.parse(exclusive[name]))
        clash = cpus & held
        if clash:
            first = owner[min(clash)]
            both = _cpulist.format(cpus & sets[first])
            if len(findings) < MAX_OVERLAP_FINDINGS:
                others = clash - sets[first]
                findings.append(_finding(label, name, "exclusive_overlap", "disagree",
                                         "pod %s: containers %s and %s both hold exclusive CPUs %s (PodResources cpu_ids)%s"
                                         % (label, first, name, both, " and CPUs %s of other containers" % _cpulist.format(others)
                                            if others else ""), expected="", observed=_cpulist.format(clash)))
            else:
                more += 1
        for cpu in cpus - held:
            owner[cpu] = name
        held |= cpus
    if more:
        findings.append(_finding(label, None, "exclusive_overlap", "disagree",
                                 "pod %s: %d more containers hold exclusive CPUs an earlier container holds (findings end at %d)"
                                 % (label, more, MAX_OVERLAP_FINDINGS), expected="", observed=more))
    return findings


def _one(pod, scope, oracle, dra=None):
    label = "%s/%s" % (pod["namespace"], pod["name"])
    exclusive = {c["name"]: c["cpu_ids"] for c in pod["containers"] if c["cpu_ids"]}
    shared = [c["name"] for c in pod["containers"] if not c["cpu_ids"]]
    union = _cpulist.union(*exclusive.values()) if exclusive else ""
    names = sorted(exclusive)
    findings = _overlaps(label, names, exclusive)
    out = {"pod": label, "name": pod["name"], "namespace": pod["namespace"], "scope": scope, "exclusive": exclusive,
           "shared_containers": shared, "pod_level_fields": bool(pod["cpu_ids"] or pod["memory"])}
    if scope == "pod" and pod["cpu_ids"]:
        outside = _cpulist.difference(union, pod["cpu_ids"])
        if outside:
            findings.append(_finding(label, None, "exclusive_within_pod", "disagree",
                                     "pod %s: exclusive container CPUs %s are outside the pod-level set %s" % (label, outside, pod["cpu_ids"]),
                                     expected=pod["cpu_ids"], observed=union))
        out.update(pod_cpus=pod["cpu_ids"], shared_cpus=_cpulist.difference(pod["cpu_ids"], union), shared_pool="pod",
                   memory=_memory_totals(pod["memory"]))
    elif scope == "pod" and exclusive:
        findings.append(_finding(label, None, "pod_level_fields", "unknown",
                                 "pod %s: PodResources has no pod-level cpu_ids (field 4) or memory (field 5) while containers %s hold "
                                 "exclusive CPUs %s: the kubelet predates the pod-level fields (1.37) or PodLevelResourceManagers is off; "
                                 "the pod's whole allocation and its shared pool are unknown" % (label, ", ".join(names), union),
                                 expected="pod-level cpu_ids", observed=""))
        out.update(pod_cpus=None, shared_cpus=None, shared_pool=None,
                   memory=_memory_totals([m for c in pod["containers"] for m in c["memory"]]))
    else:
        if scope == "container" and out["pod_level_fields"]:
            findings.append(_finding(label, None, "pod_level_fields", "disagree",
                                     "pod %s: pod-level cpu_ids %s reported under container scope, where the kubelet leaves them empty"
                                     % (label, pod["cpu_ids"] or '""'), expected="", observed=pod["cpu_ids"]))
        out.update(pod_cpus=union, shared_cpus=None, shared_pool="node",
                   memory=_memory_totals([m for c in pod["containers"] for m in c["memory"]]))
    out["devices"] = {c["name"]: _devices.map_container_devices(c, oracle, dra) for c in pod["containers"] if c["devices"] or c["dynamic_resources"]}
    findings.extend(_dra.pod_findings(label, out, oracle, dra, _finding))
    out["findings"] = findings
    return out


def reconcile_allocations(pods, scope, online_cpus, allocatable_cpus=None, oracle=None, dra=None):
    """{"scope", "pods": [...], "node": {...}} from PodResources ``pods`` (as `client.read` returns them).

    ``online_cpus``: the node's online CPUs (facts); ``allocatable_cpus``: GetAllocatableResources'
    cpu_ids, when read. Each pod's exclusive CPUs are counted once: its pod-level set under pod
    scope, the union of its exclusive containers' sets otherwise. ``dra``: {"claims", "slice_devices", "node"} (the ResourceClaims
    and `resource_slices.devices` read from the API, the node's name) joins each DRA device (`_device_path.dra_claims`), or None.
    """
    if isinstance(scope, (dict, list)) or scope not in SCOPES:
        raise nodefs.EvidenceError("topology manager scope %r is not one of %s" % (scope, ", ".join(SCOPES)), scope=scope)
    pods = inputs.check_pods(pods)
    if allocatable_cpus is not None and not isinstance(allocatable_cpus, str):
        raise nodefs.EvidenceError("allocatable_cpus must be a cpulist string (GetAllocatableResources cpu_ids) or null, got %s"
                                   % type(allocatable_cpus).__name__, field="allocatable_cpus")
    reconciled = [_one(pod, scope, oracle, dra) for pod in pods]
    held = [p["pod_cpus"] if p["pod_cpus"] is not None else _cpulist.union(*p["exclusive"].values()) for p in reconciled]
    exclusive = _cpulist.union(*held) if held else ""
    findings = []
    counted = sum(len(_cpulist.parse(cpus)) for cpus in held)
    if counted != len(_cpulist.parse(exclusive)):
        findings.append(_finding(None, None, "pods_overlap", "disagree",
                                 "exclusive CPU sets of different pods overlap: %d CPUs held, %d distinct (%s)"
                                 % (counted, len(_cpulist.parse(exclusive)), exclusive), expected=len(_cpulist.parse(exclusive)), observed=counted))
    node = {"online_cpus": _cpulist.canonical(online_cpus), "allocatable_cpus": allocatable_cpus, "exclusive_cpus": exclusive,
            "exclusive_count": len(_cpulist.parse(exclusive)), "shared_pool": _cpulist.difference(online_cpus, exclusive)}
    for pod in reconciled:
        if pod["shared_pool"] == "node":
            pod["shared_cpus"] = node["shared_pool"]
    return {"scope": scope, "pods": reconciled, "node": node, "findings": findings}
