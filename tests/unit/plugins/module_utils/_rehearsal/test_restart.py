"""_rehearsal.restart: the main process of a real cgroup on this machine stopped, and the restart composed from the API and PodResources."""

import os
import subprocess
import sys
import time
import uuid

import pytest

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base.errors import NumaGateError
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._rehearsal import restart

CPUSET_V1 = "/sys/fs/cgroup/cpuset"
POD = "ml/trainer-0"


def _pods(main_cpus="2-3", gpu="GPU-1"):
    return {"pods": [{"name": "trainer-0", "namespace": "ml", "cpu_ids": "", "memory": [], "containers": [
        {"name": "main", "cpu_ids": main_cpus, "memory": [{"memory_type": "memory", "size": 1073741824, "numa_nodes": [0]}],
         "devices": [{"resource_name": "nvidia.com/gpu", "device_ids": [gpu], "numa_nodes": [0]}], "dynamic_resources": []}]}]}


@pytest.fixture
def container_cgroup():
    """A real cgroup (this machine's v1 cpuset, else v2) holding a process and its child, as a container's shim leaves them."""
    base = CPUSET_V1 if os.path.isdir(CPUSET_V1) else "/sys/fs/cgroup"
    name = "numa-gate-restart-%s" % uuid.uuid4().hex[:8]
    path = os.path.join(base, name)
    try:
        os.mkdir(path)
        if base == CPUSET_V1:
            for leaf in ("cpuset.cpus", "cpuset.mems"):
                with open(os.path.join(base, leaf)) as parent, open(os.path.join(path, leaf), "w") as handle:
                    handle.write(parent.read().strip())
    except OSError as exc:
        pytest.skip("this machine does not let the test create cgroups (%s)" % exc)
    # the "container's" main process starts a child of its own once it is in the cgroup (a child forked before the move would stay
    # outside: a CI run saw that); the parent (this test) stays outside
    main = subprocess.Popen([sys.executable, "-c", "import subprocess, sys, time; sys.stdin.readline(); subprocess.Popen([sys.executable, '-c', "
                             "'import time; time.sleep(60)']); time.sleep(60)"], stdin=subprocess.PIPE)
    try:
        with open(os.path.join(path, "cgroup.procs"), "w") as handle:
            handle.write(str(main.pid))
        main.stdin.write(b"moved\n")
        main.stdin.flush()
        yield "/" + name, main
    finally:
        if main.poll() is None:
            main.kill()
        main.wait()
        main.stdin.close()
        for pid in open(os.path.join(path, "cgroup.procs")).read().split():
            try:
                os.kill(int(pid), 9)
            except ProcessLookupError:
                pass
        for _attempt in range(50):
            try:
                os.rmdir(path)
                break
            except OSError:
                time.sleep(0.1)


def _procs(cgroup):
    base = CPUSET_V1 if os.path.isdir(CPUSET_V1) else "/sys/fs/cgroup"
    for _attempt in range(300):  # the "container's" child starts within 30 s even on a loaded machine
        pids = sorted(int(pid) for pid in open(os.path.join(base, cgroup.lstrip("/"), "cgroup.procs")).read().split())
        if len(pids) == 2:
            return pids
        time.sleep(0.1)
    return pids


def test_the_main_process_of_a_real_cgroup_is_stopped_and_only_it(container_cgroup):
    cgroup, main = container_cgroup
    pids = _procs(cgroup)
    assert main.pid in pids and len(pids) == 2
    assert restart.main_process("/", cgroup, list(reversed(pids))) == main.pid
    assert restart.stop("/", cgroup, pids, check_mode=True) == {"pid": main.pid, "signal": "SIGKILL", "stopped": False}
    assert main.poll() is None
    assert restart.stop("/", cgroup, pids) == {"pid": main.pid, "signal": "SIGKILL", "stopped": True}
    assert main.wait(timeout=10) == -9


def test_a_pid_not_in_the_cgroup_is_never_signalled(container_cgroup):
    cgroup, main = container_cgroup
    with pytest.raises(NumaGateError) as raised:
        restart.stop("/", cgroup, [os.getpid()])
    assert str(raised.value) == ("cgroup %s has no process of those given: its main process is not known, so nothing was stopped "
                                 "(processes given: %d)" % (cgroup, os.getpid()))
    with pytest.raises(NumaGateError, match=r"^cgroup '/a/\.\./b' is not a cgroup path: nothing was stopped$"):
        restart.stop("/", "/a/../b", [main.pid])
    assert main.poll() is None


def test_two_roots_in_one_cgroup_is_refused(tmp_path):
    for pid, parent in ((10, 1), (11, 2)):
        (tmp_path / "proc" / str(pid)).mkdir(parents=True)
        (tmp_path / "proc" / str(pid) / "stat").write_text("%d (python3) S %d 1 1 0 -1\n" % (pid, parent))
        (tmp_path / "proc" / str(pid) / "cgroup").write_text("3:cpuset:/kubepods/pod1/c\n0::/kubepods/pod1/c\n")
    with pytest.raises(NumaGateError) as raised:
        restart.main_process(str(tmp_path), "/kubepods/pod1/c", [10, 11])
    assert str(raised.value) == ("cgroup /kubepods/pod1/c has 2 processes whose parent is outside it (10, 11): its main process is not "
                                 "known, so nothing was stopped (processes given: 10, 11)")
    # one root (11 a child of 10): named in check mode, but never signalled under a root that is not this host's /
    (tmp_path / "proc" / "11" / "stat").write_text("11 (python3) S 10 1 1 0 -1\n")
    assert restart.stop(str(tmp_path), "/kubepods/pod1/c", [10, 11], check_mode=True)["pid"] == 10
    with pytest.raises(NumaGateError) as raised:
        restart.stop(str(tmp_path), "/kubepods/pod1/c", [10, 11])
    assert str(raised.value) == "root %s is not /: PID 10 read under it is not a process of this host, so nothing was stopped" % tmp_path


def _k8s(count, ready=True):
    return {"resources": [{"status": {"conditions": [{"type": "Ready", "status": "True" if ready else "False"}],
                                      "containerStatuses": [{"name": "main", "restartCount": count}]}}]}


ITEM = {"pod": POD, "uid": "u1", "main": {"container": "main", "id": "a" * 64, "cgroup": "/kubepods/podu1/" + "a" * 64, "pids": [7]}}


def test_a_restart_seen_whose_allocation_held_or_moved():
    stops = {"results": [{"item": ITEM, "pid": 7, "stopped": True}]}
    before = {"results": [dict(_k8s(0), item=ITEM)]}
    after = {"results": [dict(_k8s(1), item=ITEM)]}
    assert restart.results(stops, before, after, _pods(), _pods()) == [
        {"pod": POD, "container": "main", "restart_count": 1, "changes": [], "error": None, "restarted": True}]
    (moved,) = restart.results(stops, before, after, _pods(), _pods(main_cpus="6-7", gpu="GPU-2"))
    assert moved["changes"] == [
        "pod ml/trainer-0 container main: its exclusive CPUs changed with the restart: 2-3 before, 6-7 after",
        "pod ml/trainer-0 container main: its devices changed with the restart: [{'resource_name': 'nvidia.com/gpu', 'device_ids': ['GPU-1'], "
        "'numa_nodes': [0]}] before, [{'resource_name': 'nvidia.com/gpu', 'device_ids': ['GPU-2'], 'numa_nodes': [0]}] after"]
    (gone,) = restart.results(stops, before, after, _pods(), {"pods": []})
    assert gone["changes"] == ["pod ml/trainer-0 container main: not listed by PodResources after the restart, so whether its allocation "
                               "held is unknown"]


def test_a_restart_not_seen_or_not_made_is_an_error_not_agreement():
    before = {"results": [dict(_k8s(0), item=ITEM)]}
    stops = {"results": [{"item": ITEM, "pid": 7, "stopped": True}]}
    (unseen,) = restart.results(stops, before, {"results": [dict(_k8s(0), item=ITEM)]}, _pods(), _pods())
    assert (unseen["restarted"], unseen["error"]) == (False, "its restart count went from 0 to 0 and the pod is Ready: the restart was not seen")
    (unready,) = restart.results(stops, before, {"results": [dict(_k8s(1, ready=False), item=ITEM)]}, _pods(), _pods())
    assert unready["error"] == "its restart count went from 0 to 1 and the pod is not Ready: the restart was not seen"
    failed = {"results": [{"item": ITEM, "failed": True, "msg": "cgroup /x has no process of those given"}]}
    (refused,) = restart.results(failed, before, before, _pods(), _pods())
    assert (refused["restarted"], refused["error"], refused["changes"]) == (False, "cgroup /x has no process of those given", [])
