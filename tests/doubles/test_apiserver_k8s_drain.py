# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""kubernetes.core.k8s_drain and k8s_info (the real modules, run by ``ansible``) against the API server double."""

import json
import os
import subprocess

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ANSIBLE = os.path.join(REPO, ".venv", "bin", "ansible")
PYTHON = os.path.join(REPO, ".venv", "bin", "python")


@pytest.fixture(name="module")
def fixture_module(kubeconfig, tmp_path):
    """Run one kubernetes.core module on localhost: ``module("k8s_drain", {...})`` -> (rc, result dict)."""
    env = dict(os.environ, ANSIBLE_CONFIG=os.path.join(REPO, "ansible.cfg"), ANSIBLE_LOAD_CALLBACK_PLUGINS="1",
               ANSIBLE_STDOUT_CALLBACK="ansible.posix.json", ANSIBLE_LOCAL_TEMP=str(tmp_path / "tmp"),
               ANSIBLE_HOME=str(tmp_path / "ansible"), HOME=str(tmp_path / "home"))

    def run(name, args):
        args = dict(args, kubeconfig=kubeconfig)
        done = subprocess.run([ANSIBLE, "localhost", "-m", "kubernetes.core.%s" % name, "-a", json.dumps(args),
                               "-e", "ansible_python_interpreter=%s" % PYTHON],
                              cwd=REPO, env=env, capture_output=True, text=True, timeout=120, check=False)
        try:
            report = json.loads(done.stdout)
        except ValueError:
            pytest.fail("ansible printed no JSON: rc %s\n%s\n%s" % (done.returncode, done.stdout, done.stderr))
        return done.returncode, report["plays"][0]["tasks"][0]["hosts"]["localhost"]

    return run


def _seed(api):
    api.add_node("node-1")
    api.add_node("node-2")
    api.add_pod("agent-1", "node-1", namespace="kube-system", owner_kind="DaemonSet", owner_name="agent", labels={"app": "agent"})
    api.add_pod("kube-apiserver-node-1", "node-1", namespace="kube-system", mirror=True)
    api.add_pod("web-1", "node-1", owner_kind="ReplicaSet", owner_name="web", labels={"app": "web"}, grace=1, emptydir=True)
    api.add_pod("web-2", "node-2", owner_kind="ReplicaSet", owner_name="web", labels={"app": "web"}, grace=1)


DRAIN_OPTIONS = {"ignore_daemonsets": True, "delete_emptydir_data": True, "wait_timeout": 10, "wait_sleep": 1}


def test_apiserver_k8s_drain_evicts_and_waits(api, module):
    _seed(api)
    rc, result = module("k8s_drain", {"name": "node-1", "state": "drain", "delete_options": DRAIN_OPTIONS})
    assert rc == 0, result
    assert result["changed"] is True
    assert result["result"] == "node node-1 marked unschedulable. 1 Pod(s) deleted from node."
    assert result["warnings"] == ["cannot delete mirror Pods using API server: kube-system/kube-apiserver-node-1.",
                                  "Deleting Pods with local storage: default/web-1.",
                                  "Ignoring DaemonSet-managed Pods: kube-system/agent-1."]
    assert api.pod_names("node-1") == ["kube-system/agent-1", "kube-system/kube-apiserver-node-1"]
    assert api.node("node-1")["spec"]["unschedulable"] is True
    assert ("POST", "/api/v1/namespaces/default/pods/web-1/eviction") in api.requests


def test_apiserver_k8s_drain_blocked_by_a_pdb_fails_with_the_apis_message(api, module):
    _seed(api)
    api.add_pdb("web-pdb", {"app": "web"}, min_available=2)
    rc, result = module("k8s_drain", {"name": "node-1", "state": "drain", "delete_options": DRAIN_OPTIONS})
    assert rc == 2
    assert result["failed"] is True
    assert result["msg"] == "Failed to delete pod default/web-1 due to: Cannot evict pod as it would violate the pod's disruption budget."
    assert api.pod("web-1")["metadata"].get("deletionTimestamp") is None
    # k8s_drain leaves the node cordoned when an eviction fails (KUBELET-FACTS.md, Drain).
    assert api.node("node-1")["spec"]["unschedulable"] is True


def test_apiserver_k8s_drain_uncordon_and_k8s_info(api, module):
    api.add_node("node-1", unschedulable=True)
    rc, result = module("k8s_drain", {"name": "node-1", "state": "uncordon"})
    assert (rc, result["changed"], result["result"]) == (0, True, "node node-1 marked schedulable.")
    rc, result = module("k8s_info", {"kind": "Node", "name": "node-1"})
    assert rc == 0, result
    [node] = result["resources"]
    assert node["spec"] == {}
    assert [c["reason"] for c in node["status"]["conditions"]] == ["KubeletReady"]
    rc, result = module("k8s_info", {"kind": "Pod", "namespace": "default", "field_selectors": ["spec.nodeName=node-1"]})
    assert (rc, result["resources"]) == (0, [])
