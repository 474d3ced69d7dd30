# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The kube_node action through the real ``ansible`` (an ad-hoc play against the API server double): progress lines while it
drains, the JSON result (in-process: tests/unit/plugins/action/test_kube_node.py)."""

from __future__ import annotations

import json
import os
import subprocess

import pytest

from ansible_collections.gpusmith.numa_gate.tests.unit import ansible_run
from ansible_collections.gpusmith.numa_gate.tests.unit.plugins.action import in_process


@pytest.fixture(name="double")
def fixture_double():
    with in_process.api_double() as started:
        yield started


@pytest.fixture(name="kubeconfig")
def fixture_kubeconfig(double, tmp_path):
    return double.write_kubeconfig(tmp_path / "kubeconfig")


def adhoc(module, args, tmp_path, check=False):
    """Run ``ansible localhost -m <module> -a <args>`` with the json callback: (rc, lines printed before the JSON, the host's result)."""
    env = ansible_run.environment(tmp_path)
    argv = [os.path.join(ansible_run.BIN, "ansible"), "localhost", "-i", "localhost,", "-c", "local", "-m", module, "-a", args,
            "-e", "ansible_python_interpreter=%s" % ansible_run.PYTHON] + (["--check"] if check else [])
    done = subprocess.run(argv, cwd=ansible_run.REPO, env=env, capture_output=True, text=True, timeout=120, check=False)
    start = done.stdout.index("\n{") + 1 if not done.stdout.startswith("{") else 0
    lines, document = done.stdout[:start].splitlines(), json.loads(done.stdout[start:])
    return done.returncode, lines, document["plays"][0]["tasks"][0]["hosts"]["localhost"]


def test_drain_through_ansible_prints_progress_while_it_waits(double, kubeconfig, tmp_path):
    double.add_node("n1")
    double.add_pod("web-1", "n1", owner_kind="ReplicaSet", owner_name="web", labels={"app": "web"}, grace=2)
    double.add_pod("agent-n1", "n1", namespace="kube-system", owner_kind="DaemonSet", owner_name="agent", labels={"app": "agent"})
    rc, lines, result = adhoc("gpusmith.numa_gate.kube_node", "kubeconfig=%s node=n1 state=drained timeout=20 poll=1" % kubeconfig, tmp_path)
    assert rc == 0
    assert lines[:2] == ["drain n1: evicting 1 pod (default/web-1)", "drain n1: 1 pod left (web-1), 0s of 20s"]
    assert "drain n1: 1 pod left (web-1), 1s of 20s" in lines
    assert result["waited_s"] >= 2.0
    assert {k: v for k, v in result.items() if k not in ("waited_s", "_ansible_no_log")} == {
        "action": "gpusmith.numa_gate.kube_node", "changed": True, "node": "n1", "state": "drained",
        "was_unschedulable": False, "cordoned": True, "evicted": ["default/web-1"],
        "skipped_pods": [{"pod": "kube-system/agent-n1", "reason": "DaemonSet-managed"}], "pod_warnings": []}
    assert double.pod_names("n1") == ["kube-system/agent-n1"]


def test_a_pdb_blocked_drain_through_ansible_fails_naming_pod_and_budget(double, kubeconfig, tmp_path):
    double.add_node("n1")
    double.add_pod("db-0", "n1", owner_kind="ReplicaSet", owner_name="db", labels={"app": "db"})
    double.add_pdb("db-pdb", {"app": "db"}, min_available=1)
    rc, lines, result = adhoc("gpusmith.numa_gate.kube_node", "kubeconfig=%s node=n1 state=drained timeout=2 poll=1" % kubeconfig, tmp_path)
    assert rc == 2
    assert lines[:3] == ["drain n1: evicting 1 pod (default/db-0)",
                         "drain n1: 1 pod left (db-0), 0s of 2s; blocked by PDB db-pdb (allows 0 disruptions)",
                         "drain n1: 1 pod left (db-0), 1s of 2s; blocked by PDB db-pdb (allows 0 disruptions)"]
    assert result["failed"] is True
    assert result["msg"] == (
        "drain n1: timed out after 2s (timeout 2s) with 1 pod left: default/db-0 (eviction refused: Cannot evict pod as it would violate "
        "the pod's disruption budget; PodDisruptionBudget db-pdb (minAvailable 1, 0 disruptions allowed, 1 healthy of 1 desired)); "
        "node n1 stays cordoned (this task cordoned it)")
    assert (result["changed"], result["cordoned"], result["was_unschedulable"], result["evicted"], result["pending"]) == (
        True, True, False, [], ["default/db-0"])
    assert double.node("n1")["spec"] == {"unschedulable": True}
