# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The service_load action's Job path end to end: the collection's API client against the API server TEST DOUBLE
(tests/doubles/apiserver, with its Job controller and garbage collector stand-ins): a Job that completes, one that
fails (its log tail in the error), one that runs past the timeout (deleted, nothing left)."""

from __future__ import annotations

import threading
import time

import pytest

from ansible_collections.gpusmith.numa_gate.plugins.action import service_load as action_file
from ansible_collections.gpusmith.numa_gate.tests.unit.plugins.action import in_process

# The double's package is importable once in_process has put tests/doubles on sys.path.
from apiserver import jobs  # noqa: E402  pylint: disable=wrong-import-position,import-error,wrong-import-order

MANIFEST = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "load-baseline-1", "namespace": "default"},
            "spec": {"backoffLimit": 0, "template": {"spec": {
                "restartPolicy": "Never", "terminationGracePeriodSeconds": 1,
                "containers": [{"name": "bench", "image": "registry.example/vllm/vllm-openai@sha256:0123",
                                "command": ["vllm", "bench", "serve", "--request-rate", "4", "--max-concurrency", "16"]}]}}}}
JOBS = "/apis/batch/v1/namespaces/default/jobs"


@pytest.fixture(name="double")
def fixture_double():
    with in_process.api_double(controllers=True) as started:
        started.add_node("node-1")
        yield started


@pytest.fixture(name="kubeconfig")
def fixture_kubeconfig(double, tmp_path):
    return double.write_kubeconfig(tmp_path / "kubeconfig")


def run_in_process(args):
    return in_process.run(action_file, args)


def _job_pods(double):
    return [p for p in double.store.list("pods")[0] if (p["metadata"].get("labels") or {}).get("job-name") == "load-baseline-1"]


def finish_when_running(double, **outcome):
    """A thread playing the container: once the Job's pod runs, end it as ``outcome`` says."""
    def play():
        if jobs.sleep_until(lambda: any(p["status"]["phase"] == "Running" for p in _job_pods(double))):
            double.finish_job("load-baseline-1", **outcome)
    thread = threading.Thread(target=play, daemon=True)
    thread.start()
    return thread


def _args(kubeconfig, **extra):
    return dict({"kubeconfig": kubeconfig, "side": "baseline", "repetition": 1, "window": 2, "job": MANIFEST, "poll": 0.1, "timeout": 20},
                **extra)


def _gone(double):
    return double.job("load-baseline-1") is None and not _job_pods(double)


def test_a_job_that_completes_is_recorded_with_its_manifest_start_and_end(double, kubeconfig):
    thread = finish_when_running(double, succeeded=True, log="done\n")
    before = time.time()
    result = run_in_process(_args(kubeconfig))
    after = time.time()
    thread.join(5)
    assert result.get("failed") is None, result
    assert result["outcome"] == "the Job completed (CompletionsReached: Reached expected number of succeeded pods)"
    assert result["manifest"] == MANIFEST
    assert (result["changed"], result["exit_status"], result["stopped"], result["stderr_tail"], result["client"], result["result_file"]) == (
        False, None, False, "", None, None)
    assert before - 0.001 <= result["start"] <= result["end"] <= after + 0.001
    assert ("POST", JOBS) in double.requests
    assert ("DELETE", JOBS + "/load-baseline-1") in double.requests
    assert jobs.sleep_until(lambda: _gone(double), timeout=5)


def test_a_job_that_fails_names_the_side_the_repetition_the_job_and_its_log_tail(double, kubeconfig):
    thread = finish_when_running(double, succeeded=False, log="warming up\nConnectionRefusedError: [Errno 111] Connection refused\n")
    result = run_in_process(_args(kubeconfig))
    thread.join(5)
    assert result["failed"] is True
    assert result["msg"] == ("the load generator failed for baseline repetition 1 (window 2, the measured part): the Job failed "
                             "(BackoffLimitExceeded: Job has reached the specified backoff limit); Job default/load-baseline-1; log tail: "
                             "warming up\nConnectionRefusedError: [Errno 111] Connection refused")
    assert result["manifest"] == MANIFEST
    assert (result["exit_status"], result["stderr_tail"]) == (None, "warming up\nConnectionRefusedError: [Errno 111] Connection refused")
    pod = [path for method, path in double.requests if method == "GET" and path.endswith("/log?tailLines=20")]
    assert len(pod) == 1 and pod[0].startswith("/api/v1/namespaces/default/pods/load-baseline-1-")
    assert jobs.sleep_until(lambda: _gone(double), timeout=5)


def test_a_job_past_its_timeout_is_deleted_with_its_pods_and_nothing_is_left(double, kubeconfig):
    result = run_in_process(_args(kubeconfig, side="canary", repetition=2, window=3, timeout=1))
    assert result["failed"] is True
    assert result["msg"] == ("the load generator failed for canary repetition 2 (window 3, the measured part): ran past its 1 s timeout and "
                             "was stopped (the Job deleted with its pods); Job default/load-baseline-1; log tail: (empty)")
    assert double.job("load-baseline-1") is None
    assert ("DELETE", JOBS + "/load-baseline-1") in double.requests
    assert jobs.sleep_until(lambda: _gone(double), timeout=5)
    assert double.store.list("pods")[0] == [] and double.store.list("jobs")[0] == []
