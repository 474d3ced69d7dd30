# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Where a load generator runs on the controller so that everything it starts can be ended: a cgroup made for it, or a pid namespace.

Public: `open_box`, `Cgroup`, `PidNamespace`, `ContainmentError`, `SETTLE`.

A process group is not enough: a child that calls ``setsid()`` leaves it and outlives the run. So each run gets a box:

- a **cgroup** (cgroup v2) made for it under the controller's own cgroup, ``numa-gate-load-<pid>-<n>``: the child enters it
  before it execs the load generator (its ``cgroup.procs``), so everything it starts, in any session, is inside; ending
  the box writes ``cgroup.kill`` (Linux 5.14 on; before it, SIGKILL to each pid in ``cgroup.procs`` until none is left),
  then removes the cgroup;
- else a **pid namespace** (``unshare --pid --fork --kill-child``, with ``--user --map-root-user`` when not root): the
  load generator is the namespace's init, and when it ends, or ``unshare`` is killed, the kernel kills every process in it.

Neither possible (no writable cgroup v2, ``unshare`` refused): `open_box` refuses, naming both reasons, before anything runs.
"""

from __future__ import annotations

import itertools
import os
import shutil
import signal
import subprocess
import time

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._service_comparison.errors import ServiceComparisonError

# How long ending a box may wait for the kernel to empty it.
SETTLE = 5.0
_COUNTER = itertools.count()


class ContainmentError(ServiceComparisonError):
    """The load generator cannot be run where all it starts can be ended."""


def _unified_mount(mountinfo="/proc/self/mountinfo"):
    """(mount point, mount root) of the cgroup v2 hierarchy, or None."""
    with open(mountinfo, encoding="utf-8") as handle:
        for line in handle:
            fields = line.split()
            if " - cgroup2 " in line and len(fields) > 4:
                return fields[4], fields[3]
    return None


def _own_cgroup(proc_cgroup="/proc/self/cgroup"):
    with open(proc_cgroup, encoding="utf-8") as handle:
        for line in handle:
            if line.startswith("0::"):
                return line[3:].strip()
    return None


class Cgroup:
    """A cgroup v2 made for one run; `enter` runs in the child before exec."""

    kind = "cgroup"

    def __init__(self, path):
        self.path = path

    @classmethod
    def make(cls):
        mount = _unified_mount()
        own = _own_cgroup()
        if mount is None or own is None:
            raise ContainmentError("no cgroup v2 hierarchy is mounted")
        point, root = mount
        relative = own[len(root):] if root != "/" and own.startswith(root) else own
        path = os.path.join(point, relative.lstrip("/"), "numa-gate-load-%d-%d" % (os.getpid(), next(_COUNTER)))
        try:
            os.mkdir(path, 0o755)
        except OSError as exc:
            raise ContainmentError("cannot make the cgroup %s: %s" % (path, exc.strerror or exc)) from exc
        return cls(path)

    def argv(self, argv):
        return list(argv)

    def enter(self):
        with open(os.path.join(self.path, "cgroup.procs"), "w", encoding="ascii") as handle:
            handle.write("0")

    def pids(self):
        try:
            with open(os.path.join(self.path, "cgroup.procs"), encoding="ascii") as handle:
                return [int(word) for word in handle.read().split()]
        except FileNotFoundError:
            return []

    def signal(self, unused_process, signum):
        for pid in self.pids():
            try:
                os.kill(pid, signum)
            except ProcessLookupError:
                pass

    def kill(self, process):
        """SIGKILL to everything in the cgroup; the pids it held, once empty (or SETTLE seconds gone)."""
        held = self.pids()
        try:
            with open(os.path.join(self.path, "cgroup.kill"), "w", encoding="ascii") as handle:
                handle.write("1")
        except FileNotFoundError:
            self.signal(process, signal.SIGKILL)
        deadline = time.monotonic() + SETTLE
        while self.pids() and time.monotonic() < deadline:
            self.signal(process, signal.SIGKILL)
            time.sleep(0.01)
        return held

    def close(self, process):
        """End everything still in the cgroup and remove it: the pids that were left."""
        left = self.kill(process)
        deadline = time.monotonic() + SETTLE
        while True:
            try:
                os.rmdir(self.path)
                return left
            except FileNotFoundError:
                return left
            except OSError as exc:
                if time.monotonic() > deadline:
                    raise ContainmentError("the load's cgroup %s could not be removed: %s (pids %s)"
                                           % (self.path, exc.strerror or exc, self.pids())) from exc
                time.sleep(0.05)


class PidNamespace:
    """``unshare`` with a pid namespace: the load generator its init, killed with everything in it when ``unshare`` dies."""

    kind = "pid namespace"

    def __init__(self, prefix):
        self.prefix = prefix

    @classmethod
    def make(cls):
        unshare = shutil.which("unshare")
        if unshare is None:
            raise ContainmentError("unshare (util-linux) is not on PATH")
        prefix = [unshare] + ([] if os.geteuid() == 0 else ["--user", "--map-root-user"]) + ["--pid", "--fork", "--kill-child", "--"]
        try:
            probe = subprocess.run(prefix + ["true"], stdin=subprocess.DEVNULL, capture_output=True, timeout=SETTLE, check=False)
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise ContainmentError("unshare did not run: %s" % exc) from exc
        if probe.returncode != 0:
            said = probe.stderr.decode("utf-8", "replace").strip()[:200]
            raise ContainmentError("unshare refused a pid namespace: %s" % (said or "exit status %d" % probe.returncode))
        return cls(prefix)

    def argv(self, argv):
        return self.prefix + list(argv)

    enter = None

    def signal(self, process, signum):
        if process is None:
            return
        try:
            os.killpg(process.pid, signum)
        except (ProcessLookupError, PermissionError):
            pass

    def kill(self, process):
        self.signal(process, signal.SIGKILL)
        return []

    def close(self, process):
        return self.kill(process)


def open_box():
    """A `Cgroup`, else a `PidNamespace`; neither: `ContainmentError` naming why each could not be had."""
    reasons = []
    for kind in (Cgroup, PidNamespace):
        try:
            return kind.make()
        except ContainmentError as exc:
            reasons.append("%s: %s" % (kind.kind, exc))
    raise ContainmentError("the load generator cannot be run where everything it starts can be ended (%s): nothing was run; run the "
                           "controller where it may make a cgroup v2 or a pid namespace" % "; ".join(reasons))
