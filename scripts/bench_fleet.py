# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Time playbooks/plan.yml over a fleet of snapshot nodes: wall time and CPU-seconds.

For each fleet size, scripts/fleet_inventory.py writes an inventory of that many snapshot
nodes (local connection, temporary kubelet layouts), then ansible-playbook runs plan.yml over
it with ``-f FORKS``. CPU is the user + system time of the whole ansible-playbook process tree
(resource.getrusage(RUSAGE_CHILDREN) after it exits: the controller, its forks, every module's
Python), so it counts what a busy machine would otherwise hide behind wall time.

Prints a Markdown table for docs/benchmarks.md, with the node's round trips (module runs per node,
counted in one separate, untimed 1-node run that keeps its AnsiballZ files).
Usage: .venv/bin/python scripts/bench_fleet.py [--sizes 1,10,40] [--forks 10] [--runs 1]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time

import fleet_inventory

REPO = fleet_inventory.REPO
RECAP = re.compile(r"^(\S+)\s+:\s+ok=(\d+)\s+changed=(\d+)\s+unreachable=(\d+)\s+failed=(\d+)\s+skipped=(\d+)", re.M)


def children_cpu():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def playbook_run(inventory, forks, playbook, cwd, extra_env=None):
    """Run ansible-playbook once: (completed process, wall s, CPU s of its process tree)."""
    env = dict(os.environ, ANSIBLE_CONFIG=os.path.join(REPO, "ansible.cfg"), **(extra_env or {}))
    command = [os.path.join(os.path.dirname(sys.executable), "ansible-playbook"),
               "-i", inventory, "-f", str(forks), os.path.join(REPO, playbook)]
    before = children_cpu()
    start = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, check=False)
    return done, time.perf_counter() - start, children_cpu() - before


def run_once(nodes, forks, playbook, python, keep=False):
    """One plan.yml run over ``nodes`` hosts: (wall s, CPU s, recap of the first host)."""
    work = tempfile.mkdtemp(prefix="numa-gate-fleet-")
    try:
        inventory = os.path.join(work, "inventory.json")
        with open(inventory, "w", encoding="utf-8") as handle:
            json.dump(fleet_inventory.inventory(nodes, work, python), handle)
        done, wall, cpu = playbook_run(inventory, forks, playbook, work)
        recaps = RECAP.findall(done.stdout)
        if done.returncode != 0 or len(recaps) != nodes or any(int(r[4]) or int(r[3]) for r in recaps):
            sys.stderr.write(done.stdout + done.stderr[-3000:])
            raise SystemExit("plan.yml failed over %d nodes (rc %d)" % (nodes, done.returncode))
        first = recaps[0]
        return wall, cpu, "ok=%s changed=%s skipped=%s" % (first[1], first[2], first[5])
    finally:
        if keep:
            print("kept %s" % work, file=sys.stderr)
        else:
            shutil.rmtree(work, ignore_errors=True)


def node_module_runs(playbook, python):
    """The modules one node runs (its round trips), from a 1-node run that keeps its AnsiballZ files.

    A separate, untimed run: ANSIBLE_KEEP_REMOTE_FILES leaves one ansible-tmp-* folder per module run
    under a private ANSIBLE_REMOTE_TMP, named by the AnsiballZ_<module>.py inside.
    """
    work = tempfile.mkdtemp(prefix="numa-gate-fleet-count-")
    try:
        inventory = os.path.join(work, "inventory.json")
        with open(inventory, "w", encoding="utf-8") as handle:
            json.dump(fleet_inventory.inventory(1, work, python), handle)
        remote = os.path.join(work, "remote-tmp")
        done, _wall, _cpu = playbook_run(inventory, 1, playbook, work, {"ANSIBLE_KEEP_REMOTE_FILES": "1", "ANSIBLE_REMOTE_TMP": remote})
        if done.returncode != 0:
            sys.stderr.write(done.stdout + done.stderr[-3000:])
            raise SystemExit("plan.yml failed over 1 node (rc %d)" % done.returncode)
        names = []
        for folder in sorted(os.listdir(remote), key=lambda name: os.path.getmtime(os.path.join(remote, name))):
            names.extend(name[len("AnsiballZ_"):-len(".py")] for name in os.listdir(os.path.join(remote, folder))
                         if name.startswith("AnsiballZ_") and name.endswith(".py"))
        return names
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1,10,40")
    parser.add_argument("--forks", type=int, default=10)
    parser.add_argument("--runs", type=int, default=1, help="runs per size; the one with the least CPU is shown")
    parser.add_argument("--playbook", default="playbooks/plan.yml")
    parser.add_argument("--keep", action="store_true", help="keep the work folders (layouts, artifacts)")
    parser.add_argument("--python", help="the nodes' Python (default: as scripts/fleet_inventory.py chooses)")
    args = parser.parse_args()
    python = args.python or fleet_inventory.node_python()
    print("nodes' Python: %s; ANSIBLE_PIPELINING=%s" % (python, os.environ.get("ANSIBLE_PIPELINING", "(default)")))
    runs = node_module_runs(args.playbook, python)
    print("module runs (round trips) per node: %d (%s)" % (len(runs), ", ".join(runs)))
    print()
    print("| nodes | forks | wall s | CPU s | CPU s per node | round trips per node | tasks per host |")
    print("|---|---|---|---|---|---|---|")
    for nodes in (int(size) for size in args.sizes.split(",")):
        best = min((run_once(nodes, args.forks, args.playbook, python, args.keep) for _run in range(args.runs)), key=lambda r: r[1])
        wall, cpu, recap = best
        print("| %d | %d | %.1f | %.1f | %.2f | %d | %s |" % (nodes, args.forks, wall, cpu, cpu / nodes, len(runs), recap), flush=True)


if __name__ == "__main__":
    main()
