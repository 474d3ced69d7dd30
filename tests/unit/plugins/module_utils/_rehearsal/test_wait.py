"""The bounded wait for the node's workloads after a rehearsed rollback: its looks, its progress lines, a wait that runs out."""

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._rehearsal import wait as rehearsal_wait
from ansible_collections.gpusmith.numa_gate.tests.unit.plugins.module_utils._rehearsal.rehearsal_pods import NODE, WEB, pod


class Api:
    """Answers pods_on_node with one list per look (the last one again when they run out); counts the calls."""

    def __init__(self, answers):
        self.answers = list(answers)
        self.calls = []

    def pods_on_node(self, name):
        self.calls.append(name)
        return self.answers.pop(0) if len(self.answers) > 1 else self.answers[0]


class Clock:
    def __init__(self):
        self.now = 100.0
        self.slept = []

    def __call__(self):
        return self.now

    def sleep(self, seconds):
        self.slept.append(seconds)
        self.now += seconds


def stamp():
    return "2026-12-01T09:10:30.000000Z"


BEFORE_PODS = [pod("web-7c9f5d-q2xkp", "u-web-1", WEB), pod("debug-shell", "u-bare")]


def test_observe_names_the_workloads_and_when():
    before = rehearsal_wait.observe(Api([BEFORE_PODS]), NODE, now=stamp)
    assert before == {"workloads": [{"owner": "ReplicaSet/default/web-7c9f5d", "kind": "ReplicaSet", "namespace": "default", "name": "web-7c9f5d",
                                     "uid": WEB[2], "pods": [{"name": "web-7c9f5d-q2xkp", "uid": "u-web-1", "ready": True, "container_ids": {}}]}],
                      "unowned": ["default/debug-shell"], "observed_at": stamp()}


def test_wait_looks_until_the_workload_is_back_with_a_line_per_look():
    before = rehearsal_wait.observe(Api([BEFORE_PODS]), NODE, now=stamp)
    api = Api([[], [pod("web-7c9f5d-zz9kq", "u-web-2", WEB, ready=False)], [pod("web-7c9f5d-zz9kq", "u-web-2", WEB)]])
    clock, lines = Clock(), []
    result = rehearsal_wait.wait(api, NODE, before, timeout=30, poll=2, display=lines.append, clock=clock, sleep=clock.sleep, now=stamp)
    assert (result["back"], result["missing"], result["waited_s"], result["timeout_s"], len(api.calls), clock.slept) == (
        True, [], 4.0, 30, 3, [2, 2])
    assert lines == [
        "rehearsal gpu-node-1: 0 of 1 workloads back after the rollback, 0s of 30s; waiting for ReplicaSet/default/web-7c9f5d (missing, 0 of 1 Ready)",
        "rehearsal gpu-node-1: 0 of 1 workloads back after the rollback, 2s of 30s; waiting for ReplicaSet/default/web-7c9f5d (not ready, 0 of 1 Ready)",
        "rehearsal gpu-node-1: 1 of 1 workloads back after the rollback, 4s of 30s"]
    assert result["workloads"][0]["now"] == [{"name": "web-7c9f5d-zz9kq", "uid": "u-web-2", "ready": True, "kept": False, "container_ids": {}}]
    assert (result["observed_at"], result["before_observed_at"], result["unowned"]) == (stamp(), stamp(), [])


def test_a_wait_that_runs_out_is_a_result_naming_what_is_missing():
    before = rehearsal_wait.observe(Api([BEFORE_PODS]), NODE, now=stamp)
    clock = Clock()
    result = rehearsal_wait.wait(Api([[]]), NODE, before, timeout=5, poll=2, clock=clock, sleep=clock.sleep, now=stamp)
    assert (result["back"], result["missing"], result["waited_s"], clock.slept) == (False, ["ReplicaSet/default/web-7c9f5d"], 4.0, [2, 2])
