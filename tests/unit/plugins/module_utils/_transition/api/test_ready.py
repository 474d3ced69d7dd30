# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Verify after a kubelet start: Ready and healthy for a window through the double's node proxy, then /configz."""

import pytest

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._transition.api import ready

CONFIGZ = {"kind": "KubeletConfiguration", "apiVersion": "kubelet.config.k8s.io/v1beta1",
           "cpuManagerPolicy": "static", "memoryManagerPolicy": "Static", "topologyManagerPolicy": "single-numa-node",
           "topologyManagerScope": "pod", "reservedSystemCPUs": "0-1",
           "featureGates": {"PodLevelResources": True, "PodLevelResourceManagers": True},
           "reservedMemory": [{"numaNode": 0, "limits": {"memory": "1024Mi"}}, {"numaNode": 1, "limits": {"memory": "1Gi"}}],
           "kubeReserved": {"cpu": "500m", "memory": "1Gi"}, "systemReserved": {"memory": "512Mi"}}
EXPECT = {"cpuManagerPolicy": "static", "memoryManagerPolicy": "Static", "topologyManagerPolicy": "single-numa-node",
          "topologyManagerScope": "pod", "reservedSystemCPUs": "0,1", "featureGates": {"PodLevelResourceManagers": True},
          "reservedMemory": [{"numaNode": 1, "limits": {"memory": "1073741824"}}, {"numaNode": 0, "limits": {"memory": "1Gi"}}],
          "kubeReserved": {"cpu": "0.5", "memory": "1024Mi"}, "systemReserved": {"memory": "0.5Gi"}}


def node_with_kubelet(double, kubelet, configz=None):
    kubelet.state["configz"] = dict(configz or CONFIGZ)
    double.add_node("n1", kubelet_url=kubelet.url)
    return double.node("n1")["status"]["conditions"][0]["lastTransitionTime"]


def run(kube, clock, lines, expect=None, **kwargs):
    return ready.verify(kube, "n1", EXPECT if expect is None else expect, display=lines.append, clock=clock, sleep=clock.sleep, **kwargs)


def test_verify_passes_after_the_stable_window_on_a_matching_configz(double, kube, kubelet, clock):
    since = node_with_kubelet(double, kubelet)
    lines = []
    result = run(kube, clock, lines, timeout=180, stable_s=20, poll=2)
    assert result == {"ready": True, "healthz": "ok", "configz": CONFIGZ, "mismatches": [], "ready_since": since, "waited_s": 20.0,
                      "node_state": {"type": "Ready", "status": "True", "lastHeartbeatTime": since, "lastTransitionTime": since,
                                     "reason": "KubeletReady", "message": "kubelet is posting ready status"}}
    # A poll every 2 s, a line when the state changes or every 10 s (progress.Pace): the window's start, then 10 s on.
    assert lines == ["verify n1: Ready for %ds of 20s stable window, %ds of 180s" % (t, t) for t in (0, 10)]
    assert kubelet.state["seen"] == ["/healthz"] * 11 + ["/configz"]


def test_mismatches_are_reported_exactly_quantities_by_value(double, kube, kubelet, clock):
    config = dict(CONFIGZ, cpuManagerPolicy="none", topologyManagerScope="container", featureGates={"PodLevelResources": True},
                  kubeReserved={"cpu": "500m", "memory": "1Gi", "ephemeral-storage": "1Gi"})
    node_with_kubelet(double, kubelet, config)
    with pytest.raises(ready.VerifyError) as caught:
        run(kube, clock, [], timeout=10, stable_s=0, poll=1)
    assert str(caught.value) == (
        'verify n1: Ready and healthy, but the kubelet runs with other settings than expected: cpuManagerPolicy: expected "static", '
        '/configz shows "none"; featureGates.PodLevelResourceManagers: expected true, /configz shows nothing; kubeReserved: expected '
        '{"cpu": "0.5", "memory": "1024Mi"}, /configz shows {"cpu": "500m", "ephemeral-storage": "1Gi", "memory": "1Gi"}; '
        'topologyManagerScope: expected "pod", /configz shows "container"')
    details = caught.value.details
    assert details["mismatches"] == [
        {"field": "cpuManagerPolicy", "expected": "static", "actual": "none"},
        {"field": "featureGates.PodLevelResourceManagers", "expected": True, "actual": None},
        {"field": "kubeReserved", "expected": {"cpu": "0.5", "memory": "1024Mi"}, "actual": {"cpu": "500m", "memory": "1Gi", "ephemeral-storage": "1Gi"}},
        {"field": "topologyManagerScope", "expected": "pod", "actual": "container"}]
    assert details["ready"] is True
    assert details["configz"] == config
    assert details["node_state"]["status"] == "True"


def test_a_node_that_never_becomes_ready_fails_with_its_state(double, kube, kubelet, clock):
    node_with_kubelet(double, kubelet)
    double.set_node_ready("n1", False)
    since = double.node("n1")["status"]["conditions"][0]["lastTransitionTime"]
    lines = []
    with pytest.raises(ready.VerifyError) as caught:
        run(kube, clock, lines, timeout=6, stable_s=4, poll=2)
    state = "Ready=False (KubeletNotReady: container runtime is down) since %s, healthz ok" % since
    assert str(caught.value) == "verify n1: not Ready and healthy for 4s in a row within 6s; last seen: " + state
    assert lines == ["verify n1: %s, 0s of 6s" % state]  # the same state at 2 s and 4 s: no line
    assert caught.value.details["ready"] is False
    assert caught.value.details["node_state"]["reason"] == "KubeletNotReady"
    assert "/configz" not in kubelet.state["seen"]


def test_a_healthz_failure_starts_the_window_again(double, kube, kubelet, clock):
    since = node_with_kubelet(double, kubelet)
    kubelet.state["healthz"] = [200, 200, 500]
    lines = []
    result = run(kube, clock, lines, timeout=60, stable_s=4, poll=2)
    assert result["waited_s"] == 10.0
    # Each change of state is a line; the same window 2 s on is not.
    assert lines == ["verify n1: Ready for 0s of 4s stable window, 0s of 60s",
                     "verify n1: Ready=True since %s, healthz HTTP 500: [-]syncloop failed healthz check failed, 4s of 60s" % since,
                     "verify n1: Ready for 0s of 4s stable window, 6s of 60s"]


def test_a_new_ready_transition_starts_the_window_again(double, kube, kubelet, clock):
    node_with_kubelet(double, kubelet)

    def flip():
        node = double.node("n1")
        node["status"]["conditions"][0]["lastTransitionTime"] = "2030-01-01T00:00:00Z"
        double.store.update("nodes", node, check_version=False)

    clock.hooks.append(flip)
    lines = []
    result = run(kube, clock, lines, timeout=60, stable_s=4, poll=2)
    assert result["ready_since"] == "2030-01-01T00:00:00Z"
    assert result["waited_s"] == 6.0
    # The new transition time starts a new window: a line; the same window 2 s on is not.
    assert lines == ["verify n1: Ready for 0s of 4s stable window, 0s of 60s",
                     "verify n1: Ready for 0s of 4s stable window, 2s of 60s"]


def test_an_unreachable_kubelet_is_named(double, kube, clock):
    double.add_node("n1")
    double.register_kubelet("n1", "http://127.0.0.1:9")
    with pytest.raises(ready.VerifyError) as caught:
        run(kube, clock, [], timeout=0, stable_s=0, poll=1)
    assert str(caught.value).startswith("verify n1: not Ready and healthy for 0s in a row within 0s; last seen: Ready=True since ")
    assert str(caught.value).endswith(", healthz HTTP 503: error trying to reach service: dial tcp 127.0.0.1:9: [Errno 111] Connection refused")


def test_a_long_wait_in_one_state_says_it_every_10_seconds(double, kube, kubelet, clock):
    node_with_kubelet(double, kubelet)
    double.set_node_ready("n1", False)
    since = double.node("n1")["status"]["conditions"][0]["lastTransitionTime"]
    lines = []
    with pytest.raises(ready.VerifyError):
        run(kube, clock, lines, timeout=30, stable_s=4, poll=2)
    state = "Ready=False (KubeletNotReady: container runtime is down) since %s, healthz ok" % since
    assert lines == ["verify n1: %s, %ds of 30s" % (state, t) for t in (0, 10, 20)]


def test_expect_must_be_a_dict(kube):
    with pytest.raises(ready.configz.ConfigzError) as caught:
        ready.verify(kube, "n1", ["cpuManagerPolicy"])
    assert str(caught.value) == "expect must be a dict of KubeletConfiguration fields, not list"
