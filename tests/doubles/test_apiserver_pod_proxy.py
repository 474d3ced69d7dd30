# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The real kubectl against the double's pod proxy (``/api/v1/namespaces/<ns>/pods/<name>:<port>/proxy/<path>``), each answer
as pkg/registry/core/pod/strategy.go ResourceLocation gives it: the pod's server reached, an id that is not name[:port] refused,
a pod that does not exist 404, a pod whose address is not global unicast refused."""


def test_apiserver_kubectl_get_raw_pod_proxy_metrics(api, kubectl, fake_kubelet):
    api.add_node("node-1")
    api.add_pod("server-0", "node-1", namespace="default")
    api.register_pod_endpoint("default", "server-0", 8000, fake_kubelet.url)
    result = kubectl("get", "--raw", "/api/v1/namespaces/default/pods/server-0:8000/proxy/metrics")
    assert (result.returncode, result.stderr) == (0, "")
    assert "kubelet_cpu_manager_pinning_requests_total 3\n" in result.stdout
    assert fake_kubelet.seen == ["/metrics"]


def test_apiserver_kubectl_get_raw_pod_proxy_refusals(api, kubectl, fake_kubelet):
    api.add_node("node-1")
    api.add_pod("server-0", "node-1", namespace="default")
    api.register_pod_endpoint("default", "server-0", 8000, fake_kubelet.url)
    result = kubectl("get", "--raw", "/api/v1/namespaces/default/pods/a:b:c:d/proxy/metrics")
    assert (result.returncode, result.stderr) == (1, 'Error from server (BadRequest): invalid pod request "a:b:c:d"\n')
    result = kubectl("get", "--raw", "/api/v1/namespaces/default/pods/gone:8000/proxy/metrics")
    assert (result.returncode, result.stderr) == (1, 'Error from server (NotFound): pods "gone" not found\n')
    with api.store.cond:
        pod = api.store.get("pods", "default", "server-0")
        pod["status"]["podIP"], pod["status"]["podIPs"] = "127.0.0.1", [{"ip": "127.0.0.1"}]
        api.store.update("pods", pod, check_version=False)
    result = kubectl("get", "--raw", "/api/v1/namespaces/default/pods/server-0:8000/proxy/metrics")
    assert (result.returncode, result.stderr) == (1, "Error from server (BadRequest): address not allowed\n")
    assert fake_kubelet.seen == []
