# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Measure enable.yml, a second enable.yml (a converged pool) and rollback.yml on the transition scenario's nodes.

Brings up extensions/molecule/transition's two podman nodes (``molecule create`` and ``prepare``:
the kubelet stand-in, the API server double, the workload), runs the three playbooks as an
operator would (``ansible-playbook -i <molecule's inventory>``), then destroys the nodes. Per run
and node it reports:

- wall and controller CPU (user + system of the whole ansible-playbook tree, RUSAGE_CHILDREN),
  per node: the total over both nodes divided by two (serial 1, so the nodes run one after the other);
- tasks run per node: the recap's ``ok`` (it counts the changed tasks too; the figures before
  issue 17 added ``changed`` to it, counting those twice);
- the waits, from the tasks' own results: the drain's ``waited_s`` (pods going) and the verify's
  ``waited_s`` (Ready and stable for ``kubelet_transition_stable_s``); the collection's own overhead
  is the wall time less those waits;
- module runs on the node (the ``podman exec`` calls that run an ``AnsiballZ_`` module) and every
  ``podman exec`` call into that node's container, counted and timed by a ``podman`` shim first on
  PATH; "podman plumbing" is the time in the calls around the module runs (``echo ~``, the temporary
  folder's ``mkdir``, ``chmod`` and ``rm``, and ``mount``): the podman connection has no pipelining,
  so it pays four of them per module run, which a connection with pipelining (SSH) does not.

Prints a Markdown table for docs/benchmarks.md, per node (counts as t1 / t2). Usage, from the checkout (``make bench-transition``
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
# The tasks that wait, as both the role before issue 17 and after it name them; their results say how long.
WAITS = ("Drain the node", "Wait for the node to be Ready with the target configuration")
SHIM = """#!/bin/sh
start=$(date +%s.%N)
{podman} "$@"
rc=$?
printf '%s %s %s\\n' "$start" "$(date +%s.%N)" "$*" >> "{log}"
exit $rc
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


def waits_of(report):
    """host -> seconds the waiting tasks waited (their results' waited_s), from the json callback's report."""
    found = {node: 0.0 for node in NODES}
    for play in report.get("plays", []):
        for task in play.get("tasks", []):
            if task["task"]["name"].split(" : ")[-1] not in WAITS:  # a role's task is named "<role> : <name>"
                continue
            for host, result in task["hosts"].items():
                if host in found and not result.get("skipped"):
                    found[host] += float(result.get("waited_s") or 0)
    return found


def podman_calls(log):
    """[(seconds, argv words)] of each podman call the shim saw."""
    calls = []
    with open(log, encoding="utf-8") as stream:
        for line in stream:
            start, end, *words = line.split()
            calls.append((float(end) - float(start), words))
    return calls


def run(eph, shim_dir, playbook):
    log = os.path.join(shim_dir, "podman.log")
    open(log, "w", encoding="utf-8").close()
    env = tool_env(ANSIBLE_CONFIG=os.path.join(REPO, "ansible.cfg"), ANSIBLE_PIPELINING="True", MOLECULE_EPHEMERAL_DIRECTORY=eph,
                   ANSIBLE_FORCE_COLOR="0")
    env["PATH"] = shim_dir + os.pathsep + env["PATH"]
    env["ANSIBLE_STDOUT_CALLBACK"] = "ansible.posix.json"
    cpu, start = children_cpu(), time.monotonic()
    done = subprocess.run([os.path.join(BIN, "ansible-playbook"), "-i", os.path.join(eph, "inventory"),
                           os.path.join(REPO, "playbooks", playbook), "-e", "numa_gate_hosts=all"],
                          cwd=REPO, env=env, capture_output=True, text=True, check=False)
    wall, cpu = time.monotonic() - start, children_cpu() - cpu
    if done.returncode != 0:
        sys.exit("%s failed (rc %d):\n%s" % (playbook, done.returncode, done.stdout[-4000:]))
    report = json.loads(done.stdout[0 if done.stdout.startswith("{") else done.stdout.index("\n{") + 1:])
    waits, calls = waits_of(report), podman_calls(log)
    rows = {}
    for node in NODES:
        mine = [(seconds, words) for seconds, words in calls if node in words[:2] or (words[:1] == ["exec"] and node in words)]
        execs = [(seconds, words) for seconds, words in mine if words[:1] == ["exec"]]
        modules = [seconds for seconds, words in execs if any("python" in word for word in words) and any("AnsiballZ_" in word for word in words)]
        rows[node] = {"tasks": report["stats"].get(node, {}).get("ok", 0), "execs": len(execs), "modules": len(modules),
                      "plumbing": sum(seconds for seconds, _words in mine) - sum(modules), "waits": waits[node]}
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
    lines = ["| run | wall (s) | controller CPU (s) | waits (s) | overhead (s) | of which podman plumbing (s) | tasks "
             "| module runs on the node | `podman exec` calls |", "|---|---|---|---|---|---|---|---|---|"]
    try:
        for label, playbook in (("enable", "enable.yml"), ("enable again (converged)", "enable.yml"), ("rollback", "rollback.yml")):
            wall, cpu, rows = run(eph, shim_dir, playbook)
            waits = sum(r["waits"] for r in rows.values()) / len(NODES)
            plumbing = sum(r["plumbing"] for r in rows.values()) / len(NODES)
            lines.append("| %s | %.1f | %.1f | %.1f | %.1f | %.1f | %s | %s | %s |" % (
                label, wall / len(NODES), cpu / len(NODES), waits, wall / len(NODES) - waits, plumbing,
                " / ".join(str(rows[n]["tasks"]) for n in NODES), " / ".join(str(rows[n]["modules"]) for n in NODES),
                " / ".join(str(rows[n]["execs"]) for n in NODES)))
    finally:
        subprocess.run([os.path.join(BIN, "molecule"), "cleanup", "-s", "transition"], cwd=REPO, env=tool_env(), check=False,
                       stdout=subprocess.DEVNULL)
        molecule("destroy")
        shutil.rmtree(shim_dir, ignore_errors=True)
    print("\n".join(lines))


if __name__ == "__main__":
    main()
