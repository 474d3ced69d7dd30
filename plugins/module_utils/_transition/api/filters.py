# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Which pods a drain evicts, skips or refuses: kubectl's pod filters.

Public: `classify`, `Selection`, `pod_name`, `DAEMONSET_FATAL`, `LOCAL_STORAGE_FATAL`, `UNMANAGED_FATAL`.

Copied in meaning (not code) from k8s.io/kubectl pkg/drain/filters.go (``makeFilters``), the
filters applied in that order, a pod leaving at the first that does not delete it, and the last
filter's status kept:
- ``daemonSetFilter``: a pod whose controller is an apps/v1 DaemonSet stays (``ignore_daemonsets``)
  or refuses the drain; a finished one (Succeeded/Failed) is evicted; one whose DaemonSet is gone is
  deleted with a warning under ``force``, else refuses with the API's NotFound message;
- ``mirrorPodFilter``: a pod with the annotation ``kubernetes.io/config.mirror`` stays;
- ``localStorageFilter``: a pod with an emptyDir volume refuses unless ``delete_emptydir_data``
  (finished pods pass);
- ``unreplicatedFilter``: a pod without a controller refuses unless ``force`` (then a warning);
  finished pods pass.
Refusals are grouped by reason as kubectl's ``PodDeleteList.errors`` groups them (``cannot delete
<reason>: ns/a, ns/b``); the reasons name this collection's options instead of kubectl's flags.
kubectl's ``skipDeletedFilter`` only acts with ``--skip-wait-for-delete-timeout`` (default 0, off)
and is not offered.
"""

from __future__ import annotations

import collections

MIRROR_ANNOTATION = "kubernetes.io/config.mirror"
DAEMONSET_FATAL = "DaemonSet-managed Pods (use ignore_daemonsets=true to ignore)"
DAEMONSET_SKIP = "DaemonSet-managed"
MIRROR_SKIP = "mirror pod (a static pod the kubelet runs from a file)"
LOCAL_STORAGE_FATAL = "Pods with local storage (use delete_emptydir_data=true to override)"
UNMANAGED_FATAL = "Pods that declare no controller (use force=true to override)"
UNMANAGED_WARNING = "deleting Pods that declare no controller"
LOCAL_STORAGE_WARNING = "deleting Pods with local storage"
FINISHED = ("Succeeded", "Failed")

Selection = collections.namedtuple("Selection", "evict skipped warnings refusals")
Selection.__doc__ = """What a drain does with the node's pods.

``evict``: the pods to evict (dicts, in ``namespace/name`` order); ``skipped``: ``[{"pod", "reason"}]``;
``warnings``: lines as kubectl prints them (``<warning>: ns/a, ns/b``); ``refusals``: lines
``cannot delete <reason>: ns/a, ns/b`` (the drain refuses when there is any).
"""


def pod_name(pod):
    """``namespace/name``"""
    return "%s/%s" % (pod["metadata"].get("namespace", ""), pod["metadata"]["name"])


def _controller(pod):
    for ref in pod["metadata"].get("ownerReferences") or []:
        if ref.get("controller"):
            return ref
    return None


def _finished(pod):
    return (pod.get("status") or {}).get("phase") in FINISHED


def _daemonset(api, pod, options):
    """(delete, kind, message) for kubectl's daemonSetFilter; kind is ok/skip/warning/error."""
    ref = _controller(pod)
    if ref is None or ref.get("kind") != "DaemonSet" or ref.get("apiVersion") != "apps/v1" or _finished(pod):
        return True, "ok", ""
    if api.get_daemonset(pod["metadata"].get("namespace", ""), ref["name"]) is None:
        message = 'daemonsets.apps "%s" not found' % ref["name"]
        return (True, "warning", message) if options.force else (False, "error", message)
    if not options.ignore_daemonsets:
        return False, "error", DAEMONSET_FATAL
    return False, "skip", DAEMONSET_SKIP


def _mirror(_api, pod, _options):
    if MIRROR_ANNOTATION in (pod["metadata"].get("annotations") or {}):
        return False, "skip", MIRROR_SKIP
    return True, "ok", ""


def _local_storage(_api, pod, options):
    if not any("emptyDir" in volume for volume in (pod.get("spec") or {}).get("volumes") or []) or _finished(pod):
        return True, "ok", ""
    if not options.delete_emptydir_data:
        return False, "error", LOCAL_STORAGE_FATAL
    return True, "warning", LOCAL_STORAGE_WARNING


def _unreplicated(_api, pod, options):
    if _finished(pod) or _controller(pod) is not None:
        return True, "ok", ""
    if options.force:
        return True, "warning", UNMANAGED_WARNING
    return False, "error", UNMANAGED_FATAL


FILTERS = (_daemonset, _mirror, _local_storage, _unreplicated)


def _grouped(by_message):
    return ["%s: %s" % (message, ", ".join(pods)) for message, pods in by_message.items()]


def classify(api, pods, options):
    """A `Selection` for ``pods`` under ``options`` (ignore_daemonsets, delete_emptydir_data, force).

    ``api`` answers ``get_daemonset(namespace, name)`` (None when it is gone).
    """
    evict, skipped = [], []
    warnings, errors = {}, {}
    for pod in sorted(pods, key=pod_name):
        for check in FILTERS:
            delete, kind, message = check(api, pod, options)
            if not delete:
                break
        if kind == "skip":
            skipped.append({"pod": pod_name(pod), "reason": message})
        elif kind == "error":
            errors.setdefault(message, []).append(pod_name(pod))
        else:
            if kind == "warning":
                warnings.setdefault(message, []).append(pod_name(pod))
            evict.append(pod)
    return Selection(evict, skipped, _grouped(warnings), ["cannot delete " + line for line in _grouped(errors)])
