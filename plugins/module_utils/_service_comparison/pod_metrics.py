# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The workload's own pods' metrics, read through the API's pod proxy (controller side).

Public: `check_pods`, `read_pods`, `proxy_path`.

The pods are the canary's evidence subjects (``canary_result.pods``: ``{"pod": "<ns>/<name>", "uid"}``), not
free URLs: each is read back by name first and must still be the pod of that uid (a pod recreated under
the same name is another process, whose counters belong to no window of this one), then its
``/metrics`` is one GET of ``/api/v1/namespaces/<ns>/pods/<name>:<port>/proxy/<path>`` with the
collection's API client (`_kube_api.api`: one deadline, a byte bound, credentials masked). The
answer is trimmed to the compared metrics, as a scrape of ``metrics_url`` is.
"""

from __future__ import annotations

import re
import time
import urllib.parse

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import k8s_names
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._service_comparison.errors import ServiceComparisonError
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._service_comparison import window as service_window

# A relative URL path of plain segments: what goes after .../proxy/ (no query, no "..", no scheme).
_PATH = re.compile(r"[A-Za-z0-9._~-]+(/[A-Za-z0-9._~-]+)*\Z")


def check_pods(pods, port, path):
    """[(namespace, name, uid)] of ``pods`` (entries with ``pod`` "<ns>/<name>" and ``uid``) when they and ``port``, ``path`` are sound."""
    if isinstance(port, bool) or not isinstance(port, int) or not 0 < port < 65536:
        raise ServiceComparisonError("metrics_port %r is not a TCP port (an integer from 1 to 65535)" % (port,), field="metrics_port")
    if not isinstance(path, str) or not _PATH.match(path) or ".." in path.split("/"):
        raise ServiceComparisonError("metrics_path %r is not a relative path of plain segments (such as metrics)" % (path,), field="metrics_path")
    if not isinstance(pods, list) or not pods:
        raise ServiceComparisonError("pods must be a non-empty list of the workload's pods ({pod: <namespace>/<name>, uid}), got %r" % (pods,),
                                     field="pods")
    checked, seen = [], set()
    for index, entry in enumerate(pods):
        where = "pods[%d]" % index
        if not isinstance(entry, dict) or not isinstance(entry.get("pod"), str) or entry["pod"].count("/") != 1:
            raise ServiceComparisonError("%s must be a mapping with pod (<namespace>/<name>) and uid, got %r" % (where, entry), field=where)
        if not isinstance(entry.get("uid"), str) or not entry["uid"].strip():
            raise ServiceComparisonError("%s (%s) has no uid: the pod is named by its uid, so that a pod recreated under its name is not "
                                         "read as it" % (where, entry["pod"]), field=where)
        namespace, name = entry["pod"].split("/")
        k8s_names.namespace(namespace, "%s namespace" % where)
        k8s_names.pod_name(name, "%s name" % where)
        if entry["uid"] in seen:
            raise ServiceComparisonError("%s: the pod of uid %s is given twice: its counters would be counted twice" % (where, entry["uid"]),
                                         field=where)
        seen.add(entry["uid"])
        checked.append((namespace, name, entry["uid"]))
    return checked


def proxy_path(namespace, name, port, path):
    """``/api/v1/namespaces/<ns>/pods/<name>:<port>/proxy/<path>``, each segment quoted."""
    return "/api/v1/namespaces/%s/pods/%s/proxy/%s" % (urllib.parse.quote(namespace, safe=""), urllib.parse.quote("%s:%d" % (name, port), safe=":"),
                                                       path)


def read_pods(api, pods, port, path="metrics", mapping=None, max_bytes=4 * 1024 * 1024, clock=time.time):
    """{"timestamp", "via", "pods": [{"pod", "uid", "text"}]}: each pod read back by uid, then its metrics through the pod proxy."""
    read = []
    for namespace, name, uid in check_pods(pods, port, path):
        pod = api.get_pod(namespace, name)
        if pod is None:
            raise ServiceComparisonError("pod %s/%s (uid %s) is gone: the workload's pod whose service is compared is no longer there"
                                         % (namespace, name, uid))
        found = (pod.get("metadata") or {}).get("uid")
        if found != uid:
            raise ServiceComparisonError("pod %s/%s is now uid %s, not %s: another pod under the same name; its metrics are not read"
                                         % (namespace, name, found, uid))
        text = api.request("GET", proxy_path(namespace, name, port, path), raw=True, max_bytes=max_bytes)
        read.append({"pod": "%s/%s" % (namespace, name), "uid": uid, "text": service_window.trim(text, mapping)})
    return {"timestamp": round(clock(), 3), "via": "pod proxy :%d/%s" % (port, path), "pods": read}
