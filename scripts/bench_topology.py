# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Time the topology gather, and the tools it replaces, on this machine.

1. The pure gather (``_facts.gather.gather``, gpu_source=sysfs) on the 256-PU
   (256ia64-64n2s2c) and 128-PU (128arm-2pa2n8cluster4co) hwloc snapshots and
   on this machine's own /sys: median and minimum of N runs, in one process
   (warm page cache, as on a node where sysfs is in memory anyway).
2. ``lscpu -J`` and ``numactl -H`` on this machine (each a fresh process), for
   comparison: the same information a shell-based gather would collect.
3. The module end to end through Ansible:
   ``ansible localhost -m gpusmith.numa_gate.topology_facts`` (process start,
   AnsiballZ build, the module, the result).

Prints a Markdown table with the exact commands, for docs/benchmarks.md.
Usage: scripts/bench_topology.py [--runs N] [--ansible-runs N]
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import subprocess
import sys
import time

from bench_common import REPO, SHARED, timed  # noqa: E402 pylint: disable=wrong-import-position

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts.gather import gather  # noqa: E402 pylint: disable=wrong-import-position

SNAPSHOTS = ("256ia64-64n2s2c", "128arm-2pa2n8cluster4co")


def run_quiet(argv, env=None):
    completed = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, check=False)
    if completed.returncode != 0:
        raise SystemExit("%s failed (rc %d): %s" % (" ".join(argv), completed.returncode, completed.stderr.decode(errors="replace")[:500]))
    return completed


def cpu_model():
    try:
        with open("/proc/cpuinfo") as handle:
            for line in handle:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.machine()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=50, help="runs per in-process or tool measurement (default 50)")
    parser.add_argument("--ansible-runs", type=int, default=5, help="runs of the Ansible ad-hoc command (default 5)")
    args = parser.parse_args()

    rows = []
    for name in SNAPSHOTS:
        root = os.path.join(SHARED, "fixtures", "hwloc", name)
        facts = gather(root, gpu_source="sysfs")
        median, best = timed(lambda root=root: gather(root, gpu_source="sysfs"), args.runs)
        what = "gather(), %d PUs, %d NUMA nodes" % (facts["cpus"]["logical"], len(facts["numa_nodes"]))
        rows.append((what, "gather(%r, gpu_source='sysfs')" % ("<shared>/fixtures/hwloc/" + name), args.runs, median, best))

    facts = gather("/", gpu_source="sysfs")
    median, best = timed(lambda: gather("/", gpu_source="sysfs"), args.runs)
    rows.append(("gather() on this machine's /sys, %d PUs" % facts["cpus"]["logical"], "gather('/', gpu_source='sysfs')", args.runs, median, best))

    for argv in (["lscpu", "-J"], ["numactl", "-H"]):
        if shutil.which(argv[0]) is None:
            rows.append(("%s (not installed)" % argv[0], " ".join(argv), 0, float("nan"), float("nan")))
            continue
        median, best = timed(lambda argv=argv: run_quiet(argv), args.runs)
        rows.append(("%s on this machine (new process each)" % argv[0], " ".join(argv), args.runs, median, best))

    env = dict(os.environ, ANSIBLE_CONFIG=os.path.join(REPO, "ansible.cfg"))
    ansible = [os.path.join(REPO, ".venv", "bin", "ansible"), "localhost", "-m", "gpusmith.numa_gate.topology_facts",
               "-e", "ansible_python_interpreter=%s" % os.path.join(REPO, ".venv", "bin", "python")]
    median, best = timed(lambda: run_quiet(ansible, env=env), args.ansible_runs)
    # Shown relative to the checkout (run from there), not with this machine's absolute paths.
    shown = "ANSIBLE_CONFIG=ansible.cfg %s" % " ".join(
        [".venv/bin/ansible"] + ansible[1:-1] + ["ansible_python_interpreter=$PWD/.venv/bin/python"])
    rows.append(("the module through Ansible (ad-hoc, local connection)", shown, args.ansible_runs, median, best))

    print("Machine: %s, %d CPUs online, Python %s, %s" % (cpu_model(), os.cpu_count(), platform.python_version(), time.strftime("%Y-%m-%d")))
    print("Command: %s" % " ".join([os.path.relpath(sys.executable, REPO), os.path.relpath(os.path.abspath(__file__), REPO)] + sys.argv[1:]))
    print()
    print("| what | command | runs | median ms | min ms |")
    print("|---|---|---|---|---|")
    for what, command, runs, median, best in rows:
        print("| %s | `%s` | %d | %.1f | %.1f |" % (what, command, runs, median, best))


if __name__ == "__main__":
    main()
