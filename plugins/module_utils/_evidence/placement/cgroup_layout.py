# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Where the kubelet puts a pod's cgroup: every QoS class, both cgroup drivers.

Public: `QOS_CLASSES`, `DRIVERS`, `pod_cgroup_candidates`, `container_of`.

The kubelet's layout (pkg/kubelet/cm/cgroup_manager_linux.go, qos_container_manager_linux.go,
pod_container_manager_linux.go): under its cgroup root (``--cgroup-root``, default ``/``) the
node-allocatable cgroup ``kubepods``; Guaranteed pods directly under it as ``pod<uid>``,
Burstable and BestEffort pods under ``burstable`` / ``besteffort``. The systemd driver spells
each level as a slice whose name repeats its parents' (``kubepods.slice/kubepods-burstable.slice/
kubepods-burstable-pod<uid>.slice``) with the UID's dashes turned into underscores, since a dash
is systemd's hierarchy separator. Containers are children of the pod cgroup, named by the
runtime: ``cri-containerd-<id>.scope``, ``crio-<id>.scope``, ``docker-<id>.scope`` (systemd), or
the bare ``<id>`` / ``crio-<id>`` (cgroupfs). CRI-O's monitor has its own ``crio-conmon-<id>``.
"""

from __future__ import annotations

import posixpath
import re

QOS_CLASSES = ("guaranteed", "burstable", "besteffort")
DRIVERS = ("cgroupfs", "systemd")
_UID = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$|^[0-9a-fA-F]{32}$")
_CONTAINER = re.compile(r"^(?:(?P<prefix>cri-containerd|crio-conmon|crio|docker)-)?(?P<id>[0-9a-f]{64})(?P<scope>\.scope)?$")
_RUNTIME = {"cri-containerd": "containerd", "crio": "cri-o", "crio-conmon": "cri-o conmon", "docker": "docker"}


def is_pod_uid(text):
    """True for a pod UID as the API writes it (or the 32 hex digits of a static pod's hash)."""
    return isinstance(text, str) and bool(_UID.match(text))


def pod_cgroup_candidates(uid, cgroup_root="/"):
    """[(driver, qos, relative cgroup path)] where the pod ``uid`` can be, in a fixed order."""
    base = (cgroup_root or "/").strip("/")
    escaped = uid.replace("-", "_")
    found = []
    for qos in QOS_CLASSES:
        parts = ["kubepods"] + ([] if qos == "guaranteed" else [qos]) + ["pod" + uid]
        found.append(("cgroupfs", qos, posixpath.join(base, *parts)))
    for qos in QOS_CLASSES:
        if qos == "guaranteed":
            parts = ["kubepods.slice", "kubepods-pod%s.slice" % escaped]
        else:
            parts = ["kubepods.slice", "kubepods-%s.slice" % qos, "kubepods-%s-pod%s.slice" % (qos, escaped)]
        found.append(("systemd", qos, posixpath.join(base, *parts)))
    return found


def container_of(name):
    """{"id", "runtime"} for a container cgroup directory name, or None when it is not one."""
    match = _CONTAINER.match(name)
    if not match:
        return None
    prefix = match.group("prefix")
    return {"id": match.group("id"), "runtime": _RUNTIME.get(prefix) if prefix else None}
