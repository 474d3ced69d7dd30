# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Time the reservation planner and the kubelet-rule validation on real snapshots.

The planner runs on the controller once per node; its cost is what a play over a
pool adds per host. Each plan includes one full validation of the planned
settings by the same rules the kubelet_config module checks before it writes,
so validation is also timed alone on the planned settings.

Prints a Markdown table for docs/benchmarks.md.
Usage: .venv/bin/python scripts/bench_plan.py [--runs N]
"""

from __future__ import annotations

import argparse
import os

from bench_common import SHARED, timed  # noqa: E402 pylint: disable=wrong-import-position

# pylint: disable=wrong-import-position
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts import gather as _gather  # noqa: E402
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts import schema as _schema  # noqa: E402
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kubelet.rules import validate as _validate
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._plan import plan as _plan  # noqa: E402

CASES = (
    ("256ia64-64n2s2c (256 PUs, 64 NUMA nodes)", os.path.join(SHARED, "fixtures/hwloc/256ia64-64n2s2c")),
    ("128arm-2pa2n8cluster4co (128 PUs, 4 NUMA nodes)", os.path.join(SHARED, "fixtures/hwloc/128arm-2pa2n8cluster4co")),
    ("real/h200-vm (16 PUs, 1 NUMA node, 1 GPU)", os.path.join(SHARED, "fixtures/real/h200-vm")),
)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=50)
    args = parser.parse_args()
    print("| what | snapshot | runs | median ms | min ms |")
    print("|---|---|---|---|---|")
    for label, root in CASES:
        facts = _gather.gather(root, gpu_source="sysfs")
        policy = {"reserved_cpus": 4, "strategy": "device-aware", "system_reserved": {"memory": "1Gi"}}
        if len(facts["numa_nodes"]) > 8:
            policy["kubelet_settings"] = {"topologyManagerPolicyOptions": {"max-allowable-numa-nodes": str(len(facts["numa_nodes"]))}}
        plan = _plan.reservation_plan(facts, policy)
        node = _schema.kubelet_node(facts)
        median, low = timed(lambda: _plan.reservation_plan(facts, policy), args.runs)
        print("| reservation_plan (includes one validation) | %s | %d | %.2f | %.2f |" % (label, args.runs, median, low))
        median, low = timed(lambda: _validate.validate(plan["kubelet_settings"], node), args.runs)
        print("| validate the planned settings | %s | %d | %.2f | %.2f |" % (label, args.runs, median, low))


if __name__ == "__main__":
    main()
