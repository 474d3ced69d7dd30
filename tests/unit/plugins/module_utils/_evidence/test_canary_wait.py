# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The canary's bounded wait through the real client against the API server TEST DOUBLE, on a fake clock: when it ends, and its lines."""

import pytest

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base.errors import NumaGateError
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence import canary_wait

NAME = "pod-numa-allocation-canary"
LABELS = {"app.kubernetes.io/name": "numa-gate-canary"}


def wait(kube, clock, lines, **options):
    return canary_wait.wait(kube, "default", display=lines.append, clock=clock, sleep=clock.sleep, **options)


def test_an_admitted_pod_ends_the_wait_at_once_with_no_line(double, kube, clock):
    double.add_node("gpu-1")
    double.add_pod(NAME, "gpu-1", labels=LABELS)
    lines = []
    found = wait(kube, clock, lines, name=NAME, timeout=180, poll=3)
    assert (found["attempts"], found["waited_s"], [pod["metadata"]["name"] for pod in found["resources"]]) == (1, 0.0, [NAME])
    assert lines == []


def test_a_pod_that_stays_pending_is_said_once_per_10_seconds_and_the_bound_ends_the_wait(double, kube, clock):
    double.add_node("gpu-1")
    double.add_pod(NAME, None, labels=LABELS, ready=False, phase="Pending")
    lines = []
    found = wait(kube, clock, lines, name=NAME, timeout=25, poll=3)
    # Looks at 0, 3, ..., 24 and the last at 25 s; a line when the state changes (the first) or 10 s after the last line.
    assert (found["attempts"], found["waited_s"]) == (10, 25.0)
    assert lines == ["canary default/%s: 1 pod created, 0 scheduled, 0 admitted and Ready, %ds of 25s" % (NAME, t) for t in (0, 12, 24)]
    assert found["resources"][0]["status"]["phase"] == "Pending"


def test_a_change_is_a_line_and_a_refusal_ends_the_wait(double, kube, clock):
    double.add_node("gpu-1")
    lines = []

    def refused():
        pod = double.pod(NAME)
        pod["spec"]["nodeName"] = "gpu-1"
        pod["status"].update(phase="Failed", reason="TopologyAffinityError", message="Resources cannot be allocated with Topology locality")
        double.store.update("pods", pod, check_version=False)

    clock.hooks += [lambda: double.add_pod(NAME, None, labels=LABELS, ready=False, phase="Pending"), refused]
    found = wait(kube, clock, lines, selector=LABELS, timeout=60, poll=2)
    assert found["attempts"] == 3
    assert lines == ["canary default pods app.kubernetes.io/name=numa-gate-canary: 0 pods created, 0 scheduled, 0 admitted and Ready, 0s of 60s",
                     "canary default pods app.kubernetes.io/name=numa-gate-canary: 1 pod created, 0 scheduled, 0 admitted and Ready, 2s of 60s"]
    assert found["resources"][0]["status"]["reason"] == "TopologyAffinityError"


def test_a_window_looks_past_a_refusal_until_its_bound_counting_the_refused(double, kube, clock):
    double.add_node("gpu-1")
    lines = []

    def refused():
        pod = double.pod(NAME)
        pod["spec"]["nodeName"] = "gpu-1"
        pod["status"].update(phase="Failed", reason="TopologyAffinityError", message="Pod was rejected: x")
        double.store.update("pods", pod, check_version=False)

    clock.hooks += [lambda: double.add_pod(NAME, None, labels=LABELS, ready=False, phase="Pending"), refused]
    found = wait(kube, clock, lines, selector=LABELS, timeout=6, poll=2, window=True)
    assert (found["attempts"], found["waited_s"]) == (4, 6.0)
    said = "canary default pods app.kubernetes.io/name=numa-gate-canary: "
    assert lines == [said + "0 pods created, 0 scheduled, 0 admitted and Ready, 0 refused, 0s of 6s",
                     said + "1 pod created, 0 scheduled, 0 admitted and Ready, 0 refused, 2s of 6s",
                     said + "1 pod created, 1 scheduled, 0 admitted and Ready, 1 refused, 4s of 6s"]


@pytest.mark.parametrize("options, message", [
    ({}, "give the canary's pod name or its pods' label selector, one of them, not neither"),
    ({"name": NAME, "selector": LABELS}, "give the canary's pod name or its pods' label selector, one of them, not both"),
    ({"name": NAME, "poll": 0}, "timeout must be 0 or more seconds, poll a finite number of seconds above 0 and replicas 1 or more, not 180, 0 and 1"),
])
def test_bad_input_is_refused_before_any_request(double, kube, clock, options, message):
    with pytest.raises(NumaGateError) as caught:
        wait(kube, clock, [], **options)
    assert str(caught.value) == message
    assert not double.requests
