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
- API round trips: the requests the API server double's log (``audit.jsonl`` in molecule's ephemeral folder) took
  during the run, less the kubelet stand-ins' own (node registration, ``/status`` heartbeats), per node the total over
  both nodes divided by two (serial 1, the nodes alike);
- module runs on the node (the ``podman exec`` calls that run an ``AnsiballZ_`` module) and every
  ``podman exec`` call into that node's container, counted and timed by a ``podman`` shim first on
  PATH; "podman plumbing" is the time in the calls around the module runs (``echo ~``, the temporary
  folder's ``mkdir``, ``chmod`` and ``rm``, and ``mount``): the podman connection has no pipelining,
  so it pays four of them per module run, which a connection with pipelining (SSH) does not.

With ``--connection ssh`` the same three playbooks run over SSH, the way fleets connect: a throw-away
key in a temporary folder goes into each node's ``/root/.ssh/authorized_keys`` (``podman exec``), each
node's sshd (the image has openssh-server, not started at boot) listens on a loopback port of its own
(an ``sshd_config.d`` drop-in: ``ListenAddress 127.0.0.1``, the ``Port`` the bench's inventory gives
the node as ``ansible_port``; the nodes share the host network), and a second inventory sets
``ansible_connection=ssh``, ``ansible_host=127.0.0.1``, ``ansible_port``, ``ansible_user=root``, the
key, ``StrictHostKeyChecking=no`` with a temporary known_hosts, ``ANSIBLE_PIPELINING=True`` and
Ansible's default ssh arguments (``ControlMaster=auto``, ``ControlPersist=60s``). Module runs on the
node are then counted by the node's own sshd: at ``LogLevel DEBUG1`` it logs one ``req exec`` line
per command a client runs, and with pipelining every module run is one such command (nothing else
is run: no temporary folder); the ``podman`` shim stays on PATH and must see no ``podman exec``.
``--connection both`` (the default) runs podman first, then SSH, on the same nodes.

``--without VAR=VALUE`` (repeatable) runs the three playbooks a second time on each connection, on the same nodes, with those
extra vars too, its rows labelled "without": the same run without the steps they turn off (for example
``--without kubelet_transition_lock=false --without kubelet_transition_dry_run=false``), so that a step's cost is read
side by side on the same machine at the same moment.

Prints a Markdown table for docs/benchmarks.md, per node (counts as t1 / t2). Usage, from the checkout (``make bench-transition``
does the same after building the node image):
  .venv/bin/python scripts/bench_transition.py [--connection podman|ssh|both] [-e VAR=VALUE]... [--without VAR=VALUE]...

Paths come from this script's own location: the checkout is its parent folder, the tools are the
checkout's ``.venv/bin`` (put first on PATH for molecule and ansible-playbook), and the fixtures
folder the scenario reads is ``NUMA_GATE_SHARED`` when set (the Makefile exports it), else
``../shared`` beside the checkout.
"""

from __future__ import annotations

import argparse
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
# Each node's sshd on a loopback port of its own (beside the kubelet stand-in's 11250 and 12250).
SSH_PORTS = {"numa-gate-t1": 11022, "numa-gate-t2": 12022}
SSHD_DROPIN = "/etc/ssh/sshd_config.d/50-numa-gate-bench.conf"
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


def podman_out(*args, stdin=None):
    return subprocess.run([shutil.which("podman")] + list(args), input=stdin, capture_output=True, text=True, check=True).stdout


def ssh_setup(work):
    """A throw-away key, each node's sshd on its own loopback port, and the inventory that connects over SSH; its path."""
    key = os.path.join(work, "id_ed25519")
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "numa-gate-bench", "-f", key], check=True)
    with open(key + ".pub", encoding="utf-8") as stream:
        public = stream.read()
    hosts = {}
    for node in NODES:
        port = SSH_PORTS[node]
        podman_out("exec", "-i", node, "sh", "-c", "umask 077 && mkdir -p /root/.ssh && cat > /root/.ssh/authorized_keys", stdin=public)
        dropin = "ListenAddress 127.0.0.1\nPort %d\nPermitRootLogin prohibit-password\nLogLevel DEBUG1\n" % port
        podman_out("exec", "-i", node, "sh", "-c", "cat > %s" % SSHD_DROPIN, stdin=dropin)
        podman_out("exec", node, "systemctl", "restart", "ssh")
        hosts[node] = {"ansible_connection": "ssh", "ansible_host": "127.0.0.1", "ansible_port": port, "ansible_user": "root",
                       "ansible_ssh_private_key_file": key,
                       "ansible_ssh_common_args": "-o StrictHostKeyChecking=no -o UserKnownHostsFile=%s" % os.path.join(work, "known_hosts")}
    inventory = os.path.join(work, "ssh.yml")
    with open(inventory, "w", encoding="utf-8") as stream:
        json.dump({"all": {"hosts": hosts}}, stream, indent=2)  # JSON is YAML
    return inventory


def ssh_teardown(work):
    """Close the ControlPersist masters (their sockets are in the temporary folder) and stop the nodes' sshd."""
    for socket in glob.glob(os.path.join(work, "cp", "*")):
        subprocess.run(["ssh", "-o", "ControlPath=" + socket, "-O", "exit", "bench"], capture_output=True, check=False)
    for node in NODES:
        subprocess.run([shutil.which("podman"), "exec", node, "sh", "-c", "systemctl stop ssh; rm -f %s" % SSHD_DROPIN],
                       capture_output=True, check=False)


def sshd_execs(node):
    """How many commands clients have run through the node's sshd so far (its log's ``req exec`` lines, LogLevel DEBUG1)."""
    log = podman_out("exec", node, "journalctl", "--unit", "ssh", "--no-pager", "--output", "cat")
    return sum(1 for line in log.splitlines() if "req exec" in line)


def api_lines(eph):
    """The API server double's request log lines so far."""
    try:
        with open(os.path.join(eph, "audit.jsonl"), encoding="utf-8") as stream:
            return stream.read().splitlines()
    except FileNotFoundError:
        return []


def api_round_trips(lines):
    """The requests among ``lines`` that the playbook made: not a kubelet stand-in's registration or its /status heartbeats."""
    count = 0
    for line in lines:
        request = json.loads(line)
        uri = request.get("requestURI", "").split("?")[0]
        if (request.get("method"), uri) == ("POST", "/api/v1/nodes") or (request.get("method") == "PATCH" and uri.endswith("/status")):
            continue
        count += 1
    return count


def run(eph, shim_dir, playbook, ssh_inventory=None, extra_vars=()):
    log = os.path.join(shim_dir, "podman.log")
    open(log, "w", encoding="utf-8").close()
    env = tool_env(ANSIBLE_CONFIG=os.path.join(REPO, "ansible.cfg"), ANSIBLE_PIPELINING="True", MOLECULE_EPHEMERAL_DIRECTORY=eph,
                   ANSIBLE_FORCE_COLOR="0", ANSIBLE_SSH_CONTROL_PATH_DIR=os.path.join(shim_dir, "cp"))
    env["PATH"] = shim_dir + os.pathsep + env["PATH"]
    env["ANSIBLE_STDOUT_CALLBACK"] = "ansible.posix.json"
    inventories = ["-i", os.path.join(eph, "inventory")] + (["-i", ssh_inventory] if ssh_inventory else [])
    before = {node: sshd_execs(node) for node in NODES} if ssh_inventory else {}
    api_before = len(api_lines(eph))
    cpu, start = children_cpu(), time.monotonic()
    done = subprocess.run([os.path.join(BIN, "ansible-playbook")] + inventories + [os.path.join(REPO, "playbooks", playbook), "-e", "numa_gate_hosts=all"]
                          + [arg for value in extra_vars for arg in ("-e", value)],
                          cwd=REPO, env=env, capture_output=True, text=True, check=False)
    wall, cpu = time.monotonic() - start, children_cpu() - cpu
    api = api_round_trips(api_lines(eph)[api_before:]) / len(NODES)
    if done.returncode != 0:
        sys.exit("%s failed (rc %d):\n%s" % (playbook, done.returncode, done.stdout[-4000:]))
    report = json.loads(done.stdout[0 if done.stdout.startswith("{") else done.stdout.index("\n{") + 1:])
    waits, calls = waits_of(report), podman_calls(log)
    rows = {}
    for node in NODES:
        mine = [(seconds, words) for seconds, words in calls if node in words[:2] or (words[:1] == ["exec"] and node in words)]
        execs = [(seconds, words) for seconds, words in mine if words[:1] == ["exec"]]
        modules = [seconds for seconds, words in execs if any("python" in word for word in words) and any("AnsiballZ_" in word for word in words)]
        if ssh_inventory:
            if execs:
                sys.exit("%s over SSH still ran %d podman exec calls into %s: the SSH inventory did not take" % (playbook, len(execs), node))
            runs = sshd_execs(node) - before[node]
        else:
            runs = len(modules)
        rows[node] = {"tasks": report["stats"].get(node, {}).get("ok", 0), "execs": len(execs), "modules": runs,
                      "plumbing": sum(seconds for seconds, _words in mine) - sum(modules), "waits": waits[node], "api": api}
    return wall, cpu, rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--connection", choices=("podman", "ssh", "both"), default="both",
                        help="how the playbooks reach the nodes: podman exec, SSH with pipelining and ControlPersist, or both (default)")
    parser.add_argument("-e", "--extra-vars", action="append", default=[],
                        help="extra vars for every playbook run, as ansible-playbook takes them (for example kubelet_transition_lock=false)")
    parser.add_argument("--without", action="append", default=[],
                        help="extra vars for a second pass of the three playbooks, labelled 'without' (the steps they turn off)")
    parsed = parser.parse_args()
    chosen = parsed.connection
    connections = ("podman", "ssh") if chosen == "both" else (chosen,)
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
    lines = ["| connection | run | wall (s) | controller CPU (s) | waits (s) | overhead (s) | of which podman plumbing (s) | tasks "
             "| module runs on the node | API round trips | `podman exec` calls |", "|---|---|---|---|---|---|---|---|---|---|---|"]
    passes = [("", parsed.extra_vars)] + ([(" without", parsed.extra_vars + parsed.without)] if parsed.without else [])
    try:
        for connection in connections:
            ssh_inventory = ssh_setup(shim_dir) if connection == "ssh" else None
            for suffix, extra_vars in passes:
                for label, playbook in (("enable", "enable.yml"), ("enable again (converged)", "enable.yml"), ("rollback", "rollback.yml")):
                    wall, cpu, rows = run(eph, shim_dir, playbook, ssh_inventory, extra_vars)
                    waits = sum(r["waits"] for r in rows.values()) / len(NODES)
                    plumbing = sum(r["plumbing"] for r in rows.values()) / len(NODES)
                    lines.append("| %s | %s | %.1f | %.1f | %.1f | %.1f | %.1f | %s | %s | %.0f | %s |" % (
                        connection, label + suffix, wall / len(NODES), cpu / len(NODES), waits, wall / len(NODES) - waits, plumbing,
                        " / ".join(str(rows[n]["tasks"]) for n in NODES), " / ".join(str(rows[n]["modules"]) for n in NODES),
                        rows[NODES[0]]["api"], " / ".join(str(rows[n]["execs"]) for n in NODES)))
                    print(lines[-1], flush=True)
    finally:
        ssh_teardown(shim_dir)
        subprocess.run([os.path.join(BIN, "molecule"), "cleanup", "-s", "transition"], cwd=REPO, env=tool_env(), check=False,
                       stdout=subprocess.DEVNULL)
        molecule("destroy")
        shutil.rmtree(shim_dir, ignore_errors=True)
    print("\n".join(lines))


if __name__ == "__main__":
    main()
