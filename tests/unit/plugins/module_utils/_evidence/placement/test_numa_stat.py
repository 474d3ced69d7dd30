"""placement.numa_stat: memory.numa_stat of a real kernel (this machine's cgroup v1 memory controller), and the v2 form.

This machine's memory controller is cgroup v1 (/sys/fs/cgroup/memory; the unified mount has no memory controller), so the
real files read here are v1: pages per node, turned into bytes with the page size. The v2 text below is written in the form
Documentation/admin-guide/cgroup-v2.rst gives and mm/memcontrol.c's memory_numa_stat_show prints (bytes per node).
"""

import os
import uuid

import pytest

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence.placement import cgroups
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence.placement import numa_stat
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence.placement import read as placement
from ansible_collections.gpusmith.numa_gate.tests.unit.plugins.module_utils._evidence.placement.evidence_procs import Child, KubeletCgroups

PAGE = os.sysconf("SC_PAGE_SIZE")
MEMORY_V1 = "/sys/fs/cgroup/memory"
TOUCH = 64 * 1024 * 1024
# memcg keeps its statistics per CPU and folds them in batches (MEMCG_CHARGE_BATCH, 64 pages, mm/memcontrol.c),
# so a reading right after the touch may lack up to that many pages per CPU; a CI run saw 12 pages missing.
UNFLUSHED = 64 * os.sysconf("SC_PAGE_SIZE") * os.cpu_count()

V2 = """anon N0=1048576 N1=2097152
file N0=4096 N1=8192
kernel_stack N0=16384 N1=0
pagetables N0=8192 N1=4096
sec_pagetables N0=0 N1=0
shmem N0=0 N1=4096
file_mapped N0=4096 N1=0
file_dirty N0=0 N1=0
file_writeback N0=0 N1=0
swapcached N0=0 N1=0
anon_thp N0=0 N1=2097152
file_thp N0=0 N1=0
shmem_thp N0=0 N1=0
inactive_anon N0=1048576 N1=2097152
active_anon N0=0 N1=0
inactive_file N0=4096 N1=0
active_file N0=0 N1=8192
unevictable N0=0 N1=0
slab_reclaimable N0=4096 N1=0
slab_unreclaimable N0=8192 N1=8192
hugetlb N0=0 N1=4194304
workingset_refault_anon N0=0 N1=0
workingset_refault_file N0=3 N1=0
workingset_activate_anon N0=0 N1=0
workingset_activate_file N0=0 N1=0
workingset_restore_anon N0=0 N1=0
workingset_restore_file N0=0 N1=0
workingset_nodereclaim N0=0 N1=0
"""


def _own_memory_cgroup():
    with open("/proc/self/cgroup") as handle:
        for line in handle:
            parts = line.rstrip("\n").split(":", 2)
            if "memory" in parts[1].split(","):
                return parts[2]
    return None


@pytest.mark.skipif(not os.path.isfile(MEMORY_V1 + "/memory.numa_stat"), reason="this machine has no cgroup v1 memory controller")
def test_this_machines_v1_file_read_in_place():
    """The test process's own memory cgroup, read through the collection's reader from "/", against the same file read here."""
    tree = cgroups.hierarchy("/")
    cgroup = _own_memory_cgroup()
    stat = numa_stat.read_numa_stat("/", tree, cgroup)
    with open(os.path.join(MEMORY_V1, cgroup.lstrip("/"), "memory.numa_stat")) as handle:
        lines = handle.read().splitlines()
    assert (stat["format"], stat["unit"], stat["page_size"], stat["findings"]) == ("v1", "pages", PAGE, [])
    assert stat["source"] == "/sys/fs/cgroup/memory%s/memory.numa_stat" % cgroup.rstrip("/")
    assert sorted(stat["bytes"]) == ["anon", "file", "total", "unevictable"]
    assert sorted(stat["hierarchical_bytes"]) == ["anon", "file", "total", "unevictable"]
    nodes = sorted(stat["bytes"]["total"])
    assert nodes and all(node.isdigit() for node in nodes)
    # the node set is the kernel's: the same N<id> fields on every line of the file
    assert {tuple(sorted(field.split("=")[0][1:] for field in line.split()[1:])) for line in lines} == {tuple(nodes)}
    # bytes are pages times the page size: every value a whole number of pages
    assert all(value % PAGE == 0 for pool in stat["bytes"].values() for value in pool.values())
    assert stat["resident_bytes"] == stat["bytes"]["total"]


@pytest.fixture
def memory_tree():
    """A kubelet-shaped cgroup tree on this machine's real cpuset, cpuacct and memory mounts."""
    tree = KubeletCgroups("numa-gate-stat-%s" % uuid.uuid4().hex[:8])
    if tree.version != 1 or not os.path.isdir(MEMORY_V1):
        pytest.skip("this machine has cgroup v2; the real memory cgroup test is written against its v1 memory controller")
    tree.mounts["memory"] = MEMORY_V1
    try:
        tree.make("kubepods", "0", "0")
    except OSError as exc:
        pytest.skip("this machine does not let the test create cgroups (%s)" % exc)
    yield tree
    tree.remove()


def test_a_real_container_cgroup_holds_the_pages_its_process_touched(memory_tree):
    uid = str(uuid.uuid4())
    container = "c" * 64
    memory_tree.make("kubepods/pod%s" % uid, "0", "0")
    cgroup = memory_tree.make("kubepods/pod%s/%s" % (uid, container), "0", "0")
    child = Child(main=[0], threads=[[0]], touch=TOUCH)
    try:
        memory_tree.enter(cgroup, child.pid)
        child.go()
        tree, (pod,) = placement.read_pods("/", [uid], cgroup_root="/" + memory_tree.prefix)
    finally:
        child.stop()
    (view,) = pod["containers"]
    stat = view["numa_stat"]
    assert (stat["format"], stat["findings"], stat["source"]) == ("v1", [], "/sys/fs/cgroup/memory%s/memory.numa_stat" % cgroup)
    # the touched block is anonymous and charged to the container's cgroup, on node 0 (its only permitted node)
    assert TOUCH - UNFLUSHED <= stat["bytes"]["anon"]["0"] < 2 * TOUCH
    assert view["permitted"]["nodes"] == "0"
    assert view["permitted"]["source"] == "memory.numa_stat"
    assert view["permitted"]["local_bytes"] == view["permitted"]["total_bytes"] == sum(stat["bytes"]["total"].values())
    assert view["permitted"]["fraction"] == 1.0
    assert tree["version"] == 1


def test_the_v2_form_by_kind_huge_pages_apart():
    stat = numa_stat.parse(V2, "/sys/fs/cgroup/kubepods/pod1/c/memory.numa_stat")
    assert (stat["format"], stat["unit"], stat["findings"]) == ("v2", "bytes", [])
    assert stat["bytes"] == {"anon": {"0": 1048576, "1": 2097152}, "file": {"0": 4096, "1": 8192}, "shmem": {"0": 0, "1": 4096},
                             "kernel": {"0": 16384 + 8192 + 4096 + 8192, "1": 4096 + 8192}}
    assert stat["huge_bytes"] == {"anon_thp": {"0": 0, "1": 2097152}, "file_thp": {"0": 0, "1": 0}, "shmem_thp": {"0": 0, "1": 0},
                                  "hugetlb": {"0": 0, "1": 4194304}}
    assert stat["events"]["workingset_refault_file"] == {"0": 3, "1": 0}
    assert stat["breakdown"]["active_file"] == {"0": 0, "1": 8192}
    # anon_thp is inside anon already; hugetlb is outside anon and file, so it is added once
    assert numa_stat.resident_bytes(stat) == {"0": 1048576 + 4096, "1": 2097152 + 8192 + 4194304}


def test_the_v1_form_in_pages():
    text = "total=30 N0=10 N1=20\nfile=6 N0=2 N1=4\nanon=24 N0=8 N1=16\nunevictable=0 N0=0 N1=0\nhierarchical_total=30 N0=10 N1=20\n"
    stat = numa_stat.parse(text, "numa_stat", page_size=4096)
    assert stat["bytes"] == {"total": {"0": 40960, "1": 81920}, "file": {"0": 8192, "1": 16384}, "anon": {"0": 32768, "1": 65536},
                             "unevictable": {"0": 0, "1": 0}}
    assert stat["hierarchical_bytes"] == {"total": {"0": 40960, "1": 81920}}
    assert numa_stat.resident_bytes(stat) == {"0": 40960, "1": 81920}


def test_unknown_keys_and_negative_values_are_each_a_named_finding_and_the_rest_is_kept():
    text = "anon N0=4096 N1=-8192\nzswap_future N0=1 N1=2\nfile N0=x N1=4096\nshmem 4096\n"
    stat = numa_stat.parse(text, "/sys/fs/cgroup/a/memory.numa_stat")
    assert [finding["message"] for finding in stat["findings"]] == [
        "/sys/fs/cgroup/a/memory.numa_stat line 1: anon N1 '-8192' is not a count (a non-negative decimal integer up to 2**63-1); not counted",
        "/sys/fs/cgroup/a/memory.numa_stat line 2: type 'zswap_future' is not a memory.numa_stat type this collection knows "
        "(Documentation/admin-guide/cgroup-v2.rst); not counted",
        "/sys/fs/cgroup/a/memory.numa_stat line 3: file 'N0=x' is not a node field (N<node id>=<non-negative decimal>); not counted",
        "/sys/fs/cgroup/a/memory.numa_stat line 4: shmem '4096' is not a node field (N<node id>=<non-negative decimal>); not counted",
    ]
    assert {finding["check"] for finding in stat["findings"]} == {"memory_numa_stat"}
    assert {finding["result"] for finding in stat["findings"]} == {"unknown"}
    assert stat["bytes"] == {"anon": {"0": 4096}, "file": {"1": 4096}, "shmem": {}}


def test_v1_unknown_type_negative_total_and_mixed_forms():
    text = "total=-3 N0=1\nswap=1 N0=1\nanon N0=4096\n"
    stat = numa_stat.parse(text, "numa_stat", page_size=4096)
    assert [finding["message"] for finding in stat["findings"]] == [
        "numa_stat line 1: total '-3' is not a page count (a non-negative decimal integer); not counted",
        "numa_stat line 2: type 'swap' is not a memory.numa_stat type this collection knows (Documentation/admin-guide/cgroup-v1/memory.rst); "
        "not counted",
        "numa_stat line 3: type 'anon' is in cgroup v2's form (<type> N0=...) in a v1 file; not counted",
    ]
    assert stat["bytes"] == {"total": {"0": 4096}}


def test_an_empty_file_is_a_finding_not_silence():
    stat = numa_stat.parse("\n", "x/memory.numa_stat")
    assert stat["findings"][0]["message"] == "x/memory.numa_stat is empty: no memory per node was read"
    assert numa_stat.resident_bytes(stat) == {}


def test_a_cgroup_without_the_file_is_not_read(tmp_path):
    (tmp_path / "sys/fs/cgroup").mkdir(parents=True)
    (tmp_path / "sys/fs/cgroup/cgroup.controllers").write_text("cpuset memory\n")
    (tmp_path / "sys/fs/cgroup/kubepods").mkdir()
    tree = cgroups.hierarchy(str(tmp_path))
    assert numa_stat.read_numa_stat(str(tmp_path), tree, "/kubepods") is None
    (tmp_path / "sys/fs/cgroup/kubepods/memory.numa_stat").write_text("anon N0=8192\n")
    stat = numa_stat.read_numa_stat(str(tmp_path), tree, "/kubepods")
    assert (stat["source"], stat["resident_bytes"]) == ("/sys/fs/cgroup/kubepods/memory.numa_stat", {"0": 8192})
