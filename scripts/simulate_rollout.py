# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A 1,000-node rollout of enable.yml, simulated from the per-node figures `make bench-transition` measures.

Nothing here runs Ansible: it is arithmetic over the measured per-node numbers, so the assumptions
are all in this file and each printed row says what it used.

Per node (one enable, from docs/benchmarks.md): ``overhead_s`` (wall time that is the collection's
own work: tasks, module runs), ``controller_cpu_s`` (CPU-seconds on the controller), ``round_trips``
(module runs on the node), and the waits that are not work: the drain and the kubelet's restart
and stable Ready window. The waits measured on the test nodes are seconds; a GPU node's drain is
bound by its pods' grace periods, so ``--drain-s`` sets what to assume.

How a batch runs (Ansible's linear strategy, which the playbooks use): every task runs on all of the
batch's hosts, ``forks`` at a time, before the next task starts. A batch of ``b`` hosts therefore
takes ``ceil(b / forks)`` rounds of one node's path (overhead plus waits), unless the controller's
cores cannot keep up: its CPU work is ``b * controller_cpu_s`` over ``cores``, while the waits (a
drain, a restart: tasks that wait on the API and use next to no CPU) overlap across the round's
hosts. The batch takes ``rounds * waits + max(rounds * overhead, b * cpu / cores)``. The controller
saturates when forks exceed ``cores * overhead / cpu``: more forks then add no speed.

Job slices (AWX ``job_slice_count``) split the inventory into independent jobs, each with its own
controller capacity (an execution node each, at best) and its own ``serial`` batches; slices run
side by side, so the rollout takes as long as the slowest slice. ``max_fail_percentage`` and a
canary-first order hold only inside a slice.

Usage: scripts/simulate_rollout.py [--nodes 1000] [--overhead-s S] [--cpu-s S] [--round-trips N]
[--drain-s S] [--restart-s S] [--cores N] [--markdown]
"""

from __future__ import annotations

import argparse
import math


def batches(nodes, serial):
    """Ansible's ``serial`` list: numbers and percentages, the last one repeated until no host is left."""
    sizes = []
    left = nodes
    index = 0
    while left > 0:
        item = serial[min(index, len(serial) - 1)]
        size = int(nodes * float(item[:-1]) / 100) if isinstance(item, str) else int(item)
        size = max(1, min(size, left))
        sizes.append(size)
        left -= size
        index += 1
    return sizes


def batch_seconds(size, forks, cores, per_node):
    """Wall seconds for one batch of ``size`` hosts (see the module docstring)."""
    rounds = math.ceil(size / forks)
    work = rounds * per_node["overhead_s"]
    cpu = size * per_node["controller_cpu_s"] / cores
    return rounds * per_node["waits_s"] + max(work, cpu), cpu > work


def rollout(nodes, serial, forks, cores, slices, per_node):
    """The rollout's wall time, controller CPU, node round trips, and whether the controller was the bound."""
    slice_nodes = [nodes // slices + (1 if i < nodes % slices else 0) for i in range(slices)]
    walls = []
    saturated = False
    for count in slice_nodes:
        total = 0.0
        for size in batches(count, serial):
            seconds, bound = batch_seconds(size, min(forks, size), cores, per_node)
            total += seconds
            saturated = saturated or bound
        walls.append(total)
    return {
        "wall_h": max(walls) / 3600.0,
        "cpu_h": nodes * per_node["controller_cpu_s"] / 3600.0,
        "round_trips": nodes * per_node["round_trips"],
        "controller_bound": saturated,
        "fork_limit": cores * per_node["overhead_s"] / per_node["controller_cpu_s"],
    }


SCENARIOS = (
    # name, serial, forks, cores per slice, slices
    ("one node at a time (the default)", [1], 5, 2, 1),
    ("canary 1, then 5, then 5% batches", [1, 5, "5%"], 50, 4, 1),
    ("canary 1, then 5, then 5% batches", [1, 5, "5%"], 50, 16, 1),
    ("canary 1, then 5, then 10% batches", [1, 5, "10%"], 100, 16, 1),
    ("4 job slices, each canary 1, then 5%", [1, "5%"], 50, 4, 4),
)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=1000)
    parser.add_argument("--overhead-s", type=float, required=True, help="the collection's own wall seconds per node (bench-transition)")
    parser.add_argument("--cpu-s", type=float, required=True, help="controller CPU-seconds per node (bench-transition)")
    parser.add_argument("--round-trips", type=int, required=True, help="module runs on the node per enable (bench-transition)")
    parser.add_argument("--drain-s", type=float, default=120.0, help="drain wait to assume per node (grace periods of GPU pods)")
    parser.add_argument("--restart-s", type=float, default=30.0, help="kubelet restart and the stable Ready window per node")
    args = parser.parse_args(argv)
    per_node = {"overhead_s": args.overhead_s, "controller_cpu_s": args.cpu_s, "round_trips": args.round_trips,
                "waits_s": args.drain_s + args.restart_s}
    print("Per node: %.1f s overhead, %.1f controller CPU-s, %d node round trips, %.0f s of waits (drain %.0f s, restart %.0f s); %d nodes."
          % (args.overhead_s, args.cpu_s, args.round_trips, per_node["waits_s"], args.drain_s, args.restart_s, args.nodes))
    print()
    print("| rollout | serial | forks | controller cores (per slice) | slices | wall (h) | controller CPU (h) | node round trips "
          "| controller-bound | forks before the controller saturates |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for name, serial, forks, cores, slices in SCENARIOS:
        result = rollout(args.nodes, serial, forks, cores, slices, per_node)
        print("| %s | `%s` | %d | %d | %d | %.1f | %.2f | %d | %s | %.0f |" % (
            name, serial, forks, cores, slices, result["wall_h"], result["cpu_h"], result["round_trips"],
            "yes" if result["controller_bound"] else "no", result["fork_limit"]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
