# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""playbooks/plan.yml on the 8x MI300X CPX host, through the real ansible-playbook: the plan, its summary and the acceptance
page of the topology (issue 33, item 3).

The host is the KFD dump of shared/fixtures/amd rebuilt as a sysfs tree (tests/unit/plugins/module_utils/_plan/amd_machines.py:
8 MI300X in CPX mode, 4 on each of two CPU nodes of 16 CPUs, 63 partitions) given as topology_root; the kubelet's files lie in a
temporary folder; the host is this machine (ansible_connection=local).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

from ansible_collections.gpusmith.numa_gate.tests.unit import ansible_run
from ansible_collections.gpusmith.numa_gate.tests.unit.plugins.module_utils._facts import amd_trees
from ansible_collections.gpusmith.numa_gate.tests.unit.plugins.module_utils._plan import amd_machines


def test_plan_summary_and_page_of_the_mi300x_cpx_host(tmp_path):
    root = amd_trees.build_host(tmp_path / "host", amd_machines.MI300X_CPX, amd_machines.GPUS, amd_machines.NODES, "0x120000",
                                extra={"current_compute_partition": "CPX\n"})
    inventory = tmp_path / "hosts.yml"
    inventory.write_text(json.dumps({"all": {"hosts": {"mi300x": {"ansible_connection": "local", "ansible_python_interpreter": sys.executable}}}}),
                         encoding="utf-8")
    (tmp_path / "kubelet").mkdir()
    layout = {"path": str(tmp_path / "kubelet" / "config.yaml"), "config_dir": str(tmp_path / "kubelet" / "conf.d"),
              "dropin_name": "50-numa-gate.conf", "kubelet_root_dir": str(tmp_path / "kubelet"), "mode": "dropin"}
    argv = [os.path.join(ansible_run.BIN, "ansible-playbook"), "-i", str(inventory), os.path.join(ansible_run.REPO, "playbooks", "plan.yml"),
            "-e", json.dumps({"topology_root": root, "topology_gpu_source": "sysfs", "numa_gate_kubelet_layout": layout,
                              "numa_gate_artifacts_dir": str(tmp_path / "artifacts"), "kubelet_plan_reserved_cpus": 4,
                              "numa_gate_acceptance_record": True})]
    done = subprocess.run(argv, env=ansible_run.environment(tmp_path), capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    out = tmp_path / "artifacts" / "mi300x"
    planned = json.loads((out / "plan.json").read_text(encoding="utf-8"))
    assert planned["kubelet_settings"]["reservedSystemCPUs"] == "0-1,16-17"
    assert dict((node, entry["gpus"]) for node, entry in planned["allocatable"].items()) == {
        "0": ["0000:05:00.0", "0000:27:00.0", "0000:47:00.0", "0000:65:00.0"], "1": ["0000:85:00.0", "0000:a7:00.0", "0000:c7:00.0", "0000:e5:00.0"]}
    assert planned["reasons"][0] == "strategy device-aware: every NUMA node with CPUs (0, 1) has a GPU or NIC; fell back to spread"
    summary = (out / "summary.md").read_text(encoding="utf-8")
    assert "- Reserved CPUs: `0-1,16-17` (4 whole core(s), strategy `device-aware`)" in summary
    rows = [line for line in summary.splitlines() if line.startswith("| 0 |") or line.startswith("| 1 |")]
    assert [row.split(" | ")[1:3] + [row.split(" | ")[4]] for row in rows] == [
        ["2-15", "14", "0000:05:00.0 0000:27:00.0 0000:47:00.0 0000:65:00.0"], ["18-31", "14", "0000:85:00.0 0000:a7:00.0 0000:c7:00.0 0000:e5:00.0"]]
    page = (out / "acceptance.html").read_text(encoding="utf-8")
    assert (page.count('data-kind="gpu"'), page.count('data-kind="gpu-partition"'), page.count('data-vendor="amd"')) == (8, 63, 8)
    assert "KFD node 2; KFD unique_id 16404946649897475633; device 0x74a1; XGMI hive 15188982192727901047; partition mode compute CPX" in page
