# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Eligibility before the first change: what keeps a node from enable.yml, each refusal naming what is missing (pure).

Public: `refusals`, `notes`, `TARGET`, `GATE`.

`refusals(observed, settings)` reads the stack_info result (`_stack.observe`) and the operator's settings
(``pool_selector``: the labels a node of the pool carries, ``{}`` for every node on purpose;
``allow_kubelet_1_36``) and returns one message per reason to refuse, [] when the node may be changed:

- the Node could not be read: nothing about it is known (unknown is never agreement);
- the kubelet's version is unknown, or older than 1.36: the pod-level resource managers (KEP-5526) are beta
  from 1.37 and alpha in 1.36;
- the kubelet is 1.36, unless ``allow_kubelet_1_36``: with the gate on, the 1.36 kubelet writes checkpoints an
  older kubelet cannot parse, and a downgrade to 1.36 loses the pod-level assignments (KEP-5526 PRR; the 1.37
  reference page);
- kube-apiserver's ``PodLevelResources`` is seen off: the API server drops ``.spec.resources`` on create
  (``dropDisabledPodLevelResources``), so no pod would carry a pod-level budget;
- the Node lacks a label of the pool's selector.

`notes(observed)` says what could not be read but refuses nothing (the control plane's gates unreadable).
"""

from __future__ import annotations

import json

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._stack import ranges
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._stack.errors import StackError

TARGET = (1, 37)
GATE = "PodLevelResources"


def _settings(settings):
    settings = dict(settings or {})
    selector = settings.get("pool_selector")
    if not isinstance(selector, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in selector.items()):
        raise StackError("numa_gate_pool_selector must map label names to values (strings; {} for every node on purpose), got %r" % (selector,))
    return selector, bool(settings.get("allow_kubelet_1_36"))


def _kubelet(observed, allow_136):
    have = (observed.get("versions") or {}).get("kubelet")
    version = ranges.parse(have)
    if version is None or len(version) < 2:
        return ["the kubelet's version is unknown (the Node's status.nodeInfo.kubeletVersion is %s): the pod-level resource managers need "
                "a 1.37 kubelet, and unknown is never agreement" % (json.dumps(have),)]
    if version[:2] >= TARGET:
        return []
    if version[:2] == (1, 36):
        if allow_136:
            return []
        return ["the kubelet is %s: the pod-level resource managers are alpha in 1.36, and with the gate on a 1.36 kubelet writes "
                "checkpoints an older kubelet cannot parse (a downgrade loses the pod-level assignments); upgrade the kubelet to 1.37, "
                "or set numa_gate_allow_kubelet_1_36=true to go on with 1.36 on purpose" % have]
    return ["the kubelet is %s, older than 1.37: the pod-level resource managers (PodLevelResourceManagers, KEP-5526) are beta from "
            "1.37 (alpha in 1.36); upgrade the kubelet first" % have]


def _control_plane(observed):
    gates = observed.get("control_plane_gates")
    if gates is None or gates.get(GATE) is not False:
        return []
    return ["kube-apiserver reports %s off (kubernetes_feature_enabled{name=\"%s\"} 0 on its /metrics, control plane %s): it drops a "
            "pod's .spec.resources on create, so no pod would carry a pod-level budget; turn the gate on for the control plane first"
            % (GATE, GATE, (observed.get("versions") or {}).get("control_plane") or "of unknown version")]


def _pool(observed, node, selector):
    labels = observed.get("labels") or {}
    missing = dict((key, value) for key, value in sorted(selector.items()) if labels.get(key) != value)
    if not missing:
        return []
    own = dict((key, labels[key]) for key in sorted(selector) if key in labels)
    return ["node %s is not in the pool: it lacks %s of the pool's labels %s (numa_gate_pool_selector; it has %s); label it, or name "
            "another pool in numa_gate_pool_selector on purpose ({} for every node)" % (
                node, json.dumps(missing, sort_keys=True), json.dumps(selector, sort_keys=True), json.dumps(own, sort_keys=True))]


def refusals(observed, settings, node=None):
    """The reasons to refuse the node before any change (see the module docstring); [] when it is eligible."""
    selector, allow_136 = _settings(settings)
    if not isinstance(observed, dict):
        raise StackError("the stack must be the stack_info module's result, got %s" % type(observed).__name__)
    node = node or observed.get("node") or "(unnamed)"
    if observed.get("node_error"):
        return ["node %s could not be read from the API (%s): its kubelet version and labels are unknown, and unknown is never "
                "agreement" % (node, observed["node_error"])]
    return _kubelet(observed, allow_136) + _control_plane(observed) + _pool(observed, node, selector)


def notes(observed):
    """What was not read but refuses nothing: the control plane's gates unreadable (said, never silence)."""
    if (observed or {}).get("control_plane_gates") is None:
        return ["kube-apiserver's feature gates could not be read (%s): whether %s is on for the control plane is unknown; the record's "
                "effect check reads it again" % ((observed or {}).get("control_plane_gates_error") or "not read", GATE)]
    return []
