"""service_load through the real `ansible`: a load generator whose child calls setsid() leaves nothing running (issue 29, class 4).

The child leaves the process group on purpose (tests/unit/plugins/module_utils/_service_comparison/load_leaves_a_session.py);
the run reports "exit status 0", the box it ran in and the pid it killed, and by pid (/proc) that process is gone. Each run
ends by itself (timeout 30 s) and the whole `ansible` call is bounded (120 s).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

from ansible_collections.gpusmith.numa_gate.tests.unit import ansible_run

LEAVER = os.path.join(ansible_run.REPO, "tests", "unit", "plugins", "module_utils", "_service_comparison", "load_leaves_a_session.py")


def adhoc(tmp_path, args):
    argv = [os.path.join(ansible_run.BIN, "ansible"), "localhost", "-i", "localhost,", "-c", "local", "-m", "gpusmith.numa_gate.service_load",
            "-a", json.dumps(args), "-e", "ansible_python_interpreter=%s" % ansible_run.PYTHON]
    done = subprocess.run(argv, cwd=ansible_run.REPO, env=ansible_run.environment(tmp_path), capture_output=True, text=True,
                          timeout=120, check=False)
    return json.loads(done.stdout[done.stdout.index("{"):])["plays"][0]["tasks"][0]["hosts"]["localhost"]


def gone(pid, seconds=2.0):
    """Whether ``pid`` is gone or a zombie (killed, not yet reaped by init) within ``seconds``."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            with open("/proc/%d/stat" % pid, encoding="utf-8") as handle:
                if handle.read().rsplit(")", 1)[1].split()[0] == "Z":
                    return True
        except FileNotFoundError:
            return True
        time.sleep(0.02)
    return False


def test_a_child_in_a_session_of_its_own_is_ended_with_the_run(tmp_path):
    pid_file = str(tmp_path / "pid")
    result = adhoc(tmp_path, {"side": "baseline", "repetition": 1, "window": 1, "argv": [sys.executable, LEAVER, pid_file], "timeout": 30})
    with open(pid_file, encoding="ascii") as handle:
        child = int(handle.read())
    assert (result["outcome"], result["exit_status"], result["stdout_tail"]) == ("exit status 0", 0, "left a child in its own session")
    assert (result["contained"], result["left"]) == ("cgroup", [child])
    assert gone(child)


def test_past_its_timeout_the_run_fails_and_its_session_leaver_is_gone(tmp_path):
    pid_file = str(tmp_path / "pid")
    argv = ["/bin/sh", "-c", "trap '' TERM; \"$0\" \"$1\" \"$2\"; sleep 30", sys.executable, LEAVER, pid_file]
    result = adhoc(tmp_path, {"side": "canary", "repetition": 2, "window": 4, "argv": argv, "timeout": 2})
    with open(pid_file, encoding="ascii") as handle:
        child = int(handle.read())
    assert result["failed"] is True
    assert result["msg"] == ("the load generator failed for canary repetition 2 (window 4, the measured part): ran past its 2 s timeout "
                             "and was stopped (everything it started killed); argv %s; stderr tail: (empty)" % argv)
    assert gone(child)
