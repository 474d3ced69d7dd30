# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The README's example commands as a newcomer runs them: inventories/example reads without a warning, the rollout
settings come as extra vars from inventories/rollout.yml, and the README states what a real node and cluster need.
"""

from __future__ import annotations

import json
import os
import subprocess

from ansible_collections.gpusmith.numa_gate.tests.unit import ansible_run

EXAMPLE = os.path.join(ansible_run.REPO, "inventories", "example")
ROLLOUT = os.path.join(ansible_run.REPO, "inventories", "rollout.yml")


def _run(tmp_path, *argv):
    env = ansible_run.environment(tmp_path)
    return subprocess.run([os.path.join(ansible_run.BIN, argv[0])] + list(argv[1:]), env=env, capture_output=True, text=True,
                          timeout=120, check=False, cwd=ansible_run.REPO)


def test_the_example_inventory_reads_without_a_warning(tmp_path):
    done = _run(tmp_path, "ansible-inventory", "-i", EXAMPLE, "--list")
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    listed = json.loads(done.stdout)
    assert listed["gpu_canary"]["hosts"] == ["gpu-node-01.example.com", "gpu-node-02.example.com"]
    assert sorted(listed["all"]["children"]) == ["gpu_canary", "ungrouped"]
    assert listed["_meta"]["hostvars"]["gpu-node-01.example.com"]["ansible_become"] is True


def test_the_rollout_settings_are_extra_vars_outside_the_inventory(tmp_path):
    assert not os.path.exists(os.path.join(EXAMPLE, "rollout.yml"))
    done = _run(tmp_path, "ansible", "-i", EXAMPLE, "localhost", "-m", "ansible.builtin.debug", "-a",
                "msg={{ [numa_gate_hosts, numa_gate_serial, numa_gate_max_fail_percentage] }}", "-e", "@" + ROLLOUT)
    assert done.returncode == 0, done.stdout + done.stderr
    result = json.loads(done.stdout)
    assert result["plays"][0]["tasks"][0]["hosts"]["localhost"]["msg"] == ["gpu_canary", [1, 2, "25%"], 0]
    assert "WARNING" not in done.stderr


def test_the_readme_states_what_a_real_node_and_cluster_need():
    with open(os.path.join(ansible_run.REPO, "README.md"), encoding="utf-8") as handle:
        readme = handle.read()
    section = readme[readme.index("## What a real node and cluster need"):readme.index("## Installation")]
    for needed in ("**Root on the nodes.**", "`ansible_become: true`", "**`--config-dir` for drop-in mode.**", "`mode: main`",
                   "`/etc/kubernetes/kubelet-config.yaml`", "**Node names.**", "`numa_gate_node_name`", "**The canary pool label.**",
                   "`numa_gate_pool_selector`", "`canary_namespace`", "`canary_image`", "**The record.**",
                   "`-e numa_gate_acceptance_record=true`"):
        assert needed in section, needed
    assert "installs\nChromium (the browser stage), Prometheus (the prometheus stage) and podman" in readme
    assert "@inventories/example/rollout.yml" not in readme
