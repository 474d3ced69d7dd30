# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Verify a node after a kubelet start: Ready and healthy without a break for a window, then /configz.

Public: `verify`, `observe`, `ready_condition`, `VerifyError`.

A single probe proves little: a kubelet that fails its start checks exits and systemd restarts it,
and ``healthz`` can answer ``ok`` between two restarts (the kubelet logs "Failed to start ContainerManager" and
exits, pkg/kubelet/kubelet.go in github.com/kubernetes/kubernetes). So the node counts as
stable only when, at every poll across ``stable_s`` seconds, its ``Ready`` condition is ``True``
with the same ``lastTransitionTime`` and the kubelet's ``/healthz`` answers ``ok`` through the API
server's node proxy (``/api/v1/nodes/<name>/proxy/healthz``); any break starts the window again.
Then ``/configz`` (same proxy) is compared with ``expect`` by value (see `configz`).
``clock`` and ``sleep`` are parameters so tests run without waiting.
"""

from __future__ import annotations

import time

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base.errors import NumaGateError
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kube_api import api as kube_api
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._transition.api import configz, cordon
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import progress


class VerifyError(NumaGateError):
    """The node did not become Ready and stable in time, or its kubelet runs with other settings."""


def ready_condition(node):
    """The node's ``Ready`` condition (a dict; ``status`` ``Unknown`` when it has none)."""
    for condition in (node.get("status") or {}).get("conditions") or []:
        if condition.get("type") == "Ready":
            return condition
    return {"type": "Ready", "status": "Unknown", "reason": "NoReadyCondition", "message": "the node has no Ready condition"}


def observe(api, name):
    """``{"ready": condition, "healthz": "ok" or what answered instead}`` now."""
    condition = ready_condition(cordon.read_node(api, name))
    try:
        answer = api.node_proxy_get(name, "healthz").strip()
    except kube_api.KubeApiError as exc:
        answer = " ".join(("HTTP %d: %s" % (exc.code, exc.answer) if exc.code else str(exc)).split())
    return {"ready": condition, "healthz": answer}


def _state(seen):
    condition = seen["ready"]
    text = "Ready=%s" % condition.get("status")
    if condition.get("status") != "True":
        text += " (%s: %s)" % (condition.get("reason", ""), condition.get("message", ""))
    text += " since %s, healthz %s" % (condition.get("lastTransitionTime", "unknown"), seen["healthz"] if len(seen["healthz"]) < 200
                                       else seen["healthz"][:200] + "...")
    return text


def _good(seen):
    return seen["ready"].get("status") == "True" and seen["healthz"] == "ok"


def verify(api, name, expect, timeout=180, stable_s=20, poll=2, display=None, clock=time.monotonic, sleep=time.sleep):
    """Wait for ``name`` to be Ready and healthy for ``stable_s`` s (within ``timeout`` s), then compare /configz with ``expect``.

    Returns ``{"ready", "healthz", "configz", "mismatches", "ready_since", "node_state", "waited_s"}``
    (``node_state``: the Ready condition); raises `VerifyError` (its details carry the same keys) when it does not hold.
    """
    if not isinstance(expect, dict):
        raise configz.ConfigzError("expect must be a dict of KubeletConfiguration fields, not %s" % type(expect).__name__)
    started = clock()
    streak = None
    pace = progress.Pace(display, clock)  # a line per change of state, else one every 10 s
    while True:
        seen = observe(api, name)
        now = clock()
        since = seen["ready"].get("lastTransitionTime")
        if not _good(seen):
            streak = None
        elif streak is None or streak[1] != since:
            streak = (now, since)
        waited = now - started
        if streak is not None and now - streak[0] >= stable_s:
            break
        if waited >= timeout:
            raise VerifyError("verify %s: not Ready and healthy for %s in a row within %s; last seen: %s"
                              % (name, progress.seconds(stable_s), progress.seconds(timeout), _state(seen)),
                              ready=False, healthz=seen["healthz"], node_state=seen["ready"], configz={}, mismatches=[],
                              ready_since=None, waited_s=round(waited, 1))
        if streak is not None:
            state, key = "Ready for %s of %s stable window" % (progress.seconds(now - streak[0]), progress.seconds(stable_s)), streak
        else:
            state = key = _state(seen)
        pace.say(key, progress.verify_line(name, state, waited, timeout))
        sleep(max(0, min(poll, timeout - waited)))
    config = configz.parse(api.node_proxy_get(name, "configz"), name)
    mismatches = configz.compare(expect, config)
    result = {"ready": True, "healthz": seen["healthz"], "configz": config, "mismatches": mismatches, "ready_since": since,
              "node_state": seen["ready"], "waited_s": round(clock() - started, 1)}
    if mismatches:
        raise VerifyError("verify %s: Ready and healthy, but the kubelet runs with other settings than expected: %s"
                          % (name, configz.describe(mismatches)), **result)
    return result
