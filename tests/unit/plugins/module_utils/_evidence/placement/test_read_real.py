"""placement (_evidence/placement.py) on real processes of this machine, in a real kubelet-shaped cgroup.

The test starts real processes whose threads are pinned with os.sched_setaffinity and that touch
a known amount of memory, puts them in cgroups it creates on this machine's real cgroup mounts
(under a unique cgroup root, the kubelet's --cgroup-root), and reads everything back through
the collection's readers from "/".
"""

import os
import uuid

import pytest

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence.placement import read as placement
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence.placement import usage
from ansible_collections.gpusmith.numa_gate.tests.unit.plugins.module_utils._evidence.placement.evidence_procs import Child, KubeletCgroups

ONLINE = sorted(os.sched_getaffinity(0))
TOUCH = 64 * 1024 * 1024


def _node_of_cpu0():
    nodes = [n for n in os.listdir("/sys/devices/system/node") if n.startswith("node") and n[4:].isdigit()]
    for node in sorted(nodes):
        with open("/sys/devices/system/node/%s/cpulist" % node) as handle:
            if "0" in handle.read().replace("-", ",").split(","):
                return int(node[4:])
    return 0


@pytest.fixture
def child():
    cpus = ONLINE[:2] if len(ONLINE) > 1 else ONLINE
    process = Child(main=cpus, threads=[cpus[:1], cpus[-1:]], touch=TOUCH)
    yield process
    process.stop()


def test_threads_and_pages_of_a_real_process_read_back_exactly(child):
    ids = child.go()
    cpus = child.plan["main"]
    ((found,),) = [placement.read_pids("/", [child.pid], expected_nodes=[_node_of_cpu0()])[1]]
    assert found["found"] is True
    by_tid = {t["tid"]: t["cpus"] for t in found["threads"]}
    assert by_tid[ids["main"]] == "%d-%d" % (cpus[0], cpus[-1]) if len(cpus) > 1 else str(cpus[0])
    assert by_tid[ids["threads"][0]] == str(cpus[0])
    assert by_tid[ids["threads"][1]] == str(cpus[-1])
    # every thread of the process, as taskset -a sees them (the interpreter may add none of its own here)
    assert sorted(by_tid) == sorted(int(t) for t in os.listdir("/proc/%d/task" % child.pid))
    memory = found["memory"]
    assert memory["huge_bytes"] == {}
    # the touched block is anonymous, resident and on this machine's node(s): at least TOUCH bytes
    assert sum(memory["normal_bytes"].values()) >= TOUCH
    assert found["local"]["total_bytes"] == sum(memory["normal_bytes"].values())


@pytest.fixture
def kubelet_tree():
    tree = KubeletCgroups("numa-gate-test-%s" % uuid.uuid4().hex[:8])
    try:
        tree.make("kubepods", "0-%d" % ONLINE[-1], "0")
    except OSError as exc:
        pytest.skip("this machine does not let the test create cgroups (%s): the recorded-tree tests cover the layouts" % exc)
    yield tree
    tree.remove()


def test_real_cgroup_of_a_burstable_pod_cgroupfs_driver(kubelet_tree, child):
    """Two containers: one with every CPU and threads pinned inside it, one narrowed by its cpuset to the last CPU."""
    if kubelet_tree.version != 1:
        pytest.skip("this machine has cgroup v2; the real-cgroup test was written against this machine's v1 cpuset")
    uid = str(uuid.uuid4())
    wide, narrow = "a" * 64, "b" * 64
    every = "0-%d" % ONLINE[-1] if len(ONLINE) > 1 else "0"
    last = str(ONLINE[-1])
    kubelet_tree.make("kubepods/burstable/pod%s" % uid, every, "0")
    wide_cgroup = kubelet_tree.make("kubepods/burstable/pod%s/%s" % (uid, wide), every, "0")
    narrow_cgroup = kubelet_tree.make("kubepods/burstable/pod%s/%s" % (uid, narrow), last, "0")
    kubelet_tree.enter(wide_cgroup, child.pid)
    helper = Child(main=[ONLINE[-1]], threads=[[ONLINE[-1]]], touch=TOUCH // 4)
    try:
        kubelet_tree.enter(narrow_cgroup, helper.pid)
        ids = child.go()
        helper_ids = helper.go()
        tree, (pod,) = placement.read_pods("/", [uid], cgroup_root="/" + kubelet_tree.prefix, expected_nodes=[0])
        # read after the containers' counters (the pod's own was read first, while they still ran)
        pod_usage_after = usage.read_usage("/", tree, pod["cgroup"])
    finally:
        helper.stop()
    assert tree == {"version": 1, "cpuset": "sys/fs/cgroup/cpuset", "cpuacct": "sys/fs/cgroup/cpuacct"}
    assert (pod["found"], pod["driver"], pod["qos"]) == (True, "cgroupfs", "burstable")
    assert pod["cgroup"] == "/%s/kubepods/burstable/pod%s" % (kubelet_tree.prefix, uid)
    assert (pod["cpus"], pod["mems"], pod["processes"]) == (every, "0", [])
    views = {view["id"]: view for view in pod["containers"]}
    assert sorted(views) == [wide, narrow]
    assert (views[wide]["cpus"], views[wide]["mems"]) == (every, "0")
    assert (views[narrow]["cpus"], views[narrow]["mems"]) == (last, "0")
    assert views[narrow]["cpus_source"] == "/sys/fs/cgroup/cpuset%s/cpuset.effective_cpus" % narrow_cgroup
    (proc,) = views[wide]["processes"]
    assert proc["pid"] == child.pid
    cpus = child.plan["main"]
    assert {t["tid"]: t["cpus"] for t in proc["threads"]} == {
        ids["main"]: every, ids["threads"][0]: str(cpus[0]), ids["threads"][1]: str(cpus[-1])}
    (helper_proc,) = views[narrow]["processes"]
    assert {t["tid"]: t["cpus"] for t in helper_proc["threads"]} == {helper_ids["main"]: last, helper_ids["threads"][0]: last}
    assert {t["mems"] for t in proc["threads"] + helper_proc["threads"]} == {"0"}
    for view, cgroup in ((views[wide], wide_cgroup), (views[narrow], narrow_cgroup)):
        assert view["usage"]["source"] == "/sys/fs/cgroup/cpuacct%s/cpuacct.usage" % cgroup
        assert view["usage"]["usage_ns"] > 0
        assert view["local"]["fraction"] == 1.0
    assert views[wide]["local"]["total_bytes"] >= TOUCH
    assert views[narrow]["local"]["total_bytes"] >= TOUCH // 4
    # the pod's counter holds its containers' time (descendants included): never add both
    assert pod_usage_after["usage_ns"] >= views[wide]["usage"]["usage_ns"] + views[narrow]["usage"]["usage_ns"]
    assert pod_usage_after["monotonic_ns"] > pod["usage"]["monotonic_ns"]
