# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""After the kubelet's start: the pods that stayed were admitted again, and the device plugins registered again.

Public: `check`, `rejected`, `lost`, `gpu_pods`, `REJECTIONS`, `CameBackError`.

Two things the kubelet does on a restart that a Ready node does not show (GPU-NODE-FACTS.md section 4):
- it runs hard admission again for every pod bound to the node; a rejected pod gets ``phase: Failed``,
  a reason and a message starting ``Pod was rejected: `` (pkg/kubelet/kubelet.go ``rejectPod``), and is
  never admitted again (kubernetes#84757). The reasons: ``UnexpectedAdmissionError``, ``TopologyAffinityError``,
  ``SMTAlignmentError``, ``OutOf<resource>``, ``PodLevelResourcesNotSupported``;
- each device plugin registers again and its extended resource comes back in the Node's allocatable; a
  plugin that does not (rejected itself, or crashing) leaves the node's GPUs out of its allocatable.

`check` polls both within a bound, with progress lines, and fails naming each rejected pod and each
resource below its count before the stop. A rejection ends the wait at once: it is never undone. The GPU
pods that stayed (they ask for ``nvidia.com/gpu``) must be Ready again with no container restart since the
stop: a GPU container that lost its device access fails and restarts (GPU-NODE-FACTS.md section 3).
"""

from __future__ import annotations

import time

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import progress
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base.errors import NumaGateError
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._transition.api import cordon, filters, staying

REJECTIONS = ("UnexpectedAdmissionError", "TopologyAffinityError", "SMTAlignmentError", "PodLevelResourcesNotSupported")
_PREFIX = "Pod was rejected: "


class CameBackError(NumaGateError):
    """A pod that stayed was rejected at admission, a GPU pod restarted or is not Ready, or a device plugin's resource did not come back."""


def _is_rejection(pod):
    status = pod.get("status") or {}
    if status.get("phase") != "Failed":
        return False
    reason = status.get("reason") or ""
    return reason in REJECTIONS or reason.startswith("OutOf") or (status.get("message") or "").startswith(_PREFIX)


def rejected(pods, failed_before=()):
    """``["ns/pod (Reason: message)"]`` for the pods rejected at admission that had not failed before the stop."""
    out = []
    for pod in sorted(pods, key=filters.pod_name):
        if pod["metadata"].get("uid") in failed_before or not _is_rejection(pod):
            continue
        status = pod.get("status") or {}
        out.append("%s (%s: %s)" % (filters.pod_name(pod), status.get("reason") or "no reason", status.get("message") or "no message"))
    return out


def lost(before, now):
    """``["nvidia.com/gpu: 0 of 8 ..."]``: each extended resource below its count before the stop."""
    out = []
    for name, count in sorted(before.items()):
        had = staying.quantity(count, "%s before the stop" % name)
        has = staying.quantity(now.get(name, "0"), name)
        if has < had:
            out.append("%s: %s of the %s allocatable before the stop" % (name, now.get(name, "0 (absent)"), count))
    return out


def gpu_pods(pods, before):
    """``(restarted, unready)``: lines for the GPU pods that stayed (``before``: ``[{pod, uid, restarts}]``) that restarted since the
    stop (GPU containers losing device access fail and restart), and for those not Ready now or gone."""
    by_uid = {p["metadata"].get("uid"): p for p in pods}
    restarted, unready = [], []
    for entry in before:
        pod = by_uid.get(entry["uid"])
        if pod is None:
            unready.append("%s is gone" % entry["pod"])
            continue
        more = staying.restarts(pod) - int(entry.get("restarts") or 0)
        if more > 0:
            restarted.append("%s restarted %d time%s since the stop" % (entry["pod"], more, "" if more == 1 else "s"))
        ready = [c for c in (pod.get("status") or {}).get("conditions") or [] if c.get("type") == "Ready"]
        if not ready or ready[0].get("status") != "True":
            unready.append("%s is not Ready" % entry["pod"])
    return restarted, unready


def check(api, node, before, timeout=180, poll=2, display=None, clock=time.monotonic, sleep=time.sleep):
    """Wait (``timeout`` s) for ``before``'s extended resources (``{extended_resources, failed_before, gpu_pods}``) to be back and its
    GPU pods Ready, failing at once on a pod rejected at admission or a GPU pod restarted since the stop.
    Returns ``{rejected_pods, restarted_pods, lost_resources, unready_pods, extended_resources, waited_s}`` (the lists empty)."""
    wanted = before.get("extended_resources") or {}
    failed_before = set(before.get("failed_before") or ())
    started = clock()
    while True:
        now = staying.extended(cordon.read_node(api, node))
        pods = api.pods_on_node(node)
        restarted, unready = gpu_pods(pods, before.get("gpu_pods") or [])
        refused = rejected(pods, failed_before)
        missing = lost(wanted, now)
        waited = clock() - started
        found = {"rejected_pods": refused, "restarted_pods": restarted, "lost_resources": missing, "unready_pods": unready,
                 "extended_resources": now, "waited_s": round(waited, 1)}
        if refused or restarted or ((missing or unready) and waited >= timeout):
            parts = ["rejected at admission: %s" % "; ".join(refused)] if refused else []
            if restarted:
                parts.append("GPU pods restarted: %s" % "; ".join(restarted))
            if missing:
                parts.append("not back in the node's allocatable after %s: %s" % (progress.seconds(waited), "; ".join(missing)))
            if unready:
                parts.append("GPU pods not Ready after %s: %s" % (progress.seconds(waited), "; ".join(unready)))
            raise CameBackError("verify %s: the pods that stayed through the restart did not all come back: %s" % (node, "; ".join(parts)),
                                **found)
        if not (missing or unready):
            return found
        progress.say(display, progress.verify_line(node, "waiting for the device plugins: %s" % "; ".join(missing + unready), waited, timeout))
        sleep(max(0, min(poll, timeout - waited)))
