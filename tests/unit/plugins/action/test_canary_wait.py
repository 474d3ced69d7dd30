# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The canary_wait action through the real kubernetes client, against the API server TEST DOUBLE (tests/doubles/apiserver)."""

from ansible_collections.gpusmith.numa_gate.plugins.action import canary_wait
from ansible_collections.gpusmith.numa_gate.tests.unit.plugins.action import in_process

NAME = "pod-numa-allocation-canary"


def test_an_admitted_canary_is_read_back_and_nothing_is_written(tmp_path):
    with in_process.api_double() as api:
        api.add_node("gpu-1")
        api.add_pod(NAME, "gpu-1", labels={"app.kubernetes.io/name": "numa-gate-canary"})
        kubeconfig = api.write_kubeconfig(tmp_path / "kubeconfig")
        result = in_process.run(canary_wait, {"node": "gpu-1", "kubeconfig": kubeconfig, "namespace": "default", "name": NAME}, check_mode=True)
        assert (result.get("failed"), result["changed"], result["attempts"], result["node"]) == (None, False, 1, "gpu-1")
        assert [pod["metadata"]["name"] for pod in result["resources"]] == [NAME]
        assert list(api.requests) == [("GET", "/api/v1/namespaces/default/pods/%s" % NAME)]


def test_an_api_that_cannot_be_reached_fails_with_its_error(tmp_path):
    with in_process.api_double() as api:
        kubeconfig = api.write_kubeconfig(tmp_path / "kubeconfig")
        url = api.url
    result = in_process.run(canary_wait, {"node": "gpu-1", "kubeconfig": kubeconfig, "namespace": "default", "name": NAME, "timeout": 0})
    assert result["failed"] is True
    assert result["msg"].startswith("cannot reach the API server at %s (GET /api/v1/namespaces/default/pods/%s): " % (url, NAME))
