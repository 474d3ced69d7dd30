# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Controller side: wait, within a bound, for the canary's pods to be admitted, or refused at a layer, with progress lines.

Public: `wait`.

One look reads the canary's pods (a bare pod by its name, a controller's by its labels) through the API; the wait ends when
``replicas`` pods exist and either as many are admitted and Ready or one is refused (`canary.admission`), or when the bound is
spent. A line goes to ``display`` when what it says changes, else one every 10 s (`progress.Pace`), never one per look: the
role's until loop printed "FAILED - RETRYING" every few seconds and an [ERROR] when its retries ran out.
"""

from __future__ import annotations

import math
import time

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import k8s_names
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import progress
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base.errors import NumaGateError
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence import canary
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kube_api import answers


def _looked(api, namespace, name, selector):
    if name:
        pod = api.get_pod(namespace, name)
        return [] if pod is None else [pod]
    query = {"labelSelector": ",".join("%s=%s" % item for item in sorted(selector.items()))}
    path = "/api/v1/namespaces/%s/pods" % k8s_names.namespace(namespace)
    # Each pod of the list checked as one read by name is: a list of another shape is named, never read as no pods.
    return answers.pod_list(api.request("GET", path, query=query), "GET %s?labelSelector=%s" % (path, query["labelSelector"]))


def _counts(pods):
    found = [canary.admission(pod) for pod in pods]
    return (len(pods), sum(1 for pod in pods if ((pod.get("spec") or {}).get("nodeName"))), sum(1 for one in found if one["admitted"]),
            sum(len(one["failures"]) for one in found))


def wait(api, namespace, name=None, selector=None, replicas=1, timeout=180, poll=3, display=None, clock=time.monotonic,
         sleep=time.sleep, window=False):
    """``{"resources": the pods last seen, "attempts": looks, "waited_s"}`` (see the module docstring); API errors raise.

    ``window``: look until ``timeout`` whatever the pods do, the line counting the refused too (the admission-failure probe)."""
    if bool(name) == bool(selector):
        raise NumaGateError("give the canary's pod name or its pods' label selector, one of them, not %s" % ("both" if name else "neither"))
    if not (math.isfinite(timeout) and math.isfinite(poll)) or timeout < 0 or poll <= 0 or replicas < 1:
        raise NumaGateError("timeout must be 0 or more seconds, poll a finite number of seconds above 0 and replicas 1 or more, not %r, %r and %r"
                            % (timeout, poll, replicas))
    what = "%s/%s" % (namespace, name) if name else "%s pods %s" % (namespace, ",".join("%s=%s" % item for item in sorted(selector.items())))
    pace = progress.Pace(display, clock)
    started, attempts = clock(), 0
    while True:
        attempts += 1
        pods = _looked(api, namespace, name, selector or {})
        created, scheduled, admitted, refused = _counts(pods)
        waited = clock() - started
        if created >= replicas and (admitted >= replicas or refused) and not window or waited >= timeout:
            return {"resources": pods, "attempts": attempts, "waited_s": round(waited, 1)}
        state = "%d pod%s created, %d scheduled, %d admitted and Ready" % (created, "" if created == 1 else "s", scheduled, admitted)
        if window:
            state += ", %d refused" % refused
        pace.say(state, "canary %s: %s, %s of %s" % (what, state, progress.seconds(waited), progress.seconds(timeout)))
        sleep(max(0, min(poll, timeout - waited)))
