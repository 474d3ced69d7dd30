# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The double's stand-ins for the ReplicaSet controller and the scheduler, and its request log file,
driven by the real kubectl: a Deployment's pods under a PodDisruptionBudget drain off two nodes in turn."""

import json
import random
import subprocess
import time

import pytest

from apiserver import controllers
from apiserver.server import ApiServerDouble
from conftest import KUBECTL


@pytest.fixture(name="cluster")
def fixture_cluster(tmp_path):
    """A double with controllers and a request log file, its kubeconfig, and a kubectl runner."""
    double = ApiServerDouble(controllers=True, audit_log=str(tmp_path / "audit.jsonl"))
    double.start()
    kubeconfig = double.write_kubeconfig(tmp_path / "kubeconfig")
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path / "home"), "KUBECONFIG": kubeconfig}

    def kubectl(*args):
        return subprocess.run([KUBECTL] + list(args), env=env, capture_output=True, text=True, timeout=60, check=False)

    try:
        yield double, kubectl, tmp_path / "audit.jsonl"
    finally:
        double.stop()


def _on(api, node):
    return [name.split("/", 1)[1] for name in api.pod_names(node)]


def test_apiserver_controllers_drain_both_nodes_of_a_budgeted_replicaset(cluster):
    api, kubectl, dummy = cluster
    api.add_node("node-1")
    api.add_node("node-2")
    api.add_replicaset("web", {"app": "web"}, replicas=2)
    api.add_pod("web-a", "node-1", owner_kind="ReplicaSet", owner_name="web", labels={"app": "web"}, grace=0)
    api.add_pod("web-b", "node-2", owner_kind="ReplicaSet", owner_name="web", labels={"app": "web"}, grace=0)
    api.add_pdb("web", {"app": "web"}, min_available=1)
    first = kubectl("drain", "node-1", "--timeout=20s")
    assert first.returncode == 0, first.stderr
    assert _on(api, "node-1") == []
    moved = _on(api, "node-2")
    assert len(moved) == 2 and "web-b" in moved
    [new] = [name for name in moved if name != "web-b"]
    assert new.startswith("web-") and len(new) == len("web-") + 5 and set(new[4:]) <= set(controllers.NAME_ALPHABET)
    pod = api.pod(new)
    assert pod["status"]["phase"] == "Running" and pod["metadata"]["ownerReferences"][0]["name"] == "web"
    assert kubectl("uncordon", "node-1").returncode == 0
    second = kubectl("drain", "node-2", "--timeout=30s")
    assert second.returncode == 0, second.stderr
    assert _on(api, "node-2") == [] and len(_on(api, "node-1")) == 2


def test_apiserver_controllers_leave_a_pod_pending_when_no_node_fits(cluster):
    api, kubectl, dummy = cluster
    api.add_node("node-1")
    api.add_replicaset("web", {"app": "web"}, replicas=1)
    api.add_pod("web-a", "node-1", owner_kind="ReplicaSet", owner_name="web", labels={"app": "web"}, grace=0)
    result = kubectl("drain", "node-1", "--timeout=20s")
    assert result.returncode == 0, result.stderr
    [name] = _on(api, None)
    pod = api.pod(name)
    assert "nodeName" not in pod["spec"]
    assert pod["status"]["phase"] == "Pending"
    assert pod["status"]["conditions"][0]["message"] == "0/1 nodes are available: 1 node(s) were unschedulable or not ready."


def test_apiserver_controllers_only_replace_what_a_replicaset_owns(cluster):
    api, kubectl, dummy = cluster
    api.add_node("node-1")
    api.add_pod("agent-1", "node-1", owner_kind="DaemonSet", owner_name="agent", labels={"app": "agent"}, grace=0)
    api.add_pod("lonely", "node-1", grace=0)
    assert kubectl("delete", "pod", "agent-1", "lonely").returncode == 0
    assert _on(api, None) == []


def test_apiserver_controllers_are_off_by_default(tmp_path):
    with ApiServerDouble() as api:
        api.add_node("node-1")
        api.add_pod("web-a", "node-1", owner_kind="ReplicaSet", owner_name="web", labels={"app": "web"}, grace=0)
        api.store.delete("pods", "default", "web-a")
        assert api.pod_names() == []
        assert not (tmp_path / "audit.jsonl").exists()


def test_apiserver_controllers_pick_the_least_loaded_ready_schedulable_node():
    def node(name, ready="True", unschedulable=False):
        return {"metadata": {"name": name}, "spec": {"unschedulable": True} if unschedulable else {},
                "status": {"conditions": [{"type": "Ready", "status": ready}]}}
    pods = [{"spec": {"nodeName": "b"}}, {"spec": {"nodeName": "b"}}, {"spec": {"nodeName": "c"}}, {"spec": {}}]
    nodes = [node("a", ready="False"), node("b"), node("c"), node("d", unschedulable=True)]
    assert controllers.pick_node(nodes, pods) == "c"
    assert controllers.pick_node(nodes + [node("e")], pods) == "e"
    assert controllers.pick_node([node("a", ready="Unknown"), node("d", unschedulable=True)], pods) is None
    assert controllers.ReplicaSetController(ApiServerDouble().store, rng=random.Random(1)).created == []


def test_apiserver_audit_log_file_has_one_line_per_request(cluster):
    api, kubectl, audit_log = cluster
    api.add_node("node-1")
    assert kubectl("cordon", "node-1").returncode == 0
    lines = [json.loads(line) for line in audit_log.read_text().splitlines()]
    assert [(e["method"], e["requestURI"]) for e in lines] == list(api.requests)
    assert ("PATCH", "/api/v1/nodes/node-1") in [(e["method"], e["requestURI"]) for e in lines]
    assert all(isinstance(e["ts"], float) for e in lines)


def test_apiserver_controllers_place_a_pending_pod_once_a_node_is_uncordoned(cluster):
    api, kubectl, dummy = cluster
    api.add_node("node-1")
    api.add_replicaset("web", {"app": "web"}, replicas=1)
    api.add_pod("web-a", "node-1", owner_kind="ReplicaSet", owner_name="web", labels={"app": "web"}, grace=0)
    assert kubectl("drain", "node-1", "--timeout=20s").returncode == 0
    [name] = _on(api, None)
    assert "nodeName" not in api.pod(name)["spec"]
    assert kubectl("uncordon", "node-1").returncode == 0
    for dummy_try in range(50):
        if api.pod(name)["spec"].get("nodeName"):
            break
        time.sleep(0.1)
    pod = api.pod(name)
    assert pod["spec"]["nodeName"] == "node-1"
    assert pod["status"]["phase"] == "Running"
    assert [c["status"] for c in pod["status"]["conditions"] if c["type"] == "Ready"] == ["True"]
