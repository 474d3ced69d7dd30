"""containment on this machine's real cgroup v2 and unshare: what enters a box, how it is ended, and the refusal without one."""

import os
import subprocess
import sys
import time

import pytest

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._service_comparison import containment

LEAVER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "load_leaves_a_session.py")


def _wait_for(path, seconds=5.0):
    deadline = time.monotonic() + seconds
    while not os.path.exists(path):
        assert time.monotonic() < deadline, "no %s" % path
        time.sleep(0.02)
    with open(path, encoding="ascii") as handle:
        return int(handle.read())


def _alive(pid):
    try:
        with open("/proc/%d/stat" % pid, encoding="utf-8") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def test_a_cgroup_holds_a_child_that_left_the_session_until_it_is_killed(tmp_path):
    box = containment.Cgroup.make()
    assert os.path.basename(box.path).startswith("numa-gate-load-%d-" % os.getpid()) and box.pids() == []
    pid_file = str(tmp_path / "pid")
    # pylint: disable-next=consider-using-with,subprocess-popen-preexec-fn
    leader = subprocess.Popen([sys.executable, LEAVER, pid_file], preexec_fn=box.enter, start_new_session=True, stdout=subprocess.DEVNULL)
    assert leader.wait(10) == 0
    child = _wait_for(pid_file)
    assert box.pids() == [child] and _alive(child)
    assert box.close(leader) == [child]
    assert not os.path.exists(box.path)
    deadline = time.monotonic() + 2
    while _alive(child) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert not _alive(child)


def test_a_pid_namespace_runs_the_command_as_its_init():
    box = containment.PidNamespace.make()
    assert box.argv(["sh", "-c", "echo $$"])[-4:] == ["--", "sh", "-c", "echo $$"]
    done = subprocess.run(box.argv(["sh", "-c", "echo $$"]), capture_output=True, text=True, timeout=10, check=True)
    assert done.stdout == "1\n"  # the command is the namespace's init: when it ends, the kernel ends everything in it


def test_the_mount_and_own_cgroup_are_read_from_proc(tmp_path):
    mountinfo = tmp_path / "mountinfo"
    mountinfo.write_text("35 24 0:30 / /sys/fs/cgroup rw,nosuid shared:9 - cgroup2 cgroup2 rw,nsdelegate\n"
                         "36 24 0:31 / /proc rw - proc proc rw\n")
    assert containment._unified_mount(str(mountinfo)) == ("/sys/fs/cgroup", "/")  # pylint: disable=protected-access
    mountinfo.write_text("36 24 0:31 / /proc rw - proc proc rw\n")
    assert containment._unified_mount(str(mountinfo)) is None  # pylint: disable=protected-access
    proc = tmp_path / "cgroup"
    proc.write_text("4:memory:/x\n0::/user.slice/session-3.scope\n")
    assert containment._own_cgroup(str(proc)) == "/user.slice/session-3.scope"  # pylint: disable=protected-access


def test_open_box_takes_a_cgroup_first():
    box = containment.open_box()
    try:
        assert box.kind == "cgroup"
    finally:
        box.close(None)


def test_open_box_refuses_naming_both_reasons(monkeypatch):
    monkeypatch.setattr(containment, "_unified_mount", lambda: None)
    monkeypatch.setattr(containment.shutil, "which", lambda name: None)
    with pytest.raises(containment.ContainmentError) as caught:
        containment.open_box()
    assert str(caught.value) == ("the load generator cannot be run where everything it starts can be ended (cgroup: no cgroup v2 hierarchy is "
                                 "mounted; pid namespace: unshare (util-linux) is not on PATH): nothing was run; run the controller where "
                                 "it may make a cgroup v2 or a pid namespace")
