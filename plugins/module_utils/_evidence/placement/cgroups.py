# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The node's cgroup hierarchy and the kubelet's pod cgroups in it, found by pod UID.

Public: `hierarchy`, `find_pod`, `cgroup_of_pid`, `relative_path`.

`hierarchy(root)` says which cgroup version holds the cpuset: v2 when ``/sys/fs/cgroup`` is the
unified mount (it has ``cgroup.controllers``), else v1 with its per-controller mounts (the
hybrid layout, with an empty ``unified`` beside them, is v1 for cpusets and CPU accounting).
`find_pod` tries every place `layout.pod_cgroup_candidates` names and lists the pod's container
cgroups. Paths in results are cgroup paths (``/kubepods/pod<uid>``), the same in v1 and v2.

A cgroup path is read only inside the mount: `relative_path` refuses a ``..`` component, which the
kernel writes into ``/proc/<pid>/cgroup`` for a process outside the reader's cgroup namespace
(``0::/../../user.slice/...``), and which a ``cgroup_root`` could carry; `nodefs` refuses a link
that leads out of the mount.
"""

from __future__ import annotations

import posixpath

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence.placement import cgroup_layout as layout
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence import nodefs

CGROUP = nodefs.CGROUP


def relative_path(cgroup, source, absolute=True):
    """``cgroup`` (``/kubepods/pod<uid>``) as a path relative to a cgroup mount; EvidenceError when it would leave the mount.

    ``source`` names where the path came from (a file, an option) in the message; with ``absolute``
    the path must start with ``/``, as the kernel and the kubelet write cgroup paths.
    """
    if not isinstance(cgroup, str):
        raise nodefs.EvidenceError("%s: cgroup path %r is a %s, not a path" % (source, cgroup, type(cgroup).__name__), path=cgroup)
    if absolute and not cgroup.startswith("/"):
        raise nodefs.EvidenceError("%s: cgroup path %r does not start with '/': not a cgroup path" % (source, cgroup[:80]), path=cgroup)
    if "\0" in cgroup:
        raise nodefs.EvidenceError("%s: cgroup path %r has a NUL byte: not a cgroup path" % (source, cgroup[:80]), path=cgroup)
    parts = [part for part in cgroup.split("/") if part not in ("", ".")]
    if ".." in parts:
        raise nodefs.EvidenceError("%s: cgroup path %r has a '..' component: it leads outside the cgroup mount /%s (a process in another "
                                   "cgroup namespace shows such a path); not read" % (source, cgroup[:80], CGROUP), path=cgroup)
    return "/".join(parts)


def hierarchy(root):
    """{"version", "cpuset", "cpuacct"}: the mount directories (relative to root) holding each controller's files.

    Raises `EvidenceError` when neither a cgroup v2 mount nor a v1 cpuset mount is under root.
    """
    if nodefs.is_file(root, posixpath.join(CGROUP, "cgroup.controllers")):
        return {"version": 2, "cpuset": CGROUP, "cpuacct": CGROUP}
    cpuset = posixpath.join(CGROUP, "cpuset")
    if not nodefs.is_dir(root, cpuset):
        raise nodefs.EvidenceError("no cgroup hierarchy under %s: neither %s/cgroup.controllers (cgroup v2) nor %s (cgroup v1) exists"
                                   % (root, CGROUP, cpuset), root=root)
    cpuacct = None
    for name in ("cpuacct", "cpu,cpuacct", "cpuacct,cpu"):
        if nodefs.is_dir(root, posixpath.join(CGROUP, name)):
            cpuacct = posixpath.join(CGROUP, name)
            break
    return {"version": 1, "cpuset": cpuset, "cpuacct": cpuacct}


def find_pod(root, tree, uid, cgroup_root="/"):
    """The pod's cgroup: {"uid", "driver", "qos", "cgroup", "containers": [{"id", "runtime", "cgroup"}]}, or None.

    ``tree`` is `hierarchy(root)`. Container cgroups are the pod cgroup's children that a
    runtime named (the sandbox's pause container is one of them); other children are ignored.
    """
    if not layout.is_pod_uid(uid):
        raise nodefs.EvidenceError("pod uid %r is not a UID (8-4-4-4-12 hex digits, or 32 for a static pod's hash)" % (uid,), uid=uid)
    base = relative_path(cgroup_root or "/", "cgroup_root", absolute=False)
    for driver, qos, relative in layout.pod_cgroup_candidates(uid, "/" + base):
        if not nodefs.is_dir(root, posixpath.join(tree["cpuset"], relative)):
            continue
        containers = []
        for name in nodefs.list_dirs(root, posixpath.join(tree["cpuset"], relative)):
            known = layout.container_of(name)
            if known is not None:
                known["cgroup"] = "/" + posixpath.join(relative, name)
                containers.append(known)
        return {"uid": uid, "driver": driver, "qos": qos, "cgroup": "/" + relative, "containers": containers}
    return None


def cgroup_of_pid(root, tree, pid):
    """The cgroup path of ``pid`` in the hierarchy holding the cpuset (from /proc/<pid>/cgroup), or None."""
    text = nodefs.read_text(root, "proc/%d/cgroup" % pid)
    if text is None:
        return None
    for line in text.splitlines():
        parts = line.split(":", 2)
        if len(parts) != 3:
            continue
        controllers = parts[1].split(",") if parts[1] else []
        if (tree["version"] == 2 and parts[0] == "0" and not controllers) or (tree["version"] == 1 and "cpuset" in controllers):
            relative_path(parts[2], "/proc/%d/cgroup" % pid)
            return parts[2]
    return None
