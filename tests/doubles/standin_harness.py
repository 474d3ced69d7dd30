# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Running the kubelet stand-in in tests, and checking what it writes independently of its code.

Not a test module: test_kubelet_standin.py and test_kubelet_standin_pods.py both use it. The
checksums are recomputed here by hand (a separate go-spew rendering and FNV-1a) and checked against
the upstream vectors in test_kubelet_standin.py.
"""

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request

PROGRAM = os.path.join(os.path.dirname(os.path.abspath(__file__)), "kubelet", "kubelet_standin.py")


# --- independent checks -------------------------------------------------------------------

def fnv32a(text):
    h = 2166136261
    for b in text.encode("utf-8"):
        h = ((h ^ b) * 16777619) % (1 << 32)
    return h


def v2_text(policy, default, entries):
    """The hashed text of a V2 CPU checkpoint, written out by hand (KUBELET-FACTS.md)."""
    inner = " ".join("%s:map[%s]" % (pod, " ".join("%s:%s" % (c, entries[pod][c]) for c in sorted(entries[pod]))) for pod in sorted(entries))
    return ("(*state.CPUManagerCheckpoint){PolicyName:(string)%s DefaultCPUSet:(string)%s "
            "Entries:(map[string]map[string]string)map[%s] Checksum:(checksum.Checksum)0}" % (policy, default, inner))


def memory_text(policy, machine_state):
    """The hashed text of a V1 memory checkpoint without entries."""
    nodes = []
    for nid in sorted(machine_state, key=int):
        node = machine_state[nid]
        tables = " ".join(
            "%s:<*>{TotalMemSize:(uint64)%d SystemReserved:(uint64)%d Allocatable:(uint64)%d Reserved:(uint64)%d Free:(uint64)%d}" % (
                name, t["total"], t["systemReserved"], t["allocatable"], t["reserved"], t["free"]) for name, t in sorted(node["memoryMap"].items()))
        nodes.append("%s:<*>{NumberOfAssignments:(int)%d MemoryMap:(map[v1.ResourceName]*state.MemoryTable)map[%s] Cells:([]int)[%s]}" % (
            nid, node["numberOfAssignments"], tables, " ".join(str(c) for c in node["cells"])))
    return ("(*state.MemoryManagerCheckpoint){PolicyName:(string)%s MachineState:(state.NUMANodeMap)map[%s] "
            "Entries:(state.ContainerMemoryAssignments)map[] Checksum:(checksum.Checksum)0}" % (policy, " ".join(nodes)))


# --- running it -------------------------------------------------------------------------------

def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as handle:
        handle.write(text)


def fake_machine(root, online, nodes):
    """A sysfs under ``root``: ``online`` CPUs, ``nodes`` {NUMA node: cpulist} of 4 GiB each, and a meminfo; returns ``root``."""
    sysfs = root / "sys"
    write(str(sysfs / "devices/system/cpu/online"), online + "\n")
    for nid, cpus in sorted(nodes.items()):
        write(str(sysfs / ("devices/system/node/node%d/cpulist" % nid)), cpus + "\n")
        write(str(sysfs / ("devices/system/node/node%d/meminfo" % nid)), "Node %d MemTotal:        4194304 kB\n" % nid)
    write(str(root / "meminfo"), "MemTotal:        %d kB\n" % (4194304 * len(nodes)))
    return root


def command(node, config, *extra):
    write(str(node / "config.yaml"), config)
    return [sys.executable, PROGRAM, "--config", str(node / "config.yaml"), "--root-dir", str(node / "root"),
            "--sysfs-root", str(node / "sys"), "--meminfo", str(node / "meminfo"), "--node-name", "n1"] + list(extra)


def refused(node, config, *extra):
    proc = subprocess.run(command(node, config, "--healthz-port", str(free_port()), "--port", str(free_port()), *extra),
                          capture_output=True, text=True, timeout=20, check=False)
    assert proc.returncode == 1, proc.stderr
    return [line for line in proc.stderr.splitlines() if line.startswith("kubelet stand-in refused to start: ")][0][len("kubelet stand-in refused to start: "):]


def get(url):
    with urllib.request.urlopen(url, timeout=2) as resp:
        return resp.read().decode()


class Running(object):
    def __init__(self, node, config, *extra):
        self.hz, self.port = free_port(), free_port()
        self.proc = subprocess.Popen(command(node, config, "--healthz-port", str(self.hz), "--port", str(self.port), *extra),
                                     stderr=subprocess.PIPE, text=True)
        deadline = time.time() + 15
        while time.time() < deadline:
            try:
                assert get("http://127.0.0.1:%d/healthz" % self.hz) == "ok"
                return
            except OSError:
                assert self.proc.poll() is None, self.proc.stderr.read()
                time.sleep(0.05)
        raise AssertionError("the stand-in did not serve healthz")

    def stop(self):
        self.proc.terminate()
        assert self.proc.wait(timeout=10) == 0


def read_state(node, name):
    with open(str(node / "root" / name)) as handle:
        return json.load(handle)
