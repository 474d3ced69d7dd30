# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""One run of the operator's load generator: a command in a box of its own on the controller, or a Job through the API; nothing left running.

Public: `run_command`, `run_job`, `job_state`, `failure`, `check_result_file`, `read_result`, `LoadError`, `TAIL_BYTES`, `GRACE`.

A command runs as an argv (no shell) in its own session and in a box made for the run
(`containment.open_box`: a cgroup, else a pid namespace), so the box holds everything it started, a
child that called ``setsid()`` too: when it ran past its time (or a warmup's ``stop_after``) everything
in the box gets SIGTERM, then SIGKILL after `GRACE` seconds; when it ended by itself, whatever it left
in the box is killed too and the box removed, so no stray client keeps loading the service during
the next window. The result names the box (``contained``) and the pids it still held at the end (``left``). A Job is created, read every
``poll`` seconds until its Complete or Failed condition (batch/v1 JobCondition), and deleted with
its pods (propagationPolicy Background) whatever happened, after the log tail of a failed pod was
read. The result file (``vllm bench serve --save-result`` JSON) is read bounded, as a JSON object.
"""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import tempfile
import time
import urllib.parse

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import fileio, k8s_names as _k8s_names
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import shape_check as S
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._service_comparison import containment
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._service_comparison.errors import ServiceComparisonError

TAIL_BYTES = 2000
GRACE = 5.0
LOG_LINES = 20
MAX_LOG_BYTES = 64 * 1024


class LoadError(ServiceComparisonError):
    """A load run that failed, or could not be run: the message names the run, what ran and how it ended."""


def _tail(handle, limit=TAIL_BYTES):
    handle.seek(0, os.SEEK_END)
    size = handle.tell()
    handle.seek(max(0, size - limit))
    return handle.read().decode("utf-8", "replace").strip()


def _signal_group(pgid, signum):
    try:
        os.killpg(pgid, signum)
    except (ProcessLookupError, PermissionError):
        pass


def _stop(process, box, grace):
    """SIGTERM to the process group and everything in the box, SIGKILL to all of it after ``grace`` seconds; the leader reaped."""
    _signal_group(process.pid, signal.SIGTERM)
    box.signal(process, signal.SIGTERM)
    try:
        process.wait(grace)
    except subprocess.TimeoutExpired:
        _signal_group(process.pid, signal.SIGKILL)
        box.kill(process)
        process.wait()


def run_command(argv, timeout, stop_after=None, grace=GRACE, clock=time.time, box=None):
    """Run ``argv`` until it ends, ``stop_after`` seconds (then stopped: a warmup's end) or ``timeout`` (then ``timed_out``).

    {"start", "end" (``clock``), "exit_status" (negative: the signal that ended it), "stopped", "timed_out", "stdout_tail", "stderr_tail",
    "contained" (the box: cgroup or pid namespace), "left" (the pids the box still held after the run, all killed)}. ``box``: a
    `containment` box to use (one is opened, and refused with `LoadError` before anything runs, when None).
    """
    try:
        box = box or containment.open_box()
    except containment.ContainmentError as exc:
        raise LoadError(str(exc)) from exc
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = clock()
        try:
            # pylint: disable-next=consider-using-with,subprocess-popen-preexec-fn
            process = subprocess.Popen(box.argv(argv), stdin=subprocess.DEVNULL, stdout=out, stderr=err, start_new_session=True,
                                       close_fds=True, preexec_fn=box.enter)  # the child enters the cgroup before it execs
        except (OSError, subprocess.SubprocessError) as exc:
            box.close(None)
            raise LoadError("cannot start the load generator %r: %s" % (argv[0], getattr(exc, "strerror", None) or exc)) from exc
        stopped = timed_out = False
        try:
            limit = min(stop_after, timeout) if stop_after else timeout
            try:
                process.wait(limit)
            except subprocess.TimeoutExpired:
                stopped = bool(stop_after) and stop_after <= timeout
                timed_out = not stopped
                _stop(process, box, grace)
        finally:
            if process.poll() is None:
                _stop(process, box, grace)
            _signal_group(process.pid, signal.SIGKILL)
            left = box.close(process)
        end = clock()
        return {"start": round(start, 3), "end": round(end, 3), "exit_status": process.returncode, "stopped": stopped,
                "timed_out": timed_out, "stdout_tail": _tail(out), "stderr_tail": _tail(err), "contained": box.kind, "left": left}


_CONDITION = S.Fields("a Job condition", {"type": S.STR, "status": S.STR}, {"reason": S.Nullable(S.STR), "message": S.Nullable(S.STR)})
# What job_state reads of a batch/v1 Job, as its API types give it; another shape is named, never read as running.
JOB = S.Fields("a batch/v1 Job", {}, {"status": S.Nullable(S.Fields("a Job's status", {}, {
    "conditions": S.Nullable(S.ListOf(_CONDITION)), "active": S.Nullable(S.COUNT), "succeeded": S.Nullable(S.COUNT),
    "failed": S.Nullable(S.COUNT)}))})


def job_state(job, where="the Job"):
    """("complete" | "failed" | "running", detail) from a Job's status conditions (Complete or Failed with status True)."""
    S.check(job, S.Nullable(JOB), where, LoadError)
    status = (job or {}).get("status") or {}
    for condition in status.get("conditions") or []:
        if not isinstance(condition, dict) or condition.get("status") != "True":
            continue
        if condition.get("type") in ("Failed", "Complete"):
            detail = ": ".join(str(part) for part in (condition.get("reason"), condition.get("message")) if part)
            return ("failed" if condition["type"] == "Failed" else "complete"), detail
    return "running", "active %s, succeeded %s, failed %s" % (status.get("active", 0), status.get("succeeded", 0), status.get("failed", 0))


def _log_tail(api, namespace, name):
    """The last lines of the log of one of the Job's failed pods (label job-name), or ''."""
    try:
        pods = api.request("GET", "/api/v1/namespaces/%s/pods" % namespace, query={"labelSelector": "job-name=%s" % name})
        items = [pod for pod in pods.get("items") or [] if isinstance(pod, dict)]
        failed = [pod for pod in items if (pod.get("status") or {}).get("phase") == "Failed"] or items
        if not failed:
            return ""
        pod = urllib.parse.quote(str((failed[-1].get("metadata") or {}).get("name", "")), safe="")
        text = api.request("GET", "/api/v1/namespaces/%s/pods/%s/log" % (namespace, pod), query={"tailLines": str(LOG_LINES)}, raw=True,
                           max_bytes=MAX_LOG_BYTES)
        return text.strip()[-TAIL_BYTES:]
    except ServiceComparisonError:
        raise
    except Exception as exc:  # pylint: disable=broad-exception-caught
        return "(no log: %s)" % exc


def run_job(api, manifest, timeout, stop_after=None, poll=2.0, clock=time.time, monotonic=time.monotonic, sleep=time.sleep):
    """Create the Job, wait for its end (or ``stop_after`` / ``timeout``), read a failed pod's log tail, delete it with its pods.

    {"start", "end", "exit_status" (None), "job_state", "job_detail", "stopped", "timed_out", "stderr_tail" (a failed pod's log)}.
    """
    metadata = manifest.get("metadata") or {}
    namespace = _k8s_names.namespace(metadata.get("namespace", "default"), "the load Job's namespace")
    name = _k8s_names.pod_name(metadata.get("name"), "the load Job's name")
    jobs = "/apis/batch/v1/namespaces/%s/jobs" % namespace
    start, began = clock(), monotonic()
    stopped = timed_out = False
    log = ""
    ours = True
    try:
        # Inside the try: a POST whose answer is lost may still have made the Job, and it must not be left running.
        try:
            api.request("POST", jobs, body=manifest)
        except Exception as exc:  # pylint: disable=broad-exception-caught
            if getattr(exc, "code", None) == 409:
                ours = False  # a Job of that name that this run did not make: never deleted
            raise
        while True:
            state, detail = job_state(api.request("GET", "%s/%s" % (jobs, name)), "the Job (GET %s/%s)" % (jobs, name))
            elapsed = monotonic() - began
            if state != "running":
                break
            if stop_after and elapsed >= min(stop_after, timeout):
                stopped = stop_after <= timeout
                timed_out = not stopped
                break
            if elapsed >= timeout:
                timed_out = True
                break
            sleep(poll)
        if state == "failed":
            log = _log_tail(api, namespace, name)
    finally:
        try:
            if ours:
                api.request("DELETE", "%s/%s" % (jobs, name), body={"apiVersion": "v1", "kind": "DeleteOptions", "propagationPolicy": "Background"})
        except ServiceComparisonError:
            raise
        except Exception as exc:  # pylint: disable=broad-exception-caught
            if getattr(exc, "code", None) != 404:
                raise
    return {"start": round(start, 3), "end": round(clock(), 3), "exit_status": None, "job_state": state, "job_detail": detail,
            "stopped": stopped, "timed_out": timed_out, "stderr_tail": log}


def failure(label, what, result, timeout):
    """The message for a run that did not end well, or None: ``label`` names the run, ``what`` the argv or the Job."""
    tail = result.get("stderr_tail") or ""
    if result.get("timed_out"):
        ended = "ran past its %s s timeout and was stopped (%s)" % (_seconds(timeout), "everything it started killed" if "job_state" not in result
                                                                    else "the Job deleted with its pods")
    elif "job_state" in result:
        if result["job_state"] == "complete":
            return None
        ended = "the Job failed (%s)" % (result.get("job_detail") or "no reason given")
    elif result.get("stopped") or result.get("exit_status") == 0:
        return None
    else:
        status = result.get("exit_status")
        ended = "killed by signal %d" % -status if status is not None and status < 0 else "exit status %s" % status
    source = "log tail" if "job_state" in result else "stderr tail"
    return "the load generator failed for %s: %s; %s; %s: %s" % (label, ended, what, source, tail or "(empty)")


def _seconds(value):
    return ("%g" % value) if isinstance(value, (int, float)) else str(value)


def check_result_file(path):
    """Refuse a result file that exists before its run: it would be taken for this run's result."""
    if path and os.path.lexists(path):
        raise LoadError("the result file %s exists before its run: it would be taken for this run's result; remove it or choose another "
                        "service_comparison_result_dir" % path)


def read_result(path, max_bytes):
    """The load generator's result file as a JSON object, or None when it wrote none."""
    if not path or not os.path.lexists(path):
        return None
    # Never followed (a link could show any file), never opened unless regular (a FIFO would block), read within the bound.
    try:
        info = os.lstat(path)
        if stat.S_ISLNK(info.st_mode):
            raise LoadError("the result file %s is a symlink (to %s), not the file the load generator writes; not followed, not read"
                            % (path, os.readlink(path)))
        data = fileio.read_regular(path, max_bytes)
    except fileio.FileIOError as exc:
        if "larger than" in str(exc):
            raise LoadError("the result file %s is larger than %d bytes, the bound for it; not read" % (path, max_bytes)) from None
        raise LoadError("the result file %s" % exc) from None
    except OSError as exc:
        raise LoadError("the result file %s cannot be read: %s" % (path, exc.strerror or exc)) from None
    try:
        value = fileio.parse_json(data)  # a ValueError, never a RecursionError, for JSON nested too deep
    except (UnicodeDecodeError, ValueError) as exc:
        raise LoadError("the result file %s is not JSON (vllm bench serve --save-result writes a JSON object): %s" % (path, exc)) from exc
    if not isinstance(value, dict):
        raise LoadError("the result file %s must hold a JSON object (vllm bench serve --save-result), got %s" % (path, type(value).__name__))
    return value
