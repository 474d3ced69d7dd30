# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Eligibility before the first change, as a pure function (tests/playbooks/test_enable_eligibility.py drives it through enable.yml)."""

from __future__ import annotations

import pytest

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._stack import eligibility
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._stack.errors import StackError

POOL = {"example.com/pod-managers": "canary"}


def seen(kubelet="v1.37.1", gates=None, labels=None):
    return {"versions": {"kubelet": kubelet, "control_plane": "v1.37.1"}, "control_plane_gates": {"PodLevelResources": True} if gates is None else gates,
            "labels": POOL if labels is None else labels, "node_error": None}


def test_an_eligible_node():
    assert eligibility.refusals(seen(), {"pool_selector": POOL}, "gpu-1") == []
    assert eligibility.refusals(seen("v1.38.0-rc.1"), {"pool_selector": POOL}, "gpu-1") == []


@pytest.mark.parametrize("kubelet, start", [
    (None, 'the kubelet\'s version is unknown (the Node\'s status.nodeInfo.kubeletVersion is null)'),
    ("latest", 'the kubelet\'s version is unknown (the Node\'s status.nodeInfo.kubeletVersion is "latest")'),
    ("v1.36.0", "the kubelet is v1.36.0: the pod-level resource managers are alpha in 1.36"),
    ("v1.30.2", "the kubelet is v1.30.2, older than 1.37"),
])
def test_the_kubelet(kubelet, start):
    [message] = eligibility.refusals(seen(kubelet), {"pool_selector": POOL}, "gpu-1")
    assert message.startswith(start)


def test_1_36_on_purpose():
    assert eligibility.refusals(seen("v1.36.0"), {"pool_selector": POOL, "allow_kubelet_1_36": True}, "gpu-1") == []
    assert len(eligibility.refusals(seen("v1.35.0"), {"pool_selector": POOL, "allow_kubelet_1_36": True}, "gpu-1")) == 1


def test_gates_unreadable_refuse_nothing_but_are_said():
    observed = dict(seen(), control_plane_gates=None, control_plane_gates_error="GET /metrics: HTTP 403 Forbidden")
    assert eligibility.refusals(observed, {"pool_selector": POOL}, "gpu-1") == []
    assert eligibility.notes(observed) == [
        "kube-apiserver's feature gates could not be read (GET /metrics: HTTP 403 Forbidden): whether PodLevelResources is on for the control "
        "plane is unknown; the record's effect check reads it again"]
    assert eligibility.notes(seen()) == []


def test_every_node_on_purpose():
    assert eligibility.refusals(seen(labels={}), {"pool_selector": {}}, "gpu-1") == []


@pytest.mark.parametrize("selector", [None, ["a"], {"a": 1}])
def test_a_bad_selector_is_refused_naming_the_variable(selector):
    with pytest.raises(StackError) as caught:
        eligibility.refusals(seen(), {"pool_selector": selector}, "gpu-1")
    assert str(caught.value) == ("numa_gate_pool_selector must map label names to values (strings; {} for every node on purpose), got %r"
                                 % (selector,))
