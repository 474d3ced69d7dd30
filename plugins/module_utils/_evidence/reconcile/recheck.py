# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The canary's placement checks for the workloads a rehearsed rollback recreated (pure).

Public: `recheck`.

`recheck`: each pod that came back Ready after the rollback (the rehearsal_workloads result, whose
pods carry their ``container_ids``) gets what the canary gets (`findings.reconcile_pod`): its
containers' cgroup CPU sets and every thread's mask against PodResources (``cpuset``,
``thread_masks``), its devices' NUMA nodes against its CPUs (``device_locality``, device identities
as PodResources lists them, mapped through the facts), its permitted memory nodes and its resident
pages (``memory_nodes``, ``resident_memory``; not for a pod on the shared pool with no device, which the
kubelet gives no NUMA node). Unknown is never agreement: a pod PodResources does not
list, or whose cgroup placement_info did not find, is an ``unknown`` finding, and so is a read that
failed; each disagreement or unknown is a problem line.
"""

from __future__ import annotations

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence.reconcile import findings as reconcile
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._plan import locality


def _unknown(pod, check, message):
    return {"pod": pod, "container": None, "check": check, "result": "unknown", "expected": None, "observed": None,
            "sources": {"expected": "PodResources", "observed": "placement_info"}, "message": message}


def _read_error(result, what):
    if result is None:
        return "%s was not read" % what
    if result.get("msg") and not result.get("pods") and not result.get("reconciled"):
        return "%s failed: %s" % (what, result["msg"])
    return None


def _applicable(allocation, found):
    """``found`` without the memory locality checks when the kubelet gave the pod no NUMA node to be local to.

    A pod with no exclusive CPUs (nor a pod-level set) and no device runs on the shared pool: the kubelet promises its
    memory no node, so ``memory_nodes`` and ``resident_memory`` have no expectation to be held to (reconcile_pod would
    read "expected none" as a disagreement). Every other check stays.
    """
    if allocation.get("exclusive") or allocation.get("pod_cpus") or any(allocation.get("devices", {}).values()):
        return found
    return [finding for finding in found if finding.get("check") not in ("memory_nodes", "resident_memory")]


def _main(place, container_ids, main_container):
    """{"container", "id", "cgroup", "pids"} of the pod's main container in its placement_info entry, or None."""
    wanted = str((container_ids or {}).get(main_container) or "").split("://", 1)[-1] if main_container else ""
    for view in (place or {}).get("containers") or []:
        if wanted and view.get("id") == wanted:
            return {"container": main_container, "id": wanted, "cgroup": view.get("cgroup"),
                    "pids": [process.get("pid") for process in view.get("processes") or []]}
    return None


def recheck(pod_resources, placement, after, topology, main_container=None):
    """{"pods": [{"pod", "uid", "owner", "findings", "main"}], "problems": [line], "checked": n} for the pods that came back Ready.

    ``main``: with ``main_container`` (a container name), that container's id, cgroup and processes where the pod has it (for
    the opt-in restart), else None.
    """
    oracle = locality.build(topology)
    reconciled = ((pod_resources or {}).get("reconciled") or {}).get("pods") or []
    allocations = {pod.get("pod"): pod for pod in reconciled}
    placed = {pod.get("uid"): pod for pod in (placement or {}).get("pods") or []}
    failed = [error for error in (_read_error(pod_resources, "PodResources (pod_resources_info)"), _read_error(placement, "placement_info"))
              if error]
    checked = []
    for workload in (after or {}).get("workloads") or []:
        for pod in workload.get("now") or []:
            if not pod.get("ready"):
                continue
            name = "%s/%s" % (workload.get("namespace"), pod.get("name"))
            allocation, place = allocations.get(name), placed.get(pod.get("uid"))
            if failed:
                found = [_unknown(name, "recheck_read", "pod %s: %s, so its placement after the rollback is unknown" % (name, "; ".join(failed)))]
            elif allocation is None:
                found = [_unknown(name, "recheck_allocation", "pod %s is not listed by PodResources after the rollback" % name)]
            elif not (place or {}).get("found"):
                found = [_unknown(name, "recheck_cgroup", "pod %s (uid %s): placement_info found no cgroup for it after the rollback"
                                  % (name, pod.get("uid")))]
            else:
                found = _applicable(allocation, reconcile.reconcile_pod(allocation, place, pod.get("container_ids") or {}, oracle))
            checked.append({"pod": name, "uid": pod.get("uid"), "owner": workload.get("owner"), "findings": found,
                            "main": _main(place, pod.get("container_ids"), main_container)})
    problems = ["%s: %s %s: %s" % (entry["pod"], finding["check"], finding["result"], finding["message"])
                for entry in checked for finding in entry["findings"] if finding.get("result") != "agree"]
    return {"pods": checked, "problems": problems, "checked": len(checked)}
