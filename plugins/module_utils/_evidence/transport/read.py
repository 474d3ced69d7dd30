# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The transport_info reading on the node: each pod's main container, its main process and the transport keys of its environ.

Public: `read_pods`.

The container is found by pod UID and the container ID the API reports for the named container
(``containerd://<id>`` accepted), in the kubelet's cgroups (`placement.cgroups`). Its main process is the
one in its ``cgroup.procs`` whose parent (``PPid`` of ``/proc/<pid>/status``) is not in the container: the
process the runtime started (the lowest such PID when there are several). Only the keys of
`selection.VARIABLES` are read from its environ (`environ.read_keys`).
"""

from __future__ import annotations

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence import nodefs
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence.placement import cgroups
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence.placement import cpusets
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence.transport import environ
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence.transport import selection


def _parent(root, pid):
    text = nodefs.read_text(root, "proc/%d/status" % pid, 64 * 1024)
    for line in (text or "").splitlines():
        if line.startswith("PPid:"):
            word = line.split(":", 1)[1].strip()
            return int(word) if word.isdigit() else None
    return None


def main_pid(root, pids):
    """The container's main process among ``pids`` (see the module docstring), or None when there is none."""
    inside = set(pids)
    for pid in sorted(pids):
        if _parent(root, pid) not in inside:
            return pid
    return None


def _one(root, tree, pod, container, cgroup_root):
    uid = pod.get("uid")
    label = pod.get("pod") or uid
    wanted = str((pod.get("container_ids") or {}).get(container) or "").rsplit("://", 1)[-1]
    entry = {"uid": uid, "container": container, "container_id": wanted or None, "pid": None, "environ": None, "problem": None}
    if not wanted:
        entry["problem"] = "pod %s: the API reports no container ID for container %r (container_ids: %s)" % (
            label, container, ", ".join(sorted(pod.get("container_ids") or {})) or "none")
        return entry
    found = cgroups.find_pod(root, tree, uid, cgroup_root)
    cgroup = next((c["cgroup"] for c in (found or {}).get("containers") or [] if c["id"] == wanted), None)
    if cgroup is None:
        entry["problem"] = "pod %s: no cgroup of container %s (%s) on the node" % (label, container, wanted)
        return entry
    entry["pid"] = main_pid(root, cpusets.processes(root, tree, cgroup))
    if entry["pid"] is None:
        entry["problem"] = "pod %s: container %s has no process in %s" % (label, container, cgroup)
        return entry
    entry["environ"] = environ.read_keys(root, entry["pid"], selection.VARIABLES)
    return entry


def read_pods(root, pods, container, cgroup_root="/"):
    """[{"uid", "container", "container_id", "pid", "environ", "problem"}], one per pod (``pods``: {"uid", "container_ids"[, "pod"]}).

    ``pod`` (namespace/name), when given, names the pod in the problems; else its UID does.
    """
    tree = cgroups.hierarchy(root)
    return [_one(root, tree, pod, container, cgroup_root) for pod in pods]
