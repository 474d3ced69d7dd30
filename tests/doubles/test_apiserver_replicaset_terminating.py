# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The double's ReplicaSet controller replaces a pod as soon as it stops being active (IsPodActive:
terminating, Succeeded or Failed), not only once it is gone, driven by the real kubectl."""

import subprocess
import time

import pytest

from apiserver.server import ApiServerDouble
from conftest import KUBECTL


@pytest.fixture(name="cluster")
def fixture_cluster(tmp_path):
    """A double with the controllers, two nodes, a one-replica ReplicaSet whose pod has a 5 s grace period; and kubectl."""
    double = ApiServerDouble(controllers=True).start()
    kubeconfig = double.write_kubeconfig(tmp_path / "kubeconfig")
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path / "home"), "KUBECONFIG": kubeconfig}

    def kubectl(*args):
        return subprocess.run([KUBECTL] + list(args), env=env, capture_output=True, text=True, timeout=60, check=False)

    double.add_node("node-1")
    double.add_node("node-2")
    double.add_replicaset("web", {"app": "web"}, replicas=1)
    double.add_pod("web-a", "node-1", owner_kind="ReplicaSet", owner_name="web", labels={"app": "web"}, grace=5)
    try:
        yield double, kubectl
    finally:
        double.stop()


def _replacements(api):
    return [name for name in api.pod_names() if name.startswith("default/web-") and name != "default/web-a"]


def _wait_for(check, seconds=4.0):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        found = check()
        if found:
            return found
        time.sleep(0.05)
    return check()


def _revision(api, event_type, name):
    return [rv for rv, resource, kind, obj in api.store.events if resource == "pods" and kind == event_type and obj["metadata"]["name"] == name]


def test_apiserver_replicaset_replaces_a_terminating_pod_before_it_is_gone(cluster):
    api, kubectl = cluster
    result = kubectl("delete", "pod", "web-a", "--wait=false")
    assert (result.returncode, result.stdout, result.stderr) == (0, 'pod "web-a" deleted from default namespace\n', "")
    [new] = _wait_for(lambda: _replacements(api))
    old = api.pod("web-a")
    assert old is not None and old["metadata"]["deletionTimestamp"] and old["metadata"]["deletionGracePeriodSeconds"] == 5
    replacement = api.pod(new.split("/", 1)[1])
    assert replacement["metadata"]["ownerReferences"][0]["name"] == "web" and replacement["spec"]["nodeName"] == "node-2"
    got = kubectl("get", "replicaset", "web", "-o", "jsonpath={.status.replicas}")
    assert (got.returncode, got.stdout, got.stderr) == (0, "1", "")
    # Once the old pod is gone, still one replacement: the count of active pods was already met.
    assert _wait_for(lambda: api.pod("web-a") is None, seconds=8)
    assert _replacements(api) == [new]


def test_apiserver_replicaset_replacement_during_a_drain_comes_before_the_eviction_completes(cluster):
    api, kubectl = cluster
    result = kubectl("drain", "node-1", "--timeout=30s")
    assert result.returncode == 0, result.stderr
    [new] = _replacements(api)
    name = new.split("/", 1)[1]
    # The replacement was created (ADDED) while the evicted pod was terminating: after its deletionTimestamp was set,
    # before it was removed.
    [terminating] = [rv for rv, resource, kind, obj in api.store.events
                     if resource == "pods" and kind == "MODIFIED" and obj["metadata"]["name"] == "web-a" and obj["metadata"].get("deletionTimestamp")]
    [added] = _revision(api, "ADDED", name)
    [gone] = _revision(api, "DELETED", "web-a")
    assert terminating < added < gone
    assert api.pod(name)["spec"]["nodeName"] == "node-2"


def test_apiserver_replicaset_replaces_a_failed_pod(cluster):
    api, dummy = cluster
    pod = api.pod("web-a")
    pod["status"]["phase"] = "Failed"
    api.store.update("pods", pod, check_version=False)
    [new] = _wait_for(lambda: _replacements(api))
    assert api.pod("web-a")["status"]["phase"] == "Failed"
    assert api.pod(new.split("/", 1)[1])["status"]["phase"] == "Running"
