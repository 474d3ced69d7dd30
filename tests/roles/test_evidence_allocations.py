# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The evidence role's allocations step (roles/evidence/tasks/allocations.yml, as verify.yml runs it) through the real
``ansible-playbook``: kubernetes.core's k8s_info reads the ResourceClaims and the node's ResourceSlices from the API double
(tests/doubles/apiserver), pod_resources_info reads the kubelet stand-in's PodResources socket under the role's kubelet root
directory, and each DRA device the pod got is joined to its claim and its slice's NUMA node (issue 27, item 1)."""

from __future__ import annotations

import json
import os
import sys

import pytest

from ansible_collections.gpusmith.numa_gate.tests.unit import ansible_run, playbook_run

if os.path.join(ansible_run.REPO, "tests", "doubles") not in sys.path:
    sys.path.insert(0, os.path.join(ansible_run.REPO, "tests", "doubles"))

from apiserver import device_objects, server  # noqa: E402 pylint: disable=wrong-import-position,import-error
from standin_harness import Running, fake_machine  # noqa: E402 pylint: disable=wrong-import-position,import-error
from test_kubelet_standin_pods import CONFIG, canary, phase, wait_for  # noqa: E402 pylint: disable=wrong-import-position,import-error

PLAY = """- hosts: localhost
  gather_facts: false
  module_defaults:
    kubernetes.core.k8s_info:
      kubeconfig: "{{ kubeconfig }}"
  tasks:
    - name: The evidence role's allocations step
      ansible.builtin.include_role:
        name: gpusmith.numa_gate.evidence
        tasks_from: allocations
    - name: Keep what it registered
      ansible.builtin.copy:
        content: "{{ {'claims': __evidence_claims, 'slices': __evidence_slices, 'resources': __evidence_resources} | to_json }}"
        dest: "{{ result_path }}"
        mode: "0644"
"""
GPU0, GPU1 = "GPU-9c73eb7b-8d6d-6c0e-dc13-97873e2ede40", "GPU-c92e2d5d-4a69-f1cd-4df0-305f8606705a"
# The host: GPU 0 at 0000:07:00.0 on NUMA node 0, GPU 1 at 0000:87:00.0 on node 1; CPUs 0-3 on node 0, 4-7 on node 1.
FACTS = {"schema_version": 1, "cpus": {"online": "0-7", "isolated": ""}, "numa_nodes": [{"id": 0, "cpus": "0-3"}, {"id": 1, "cpus": "4-7"}],
         "gpus": [{"index": 0, "uuid": GPU0, "pci_address": "0000:07:00.0", "numa_node": 0},
                  {"index": 1, "uuid": GPU1, "pci_address": "0000:87:00.0", "numa_node": 1}], "nics": []}


def slice_device(name, uuid, bus, numa):
    return {"name": name, "attributes": {"uuid": {"string": uuid}, "resource.kubernetes.io/pciBusID": {"string": bus},
                                         "resource.kubernetes.io/numaNode": {"int": numa}}}


@pytest.fixture(name="node")
def fixture_node(tmp_path, request):
    """The API double with one claim allocated the slice device ``request.param`` (gpu-0 on NUMA node 0, gpu-1 on node 1) of node
    n1, and the kubelet stand-in running one pod using it; the stand-in reserves CPUs 0-1 (its CONFIG), so the pod's 4 CPUs are 4-7."""
    api = server.ApiServerDouble().start()
    machine = fake_machine(tmp_path / "machine", "0-7", {0: "0-3", 1: "4-7"})
    kubelet = None
    try:
        api.store.create("resourceslices", device_objects.resource_slice("n1-gpu.nvidia.com-x7k2p", "n1", "gpu.nvidia.com", [
            slice_device("gpu-0", GPU0, "0000:07:00.0", 0), slice_device("gpu-1", GPU1, "0000:87:00.0", 1)]))
        # Another node's slice, which the field selector leaves out.
        api.store.create("resourceslices", device_objects.resource_slice("n2-gpu.nvidia.com-q9r4t", "n2", "gpu.nvidia.com", [
            slice_device("gpu-0", "GPU-00000000-0000-0000-0000-000000000002", "0000:07:00.0", 0)]))
        api.store.create("resourceclaims", device_objects.resource_claim("gpu-claim", "default", [("gpu", "gpu.nvidia.com", "n1", request.param)]))
        kubelet = Running(machine, CONFIG, "--api-server", api.url, "--admit-api-pods", "--bind-pods",
                          "--node-labels", "example.com/pod-managers=canary")
        pod = canary("first")
        main = pod["spec"]["containers"][0]
        main["resources"]["claims"] = [{"name": "gpu"}]
        pod["spec"]["resourceClaims"] = [{"name": "gpu", "resourceClaimName": "gpu-claim"}]
        api.store.create("pods", pod)
        wait_for(lambda: phase(api, "first"))
        yield api, machine
    finally:
        if kubelet is not None:
            kubelet.stop()
        api.stop()


def run(api, machine, tmp_path, node_name="n1"):
    (tmp_path / "play.yml").write_text(PLAY)
    variables = playbook_run.write_vars(tmp_path, {
        "kubeconfig": api.write_kubeconfig(tmp_path / "kubeconfig"), "evidence_node_name": node_name, "evidence_topology": FACTS,
        "evidence_plan": {"kubelet_settings": {"topologyManagerScope": "pod"}}, "evidence_kubelet_root_dir": str(machine / "root"),
        "canary_result": {"namespace": "default"}, "podresources_client_result": {"python": ansible_run.PYTHON},
        "result_path": str(tmp_path / "result.json")})
    playbook_run.run(tmp_path, tmp_path / "play.yml", *playbook_run.LOCALHOST, "-e", "@%s" % variables,
                     env=ansible_run.environment_without_api_settings(tmp_path))
    return json.loads((tmp_path / "result.json").read_text())


@pytest.mark.parametrize("node", ["gpu-1"], indirect=True)
def test_the_claims_device_is_joined_to_its_slice_and_agrees_with_the_pods_cpus(node, tmp_path):
    api, machine = node
    got = run(api, machine, tmp_path)
    assert [c["metadata"]["name"] for c in got["claims"]["resources"]] == ["gpu-claim"]
    assert [s["metadata"]["name"] for s in got["slices"]["resources"]] == ["n1-gpu.nvidia.com-x7k2p"]
    resources = got["resources"]
    assert (resources["failed"], resources["reachable"]) == (False, True)
    (pod,) = resources["reconciled"]["pods"]
    (claimed,) = pod["devices"]["main"]
    assert (claimed["claim"], claimed["driver"], claimed["pool"], claimed["device_name"]) == ("default/gpu-claim", "gpu.nvidia.com", "n1", "gpu-1")
    assert (claimed["slice_numa_node"], claimed["uuid"], claimed["pci_address"], claimed["numa_node"]) == (1, GPU1, "0000:87:00.0", 1)
    assert pod["pod_cpus"] == "4-7"
    dra = [(f["check"], f["result"], f["container"]) for f in pod["findings"] if f["check"].startswith("dra_")]
    assert dra == [("dra_device_numa", "agree", "main"), ("dra_device_memory_numa", "agree", "main")]


@pytest.mark.parametrize("node", ["gpu-0"], indirect=True)
def test_a_claims_device_on_the_other_numa_node_disagrees_with_the_pods_cpus(node, tmp_path):
    api, machine = node
    (pod,) = run(api, machine, tmp_path)["resources"]["reconciled"]["pods"]
    (claimed,) = pod["devices"]["main"]
    assert (claimed["slice_numa_node"], claimed["uuid"], claimed["numa_node"], pod["pod_cpus"]) == (0, GPU0, 0, "4-7")
    dra = [(f["check"], f["result"], f["container"]) for f in pod["findings"] if f["check"].startswith("dra_")]
    assert dra == [("dra_device_numa", "disagree", "main"), ("dra_device_memory_numa", "disagree", "main")]


@pytest.mark.parametrize("node", ["gpu-1"], indirect=True)
def test_a_node_without_slices_leaves_the_claims_device_absent_there(node, tmp_path):
    api, machine = node
    got = run(api, machine, tmp_path, node_name="n3")
    assert got["slices"]["resources"] == []
    (pod,) = got["resources"]["reconciled"]["pods"]
    (claimed,) = pod["devices"]["main"]
    assert (claimed["claim"], claimed["slice_numa_node"], claimed["numa_node"]) == ("default/gpu-claim", None, None)
    dra = [(f["check"], f["result"]) for f in pod["findings"] if f["check"].startswith("dra_")]
    assert dra == [("dra_slice_device", "disagree")]
