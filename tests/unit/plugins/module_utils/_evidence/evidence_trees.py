"""Recorded kubelet node trees for the placement tests (a helper module, not a test file).

`node_tree` writes, under a tmp_path root, what a node shows for one pod: the cgroup mount of
the version asked (v2 unified, or v1 cpuset + cpuacct), the pod cgroup where the kubelet's
driver and the pod's QoS class put it, its container cgroups with cpusets, usage counters and
procs, and /proc/<pid>/task/<tid>/status and numa_maps for each process, in the kernel's formats.
"""

import os

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence.placement import cgroup_layout as layout

STATUS = ("Name:\t{name}\nUmask:\t0022\nState:\tS (sleeping)\nTgid:\t{pid}\nPid:\t{tid}\nCpus_allowed:\tffff\n"
          "Cpus_allowed_list:\t{cpus}\nMems_allowed:\t00000001\nMems_allowed_list:\t{mems}\nvoluntary_ctxt_switches:\t3\n")


def _write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as handle:
        handle.write(text)


def node_tree(root, version, driver, qos, uid, containers):
    """``containers``: [{"id", "prefix" (runtime cgroup name prefix or ""), "cpus", "mems", "usage_ns",
    "pids": {pid: {"threads": {tid: cpus}, "numa_maps": text}}}]."""
    relative = [r for d, q, r in layout.pod_cgroup_candidates(uid) if (d, q) == (driver, qos)][0]
    mounts = {"cpuset": "sys/fs/cgroup", "cpuacct": "sys/fs/cgroup"}
    if version == 1:
        mounts = {"cpuset": "sys/fs/cgroup/cpuset", "cpuacct": "sys/fs/cgroup/cpuacct"}
    if version == 2:
        _write(os.path.join(root, "sys/fs/cgroup/cgroup.controllers"), "cpuset cpu io memory pids\n")
        _write(os.path.join(root, "sys/fs/cgroup/cpuset.cpus.effective"), "0-15\n")
    else:
        _write(os.path.join(root, "sys/fs/cgroup/cpuset/cpuset.effective_cpus"), "0-15\n")
    pod_dir = os.path.join(root, mounts["cpuset"], relative)
    if version == 2:
        _write(os.path.join(pod_dir, "cpu.stat"), "usage_usec %d\nuser_usec 1\nsystem_usec 1\n" % (sum(c["usage_ns"] for c in containers) // 1000))
        _write(os.path.join(pod_dir, "cgroup.procs"), "")
    else:
        _write(os.path.join(pod_dir, "cpuset.effective_cpus"), "0-15\n")
        _write(os.path.join(pod_dir, "cpuset.effective_mems"), "0-1\n")
        _write(os.path.join(pod_dir, "cgroup.procs"), "")
        _write(os.path.join(root, mounts["cpuacct"], relative, "cpuacct.usage"), "%d\n" % sum(c["usage_ns"] for c in containers))
    for container in containers:
        name = container["prefix"] + container["id"] + (".scope" if driver == "systemd" else "")
        cdir = os.path.join(pod_dir, name)
        if version == 2:
            _write(os.path.join(cdir, "cpuset.cpus.effective"), container["cpus"] + "\n")
            _write(os.path.join(cdir, "cpuset.mems.effective"), container["mems"] + "\n")
            _write(os.path.join(cdir, "cpu.stat"), "usage_usec %d\n" % (container["usage_ns"] // 1000))
        else:
            _write(os.path.join(cdir, "cpuset.effective_cpus"), container["cpus"] + "\n")
            _write(os.path.join(cdir, "cpuset.effective_mems"), container["mems"] + "\n")
            _write(os.path.join(root, mounts["cpuacct"], relative, name, "cpuacct.usage"), "%d\n" % container["usage_ns"])
        _write(os.path.join(cdir, "cgroup.procs"), "".join("%d\n" % pid for pid in container["pids"]))
        for pid, proc in container["pids"].items():
            for tid, cpus in proc["threads"].items():
                text = STATUS.format(name="app", pid=pid, tid=tid, cpus=cpus, mems=container["mems"])
                _write(os.path.join(root, "proc/%d/task/%d/status" % (pid, tid)), text)
            _write(os.path.join(root, "proc/%d/numa_maps" % pid), proc["numa_maps"])
    return "/" + relative
