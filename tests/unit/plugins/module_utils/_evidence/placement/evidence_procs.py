"""Real processes and real cgroups for the placement tests (a helper module, not a test file).

`Child` starts a real Python process that, on "go", starts threads, pins each with
os.sched_setaffinity to the CPUs asked, touches a chosen number of bytes of anonymous memory and
reports its thread ids. `KubeletCgroups` creates a real kubelet-shaped cgroup tree (under a
unique --cgroup-root, so no real kubelet path is touched) in this machine's cgroup v1 cpuset and
cpuacct hierarchies, or v2 where that is what the machine has, and removes it afterwards.
"""

import json
import os
import select
import subprocess
import sys

CHILD = r"""
import json, os, sys, threading
plan = json.loads(sys.argv[1])
sys.stdin.readline()                      # "go": the test has moved us into our cgroup
os.sched_setaffinity(0, set(plan["main"]))
block = bytearray(plan["touch"])
for offset in range(0, len(block), 4096):
    block[offset] = 1                     # fault every page in
tids = []
ready = threading.Barrier(len(plan["threads"]) + 1)
stop = threading.Event()
def worker(cpus):
    os.sched_setaffinity(0, set(cpus))
    tids.append(threading.get_native_id())
    ready.wait()
    stop.wait()
threads = [threading.Thread(target=worker, args=(cpus,), daemon=True) for cpus in plan["threads"]]
for thread in threads:
    thread.start()
ready.wait()
print(json.dumps({"pid": os.getpid(), "main": threading.get_native_id(), "threads": tids}), flush=True)
sys.stdin.readline()
"""


class Child:
    """A real process with threads pinned as asked; `start` returns its pid before any pinning."""

    def __init__(self, main, threads, touch):
        self.plan = {"main": list(main), "threads": [list(t) for t in threads], "touch": touch}
        self.proc = subprocess.Popen([sys.executable, "-c", CHILD, json.dumps(self.plan)], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True)
        self.pid = self.proc.pid
        self.ids = None

    def go(self):
        self.proc.stdin.write("go\n")
        self.proc.stdin.flush()
        ready, _w, _x = select.select([self.proc.stdout], [], [], 20)
        if not ready:
            self.proc.kill()
            raise AssertionError("the child %d did not report its threads within 20 s" % self.pid)
        line = self.proc.stdout.readline()
        if not line:
            raise AssertionError("the child %d ended before reporting its threads (rc %s)" % (self.pid, self.proc.wait()))
        self.ids = json.loads(line)
        return self.ids

    def stop(self):
        if self.proc.poll() is None:
            try:
                self.proc.stdin.write("stop\n")
                self.proc.stdin.flush()
            except (BrokenPipeError, ValueError):
                pass
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


class KubeletCgroups:
    """A kubelet-shaped cgroup tree on this machine's real cgroup mounts, removed by `remove`."""

    def __init__(self, prefix):
        self.prefix = prefix.strip("/")
        self.made = []
        if os.path.exists("/sys/fs/cgroup/cgroup.controllers"):
            self.version = 2
            self.mounts = {"cpuset": "/sys/fs/cgroup"}
        else:
            self.version = 1
            self.mounts = {"cpuset": "/sys/fs/cgroup/cpuset", "cpuacct": "/sys/fs/cgroup/cpuacct"}

    def make(self, relative, cpus, mems):
        """Create every level of ``prefix/relative`` with the cpuset given (v1 needs each level set)."""
        parts = [self.prefix] + relative.strip("/").split("/")
        for depth in range(1, len(parts) + 1):
            for name, mount in self.mounts.items():
                path = os.path.join(mount, *parts[:depth])
                fresh = not os.path.isdir(path)
                if fresh:
                    os.mkdir(path)
                    self.made.append(path)
                if name == "cpuset" and self.version == 1 and (fresh or depth == len(parts)):
                    for leaf, value in (("cpuset.cpus", cpus), ("cpuset.mems", mems)):
                        with open(os.path.join(path, leaf), "w") as handle:
                            handle.write(value)
        return "/" + "/".join(parts)

    def enter(self, cgroup, pid):
        for mount in self.mounts.values():
            with open(os.path.join(mount, cgroup.lstrip("/"), "cgroup.procs"), "w") as handle:
                handle.write(str(pid))

    def remove(self):
        for path in sorted(self.made, key=len, reverse=True):
            try:
                os.rmdir(path)
            except OSError:
                pass
