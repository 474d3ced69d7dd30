"""One load run (_service_comparison/load.py) with real processes: everything it started killed whatever happens (its cgroup or
pid namespace: a child in a session of its own too, proven gone by pid), a warmup stopped at its duration, the timeout, a SIGTERM
ignored; the Job's conditions; the failure messages and the result file, exactly."""

import json
import os
import re
import sys
import time

import pytest

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._service_comparison import containment, load as service_load

LABEL = "canary repetition 2 (window 4, the measured part)"
SESSION_LEAVER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "load_leaves_a_session.py")


def _state(pid):
    try:
        with open("/proc/%d/stat" % pid, encoding="utf-8") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return "gone"


def _running(pid, seconds=2.0):
    """Whether ``pid`` still runs ``seconds`` after the kill (SIGKILL is delivered when the process is next scheduled)."""
    deadline = time.monotonic() + seconds
    while _state(pid) not in ("Z", "gone"):
        if time.monotonic() > deadline:
            return True
        time.sleep(0.02)
    return False


def _pid(path, seconds=5.0):
    deadline = time.monotonic() + seconds
    while not os.path.exists(path) or not open(path, encoding="utf-8").read().strip():
        assert time.monotonic() < deadline, "no pid file"
        time.sleep(0.05)
    return int(open(path, encoding="utf-8").read())


def test_a_run_that_ends_by_itself_leaves_nothing_in_its_group(tmp_path):
    pid_file = str(tmp_path / "pid")
    argv = ["sh", "-c", "sleep 30 & echo $! > %s; echo done; echo warn >&2" % pid_file]
    result = service_load.run_command(argv, timeout=20)
    assert (result["exit_status"], result["stopped"], result["timed_out"], result["stdout_tail"], result["stderr_tail"]) == (
        0, False, False, "done", "warn")
    assert result["start"] <= result["end"] and not _running(_pid(pid_file))
    assert service_load.failure(LABEL, "argv %s" % argv, result, 20) is None


def test_a_warmup_is_stopped_at_its_duration_as_its_normal_end(tmp_path):
    began = time.monotonic()
    result = service_load.run_command(["sleep", "30"], timeout=20, stop_after=0.3)
    assert time.monotonic() - began < 5
    assert (result["exit_status"], result["stopped"], result["timed_out"]) == (-15, True, False)
    assert service_load.failure(LABEL, "argv ['sleep', '30']", result, 20) is None


def test_past_the_timeout_the_group_is_killed_and_the_run_fails(tmp_path):
    pid_file = str(tmp_path / "pid")
    argv = ["sh", "-c", "trap '' TERM; sleep 30 & echo $! > %s; echo slow >&2; wait" % pid_file]
    began = time.monotonic()
    result = service_load.run_command(argv, timeout=0.5, grace=0.3)
    assert time.monotonic() - began < 5
    assert (result["exit_status"], result["stopped"], result["timed_out"]) == (-9, False, True)
    assert not _running(_pid(pid_file))
    assert service_load.failure(LABEL, "argv %s" % argv, result, 0.5) == (
        "the load generator failed for %s: ran past its 0.5 s timeout and was stopped (everything it started killed); argv %s; stderr tail: slow"
        % (LABEL, argv))


def test_a_failed_run_names_its_exit_status_or_signal_and_stderr_tail():
    result = service_load.run_command([sys.executable, "-c", "import sys; sys.stderr.write('x' * 3000 + 'END\\n'); sys.exit(3)"], timeout=20)
    assert result["exit_status"] == 3 and len(result["stderr_tail"]) == 1999 and result["stderr_tail"].endswith("xEND")
    assert service_load.failure(LABEL, "argv ['l']", {"exit_status": -11, "stderr_tail": ""}, 20) == (
        "the load generator failed for %s: killed by signal 11; argv ['l']; stderr tail: (empty)" % LABEL)


def test_a_command_that_cannot_start():
    with pytest.raises(service_load.LoadError, match=r"^cannot start the load generator '/nonexistent/bench': No such file or directory$"):
        service_load.run_command(["/nonexistent/bench"], timeout=5)


def test_a_job_ends_at_its_complete_or_failed_condition():
    assert service_load.job_state({"status": {"active": 1}}) == ("running", "active 1, succeeded 0, failed 0")
    conditions = [{"type": "SuccessCriteriaMet", "status": "True"}, {"type": "Complete", "status": "True", "reason": "CompletionsReached"}]
    complete = {"status": {"succeeded": 1, "conditions": conditions}}
    assert service_load.job_state(complete) == ("complete", "CompletionsReached")
    failed = {"status": {"failed": 2, "conditions": [{"type": "FailureTarget", "status": "True"}, {
        "type": "Failed", "status": "True", "reason": "BackoffLimitExceeded", "message": "Job has reached the specified backoff limit"}]}}
    assert service_load.job_state(failed) == ("failed", "BackoffLimitExceeded: Job has reached the specified backoff limit")
    assert service_load.job_state({"status": {"conditions": [{"type": "Failed", "status": "False"}]}})[0] == "running"
    result = {"job_state": "failed", "job_detail": "BackoffLimitExceeded: Job has reached the specified backoff limit", "stderr_tail": "OOM"}
    assert service_load.failure(LABEL, "Job bench/bench-canary-2", result, 60) == (
        "the load generator failed for %s: the Job failed (BackoffLimitExceeded: Job has reached the specified backoff limit); "
        "Job bench/bench-canary-2; log tail: OOM" % LABEL)
    assert service_load.failure(LABEL, "Job x", {"job_state": "running", "timed_out": True}, 60) == (
        "the load generator failed for %s: ran past its 60 s timeout and was stopped (the Job deleted with its pods); Job x; log tail: (empty)"
        % LABEL)
    assert service_load.failure(LABEL, "Job x", {"job_state": "complete"}, 60) is None


def test_the_result_file(tmp_path):
    path = tmp_path / "result.json"
    assert service_load.read_result(str(path), 100) is None
    service_load.check_result_file(str(path))
    path.write_text(json.dumps({"completed": 10}))
    assert service_load.read_result(str(path), 100) == {"completed": 10}
    with pytest.raises(service_load.LoadError, match=r"^the result file %s exists before its run: it would be taken for this run's result; "
                       r"remove it or choose another service_comparison_result_dir$" % re.escape(str(path))):
        service_load.check_result_file(str(path))
    with pytest.raises(service_load.LoadError, match=r"^the result file %s is larger than 5 bytes, the bound for it; not read$" % re.escape(str(path))):
        service_load.read_result(str(path), 5)
    path.write_text("[1]")
    with pytest.raises(service_load.LoadError, match=r"^the result file .* must hold a JSON object \(vllm bench serve --save-result\), got list$"):
        service_load.read_result(str(path), 100)
    path.write_text("{")
    with pytest.raises(service_load.LoadError, match=r"^the result file .* is not JSON \(vllm bench serve --save-result writes a JSON object\): "):
        service_load.read_result(str(path), 100)


class _HTTPError(Exception):
    def __init__(self, code):
        super().__init__("HTTP %d" % code)
        self.code = code


class _RecordingApi:
    """Answers the Job requests run_job makes; the POST fails as given."""

    def __init__(self, post_error):
        self.post_error = post_error
        self.calls = []

    def request(self, method, path, body=None, **kwargs):
        del body, kwargs
        self.calls.append((method, path))
        if method == "POST":
            raise self.post_error
        return {}


JOB = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "load-baseline-1", "namespace": "default"}}


def test_a_job_whose_create_answer_was_lost_is_still_deleted():
    api = _RecordingApi(ConnectionResetError("connection reset by peer"))
    with pytest.raises(ConnectionResetError):
        service_load.run_job(api, JOB, timeout=5, sleep=lambda s: None)
    assert api.calls == [("POST", "/apis/batch/v1/namespaces/default/jobs"),
                         ("DELETE", "/apis/batch/v1/namespaces/default/jobs/load-baseline-1")]


def test_a_job_of_that_name_this_run_did_not_make_is_never_deleted():
    api = _RecordingApi(_HTTPError(409))
    with pytest.raises(_HTTPError):
        service_load.run_job(api, JOB, timeout=5, sleep=lambda s: None)
    assert api.calls == [("POST", "/apis/batch/v1/namespaces/default/jobs")]


@pytest.mark.parametrize("make", [containment.Cgroup.make, containment.PidNamespace.make], ids=["cgroup", "pid-namespace"])
def test_a_child_in_a_session_of_its_own_is_ended_with_the_run(tmp_path, make):
    # The load's child calls setsid(): out of the process group, still in the box; "exit status 0", and by pid nothing is left.
    pid_file = str(tmp_path / "pid")
    box = make()
    result = service_load.run_command([sys.executable, SESSION_LEAVER, pid_file], timeout=30, box=box)
    child = _pid(pid_file)
    assert (result["exit_status"], result["stdout_tail"], result["contained"]) == (0, "left a child in its own session", box.kind)
    assert not _running(child)
    if box.kind == "cgroup":
        assert result["left"] == [child] and not os.path.exists(box.path)
    assert service_load.failure(LABEL, "argv", result, 30) is None


def _load_cgroups():
    """The run cgroups beside a probe's: those this collection made and did not remove."""
    probe = containment.Cgroup.make()
    probe.close(None)
    parent = os.path.dirname(probe.path)
    return sorted(name for name in os.listdir(parent) if name.startswith("numa-gate-load-"))


def test_the_default_box_is_a_cgroup_made_for_the_run_and_removed(tmp_path):
    pid_file = str(tmp_path / "pid")
    before = _load_cgroups()
    result = service_load.run_command([sys.executable, SESSION_LEAVER, pid_file], timeout=30)
    assert (result["contained"], result["left"]) == ("cgroup", [_pid(pid_file)])
    assert not _running(_pid(pid_file))
    assert _load_cgroups() == before


@pytest.mark.parametrize("make", [containment.Cgroup.make, containment.PidNamespace.make], ids=["cgroup", "pid-namespace"])
def test_past_the_timeout_a_child_in_its_own_session_is_killed_too(tmp_path, make):
    pid_file = str(tmp_path / "pid")
    argv = ["sh", "-c", "trap '' TERM; %s %s %s; sleep 30" % (sys.executable, SESSION_LEAVER, pid_file)]
    box = make()
    began = time.monotonic()
    result = service_load.run_command(argv, timeout=1.5, grace=0.3, box=box)
    assert time.monotonic() - began < 10
    assert (result["exit_status"], result["timed_out"], result["contained"]) == (-9, True, box.kind)
    assert not _running(_pid(pid_file))


def test_no_box_no_run(tmp_path, monkeypatch):
    # Neither a cgroup v2 nor unshare: refused before anything runs, naming both reasons.
    monkeypatch.setattr(containment, "_unified_mount", lambda: None)
    monkeypatch.setattr(containment.shutil, "which", lambda name: None)
    marker = tmp_path / "ran"
    with pytest.raises(service_load.LoadError) as caught:
        service_load.run_command(["touch", str(marker)], timeout=5)
    assert str(caught.value) == ("the load generator cannot be run where everything it starts can be ended (cgroup: no cgroup v2 hierarchy is "
                                 "mounted; pid namespace: unshare (util-linux) is not on PATH): nothing was run; run the controller where "
                                 "it may make a cgroup v2 or a pid namespace")
    assert not marker.exists()
