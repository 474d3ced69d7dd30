# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Measure enable.yml, a second enable.yml (a converged pool) and rollback.yml on the transition scenario's nodes.

Brings up extensions/molecule/transition's two podman nodes (``molecule create`` and ``prepare``:
the kubelet stand-in, the API server double, the workload), runs the three playbooks as an
operator would (``ansible-playbook -i <molecule's inventory>``), then destroys the nodes. Per run
and node it reports:

- wall and controller CPU (user + system of the whole ansible-playbook tree, RUSAGE_CHILDREN),
  per node: the total over both nodes divided by two (serial 1, so the nodes run one after the other);
- tasks run per node (ok + changed in the recap);
- node round trips: ``podman exec`` calls into that node's container, counted by a ``podman``
  shim first on PATH (with pipelining, one per module run on the node);
- the waits, from each node's transition record: drain, kubelet start and verify (the Ready
  and stable window); the collection's own overhead is the wall time less those waits.

Prints a Markdown table for docs/benchmarks.md. Usage, from the checkout (``make bench-transition``
does the same after building the node image):
  .venv/bin/python scripts/bench_transition.py

Paths come from this script's own location: the checkout is its parent folder, the tools are the
checkout's ``.venv/bin`` (put first on PATH for molecule and ansible-playbook), and the fixtures
folder the scenario reads is ``NUMA_GATE_SHARED`` when set (the Makefile exports it), else
``../shared`` beside the checkout.
"""

from __future__ import annotations

import glob
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.join(REPO, ".venv", "bin")
SHARED = os.environ.get("NUMA_GATE_SHARED") or os.path.join(os.path.dirname(REPO), "shared")
NODES = ("numa-gate-t1", "numa-gate-t2")
RECAP = re.compile(r"^(\S+)\s+:\s+ok=(\d+)\s+changed=(\d+)\s+unreachable=(\d+)\s+failed=(\d+)", re.M)
WAITS = ("drain", "start", "verify")
SHIM = """#!/bin/sh
printf '%s\\n' "$*" >> "{log}"
exec {podman} "$@"
"""


def tool_env(**extra):
    """The environment for molecule and ansible-playbook: the checkout's venv first on PATH, the shared folder named."""
    return dict(os.environ, PATH=BIN + os.pathsep + os.environ.get("PATH", ""), NUMA_GATE_SHARED=os.path.abspath(SHARED), **extra)


def molecule(*args):
    subprocess.run([os.path.join(BIN, "molecule")] + list(args) + ["-s", "transition"], cwd=REPO, env=tool_env(), check=True,
                   stdout=subprocess.DEVNULL)


def ephemeral():
    found = sorted(glob.glob(os.path.expanduser("~/.ansible/tmp/molecule.*.transition")), key=os.path.getmtime)
    if not found:
        sys.exit("no molecule ephemeral folder for the transition scenario")
    return found[-1]


def children_cpu():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def records(eph):
    """host -> the transition record's {"id", waits} (None when the node kept no record)."""
    found = {}
    for node in NODES:
        path = os.path.join(eph, "artifacts", node, "transition.json")
        if os.path.exists(path):
            with open(path, encoding="utf-8") as stream:
                record = json.load(stream)
            waits = sum(step["duration_s"] or 0 for step in record["steps"] if step["step"] in WAITS)
            found[node] = {"id": record["transition"], "waits": waits}
    return found


def run(eph, shim_dir, playbook):
    log = os.path.join(shim_dir, "podman.log")
    open(log, "w", encoding="utf-8").close()
    env = tool_env(ANSIBLE_CONFIG=os.path.join(REPO, "ansible.cfg"), ANSIBLE_PIPELINING="True", MOLECULE_EPHEMERAL_DIRECTORY=eph,
                   ANSIBLE_FORCE_COLOR="0")
    env["PATH"] = shim_dir + os.pathsep + env["PATH"]
    before_records, cpu, start = records(eph), children_cpu(), time.monotonic()
    done = subprocess.run([os.path.join(BIN, "ansible-playbook"), "-i", os.path.join(eph, "inventory"),
                           os.path.join(REPO, "playbooks", playbook), "-e", "numa_gate_hosts=all"],
                          cwd=REPO, env=env, capture_output=True, text=True, check=False)
    wall, cpu = time.monotonic() - start, children_cpu() - cpu
    if done.returncode != 0:
        sys.exit("%s failed (rc %d):\n%s" % (playbook, done.returncode, done.stdout[-4000:]))
    with open(log, encoding="utf-8") as stream:
        calls = [line.split() for line in stream]
    tasks = {m.group(1): int(m.group(2)) + int(m.group(3)) for m in RECAP.finditer(done.stdout)}
    after = records(eph)
    rows = {}
    for node in NODES:
        fresh = after.get(node) if after.get(node) != before_records.get(node) else None
        rows[node] = {"tasks": tasks.get(node, 0), "trips": sum(1 for c in calls if c[:1] == ["exec"] and node in c),
                      "waits": fresh["waits"] if fresh else 0.0}
    return wall, cpu, rows


def main():
    podman = shutil.which("podman")
    if not podman:
        sys.exit("podman is needed (scripts/molecule_image.sh installs it)")
    molecule("destroy")
    molecule("create")
    molecule("prepare")
    eph = ephemeral()
    shim_dir = tempfile.mkdtemp(prefix="numa-gate-bench-")
    with open(os.path.join(shim_dir, "podman"), "w", encoding="utf-8") as stream:
        stream.write(SHIM.format(log=os.path.join(shim_dir, "podman.log"), podman=podman))
    os.chmod(os.path.join(shim_dir, "podman"), 0o755)
    lines = ["| run | wall per node (s) | controller CPU per node (s) | waits per node (s) | overhead per node (s) | tasks per node "
             "| node round trips per node |", "|---|---|---|---|---|---|---|"]
    try:
        for label, playbook in (("enable", "enable.yml"), ("enable again (converged)", "enable.yml"), ("rollback", "rollback.yml")):
            wall, cpu, rows = run(eph, shim_dir, playbook)
            waits = sum(r["waits"] for r in rows.values()) / len(NODES)
            lines.append("| %s | %.1f | %.1f | %.1f | %.1f | %s | %s |" % (
                label, wall / len(NODES), cpu / len(NODES), waits, wall / len(NODES) - waits,
                " / ".join(str(rows[n]["tasks"]) for n in NODES), " / ".join(str(rows[n]["trips"]) for n in NODES)))
    finally:
        subprocess.run([os.path.join(BIN, "molecule"), "cleanup", "-s", "transition"], cwd=REPO, env=tool_env(), check=False,
                       stdout=subprocess.DEVNULL)
        molecule("destroy")
        shutil.rmtree(shim_dir, ignore_errors=True)
    print("\n".join(lines))


if __name__ == "__main__":
    main()
