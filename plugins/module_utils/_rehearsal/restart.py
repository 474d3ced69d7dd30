# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The opt-in restart of a recreated workload's main container after a rehearsed rollback, and its allocation compared.

Public: `main_process`, `stop`, `same_allocation`, `results`.

On the node (`stop`, the rehearsal_restart module): the container's main process is the one process
of its cgroup whose parent is outside it (the runtime's shim is the parent), each PID checked to be
in that cgroup now (``/proc/<pid>/cgroup``), so a PID reused since placement_info read it is never
signalled. It gets SIGKILL: a container's PID 1 ignores SIGTERM unless it set a handler
(pid_namespaces(7)), while SIGKILL from the host always ends it; the runtime reports the exit and
the kubelet starts the container again under the pod's ``restartPolicy``, in the same pod.

Through the API and PodResources (`results`, pure): the restart is seen when the container's
``restartCount`` rose and the pod is Ready again; its allocation (exclusive CPUs, memory blocks,
devices, DRA devices, as PodResources lists them before and after) must be the same, since the
kubelet's CPU, memory and device managers keep a container's assignment across its restart
(their checkpoints are per pod and container name). Each difference is a line.
"""

from __future__ import annotations

import os
import signal

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import fileio as _fileio
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base.errors import NumaGateError


def _read(root, path):
    try:
        return _fileio.read_regular(_fileio.resolve_within(root, path), 65536).decode("utf-8", "replace")
    except (FileNotFoundError, ProcessLookupError, NotADirectoryError):
        return None


def _parent(root, pid):
    text = _read(root, "proc/%d/stat" % pid)
    if text is None or ")" not in text:
        return None
    fields = text.rsplit(")", 1)[1].split()
    return int(fields[1]) if len(fields) > 1 and fields[1].isdigit() else None


def _in_cgroup(root, pid, cgroup):
    text = _read(root, "proc/%d/cgroup" % pid)
    return text is not None and any(line.split(":", 2)[-1] == cgroup for line in text.splitlines() if line.count(":") >= 2)


def main_process(root, cgroup, pids):
    """The PID of the container's main process: the one in ``cgroup`` now whose parent is not; NumaGateError naming why not."""
    if not isinstance(cgroup, str) or not cgroup.startswith("/") or ".." in cgroup.split("/"):
        raise NumaGateError("cgroup %s is not a cgroup path: nothing was stopped" % _fileio.short_repr(cgroup))
    alive = [pid for pid in pids if isinstance(pid, int) and not isinstance(pid, bool) and pid > 0 and _in_cgroup(root, pid, cgroup)]
    roots = [pid for pid in alive if _parent(root, pid) not in alive]
    if len(roots) != 1:
        raise NumaGateError("cgroup %s has %s: its main process is not known, so nothing was stopped (processes given: %s)"
                            % (cgroup, "no process of those given" if not roots else "%d processes whose parent is outside it (%s)"
                               % (len(roots), ", ".join(str(pid) for pid in roots)), ", ".join(str(pid) for pid in pids) or "none"))
    return roots[0]


def stop(root, cgroup, pids, check_mode=False):
    """{"pid", "signal", "stopped"}: the main process of ``cgroup`` gets SIGKILL (not in check mode).

    Only on this host's own /proc: under another ``root`` (a recorded tree) the PIDs are not this host's processes.
    """
    pid = main_process(root, cgroup, pids)
    if not check_mode and os.path.realpath(root) != "/":
        raise NumaGateError("root %s is not /: PID %d read under it is not a process of this host, so nothing was stopped" % (root, pid))
    if not check_mode:
        os.kill(pid, signal.SIGKILL)
    return {"pid": pid, "signal": "SIGKILL", "stopped": not check_mode}


def _container(reading, pod, container):
    for entry in (reading or {}).get("pods") or []:
        if "%s/%s" % (entry.get("namespace"), entry.get("name")) != pod:
            continue
        for found in entry.get("containers") or []:
            if found.get("name") == container:
                return {key: found.get(key) if key == "cpu_ids" else sorted(found.get(key) or [], key=repr)
                        for key in ("cpu_ids", "memory", "devices", "dynamic_resources")}
    return None


def same_allocation(before, after, pod, container):
    """[line] for each way ``container`` of ``pod`` (``namespace/name``) got another allocation after its restart.

    ``before`` and ``after``: pod_resources_info results (their ``pods``, as PodResources lists them); empty: the same.
    """
    first, second = _container(before, pod, container), _container(after, pod, container)
    if first is None or second is None:
        return ["pod %s container %s: not listed by PodResources %s the restart, so whether its allocation held is unknown"
                % (pod, container, "before" if first is None else "after")]
    lines = []
    for key, what in (("cpu_ids", "exclusive CPUs"), ("memory", "memory blocks"), ("devices", "devices"), ("dynamic_resources", "DRA devices")):
        if first[key] != second[key]:
            lines.append("pod %s container %s: its %s changed with the restart: %s before, %s after" % (pod, container, what, first[key], second[key]))
    return lines


def _status(result, container):
    """(restartCount, Ready) of ``container`` in a k8s_info result for one pod, or (None, False)."""
    for pod in (result or {}).get("resources") or []:
        status = pod.get("status") or {}
        ready = any(c.get("type") == "Ready" and c.get("status") == "True" for c in status.get("conditions") or [] if isinstance(c, dict))
        for entry in list(status.get("containerStatuses") or []) + list(status.get("initContainerStatuses") or []):
            if isinstance(entry, dict) and entry.get("name") == container:
                count = entry.get("restartCount")
                return (count if isinstance(count, int) and not isinstance(count, bool) else None), ready
    return None, False


def _by_pod(results):
    return {((result.get("item") or {}).get("pod")): result for result in (results or {}).get("results") or [] if isinstance(result, dict)}


def results(stops, before, after, pod_resources_before, pod_resources_after):
    """One entry per restart asked (`_rehearsal.workloads.check`'s ``restarts``), from the role's looped task results.

    ``stops``: the rehearsal_restart loop (each ``item`` a placement_recheck pod with its ``main``); ``before`` and ``after``:
    kubernetes.core.k8s_info loops reading each pod before the stop and after the wait; the two pod_resources_info results.
    """
    found = []
    counts, waited = _by_pod(before), _by_pod(after)
    for index, stopped in enumerate((stops or {}).get("results") or []):
        if not isinstance(stopped, dict) or not isinstance(stopped.get("item"), dict):
            raise NumaGateError("stops.results[%d] is %s, not a task result of the restart loop (with its item)" % (index, _fileio.short_repr(stopped)))
        item = stopped["item"]
        pod, container = item.get("pod"), (item.get("main") or {}).get("container")
        first, _ready = _status(counts.get(pod), container)
        second, ready = _status(waited.get(pod), container)
        entry = {"pod": pod, "container": container, "restart_count": second, "changes": [], "error": None}
        if stopped.get("failed") or not stopped.get("stopped"):
            entry["error"] = str(stopped.get("msg") or "its main process was not stopped")
        elif first is None or second is None or second <= first or not ready:
            entry["error"] = ("its restart count went from %s to %s and the pod is %sReady: the restart was not seen"
                              % (first, second, "" if ready else "not "))
        entry["restarted"] = entry["error"] is None
        if entry["restarted"]:
            entry["changes"] = same_allocation(pod_resources_before, pod_resources_after, pod, container)
        found.append(entry)
    return found
