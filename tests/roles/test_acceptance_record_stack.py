# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The acceptance_record role with acceptance_record_read_api (as verify.yml runs it), through the real ansible-playbook
against the API server TEST DOUBLE (tests/doubles/apiserver): every version of the record with where it was read and
when, the record's exact versions table, and the fleet page listing the pool's nodes (numa_gate_pool_selector) that
have no record or a stale one (issue 32)."""

from __future__ import annotations

import datetime
import json
import os
import sys

import pytest

from ansible_collections.gpusmith.numa_gate.tests.unit import ansible_run, playbook_run

if os.path.join(ansible_run.REPO, "tests", "doubles") not in sys.path:
    sys.path.insert(0, os.path.join(ansible_run.REPO, "tests", "doubles"))

from apiserver import device_objects, server, store as api_store  # noqa: E402 pylint: disable=wrong-import-position,import-error

CANARY = {"example.com/pod-managers": "canary"}


@pytest.fixture(name="double")
def fixture_double():
    started = server.ApiServerDouble().start()
    try:
        yield started
    finally:
        started.stop()


def play(double, tmp_path, **extra):
    playbook = playbook_run.write_play(tmp_path, "gpusmith.numa_gate.acceptance_record")
    variables = playbook_run.write_vars(tmp_path, dict({
        "numa_gate_artifacts_dir": str(tmp_path / "artifacts"), "numa_gate_kubeconfig": double.write_kubeconfig(tmp_path / "kubeconfig"),
        "numa_gate_node_name": "gpu-1", "acceptance_record_read_api": True,
        "acceptance_record_versions": {"driver": "580.82.07", "device_plugin": "v0.16.0", "workload": "vllm-0.11"}}, **extra))
    playbook_run.run(tmp_path, playbook, *playbook_run.LOCALHOST, "-e", "@%s" % variables)
    record = json.loads((tmp_path / "artifacts" / "localhost" / "acceptance.json").read_text())
    return record, (tmp_path / "artifacts" / "localhost" / "acceptance.md").read_text(), (tmp_path / "artifacts" / "index.html").read_text()


FACTS = "the node's facts in this run (numa_gate_topology.kernel)"
GIVEN = "given to the record (acceptance_record_versions, or the evidence's versions), not observed here"
WORKLOADS = "Deployments (apps/v1, all namespaces)"
PLUGIN = "DaemonSet kube-system/nvidia-device-plugin-daemonset, image nvcr.io/nvidia/k8s-device-plugin:v0.17.1"
OPERATOR = "Deployment nvidia-network-operator/network-operator, image nvcr.io/nvidia/cloud-native/network-operator:v26.7.0"
SOURCE = "https://docs.nvidia.com/networking/display/kubernetes2670/platform-support.html"
# A double without apps/v1 Deployments answers 404 for them: what is not among the DaemonSets is then unknown, said with that error.
SERVES_DEPLOYMENTS = "deployments" in api_store.RESOURCES
NOT_SERVED = "the server could not find the requested resource"


def _image_rows():
    if not SERVES_DEPLOYMENTS:
        unknown = "| %s | unknown | read failed | " + WORKLOADS + " | {at} | " + NOT_SERVED + " |"
        return [unknown % "gpu_operator", unknown % "network_operator", "| device_plugin | v0.17.1 | found | %s | {at} | - |" % PLUGIN,
                unknown % "dra_driver", unknown % "sriov_device_plugin"]
    absent = "| %s | not found | not found | Deployments and DaemonSets (apps/v1, all namespaces) | {at} | - |"
    return [absent % "gpu_operator", "| network_operator | v26.7.0 | found | %s | {at} | - |" % OPERATOR,
            "| device_plugin | v0.17.1 | found | %s | {at} | - |" % PLUGIN, absent % "dra_driver", absent % "sriov_device_plugin"]


TABLE = [
    "| component | version | state | source | read at (UTC) | error |", "|---|---|---|---|---|---|",
    "| control_plane | v1.37.1 | found | GET /version (gitVersion) | {at} | - |",
    "| kubelet | v1.37.1 | found | the Node's status.nodeInfo.kubeletVersion | {at} | - |",
    "| container_runtime | containerd://2.1.0 | found | the Node's status.nodeInfo.containerRuntimeVersion | {at} | - |",
    "| kernel | 6.1.0 | found | the Node's status.nodeInfo.kernelVersion | {at} | - |",
    "| node_image | Debian GNU/Linux 12 (bookworm) | found | the Node's status.nodeInfo.osImage | {at} | - |"] + _image_rows() + [
    "| kernel | 6.18.44-vm | found | %s | {generated} | - |" % FACTS,
    "| driver | 580.82.07 | given | %s | not dated | - |" % GIVEN,
    "| workload | vllm-0.11 | given | %s | not dated | - |" % GIVEN]


def utc(text):
    return datetime.datetime.strptime(text, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=datetime.timezone.utc)


def test_every_version_with_where_and_when_it_was_read(double, tmp_path):
    double.add_node("gpu-1", labels=CANARY)
    # NVIDIA's device plugin as its static DaemonSet ships it (k8s-device-plugin deployments/static/nvidia-device-plugin.yml).
    device_objects.add_plugin(double, "nvidia-device-plugin-daemonset", "kube-system", "gpu-1", {"name": "nvidia-device-plugin-ds"},
                              [{"name": "nvidia-device-plugin-ctr", "image": "nvcr.io/nvidia/k8s-device-plugin:v0.17.1"}])
    if SERVES_DEPLOYMENTS:  # the report's Network Operator v26.7.0, whose support page lists Kubernetes 1.32-1.36
        double.store.create("deployments", {
            "kind": "Deployment", "apiVersion": "apps/v1", "metadata": {"name": "network-operator", "namespace": "nvidia-network-operator"},
            "spec": {"replicas": 0, "selector": {"matchLabels": {"app": "network-operator"}}, "template": {
                "metadata": {"labels": {"app": "network-operator"}},
                "spec": {"containers": [{"name": "manager", "image": "nvcr.io/nvidia/cloud-native/network-operator:v26.7.0"}]}}}})
    before = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0)
    record, markdown, _index = play(double, tmp_path)
    after = datetime.datetime.now(datetime.timezone.utc)
    stack = [entry for entry in record["observed"] if entry["source"] not in (FACTS, GIVEN)]
    # One stack_info call: every entry it read carries the same controller UTC time, within the run.
    [read_at] = sorted(set(entry["read_at"] for entry in stack))
    assert before <= utc(read_at) <= after
    assert [entry for entry in record["observed"] if entry["source"] == FACTS][0]["read_at"] == record["generated_at"]
    table = markdown.split("## Versions\n\n", 1)[1].split("\n\n", 1)[0]
    assert table.splitlines() == [line.format(at=read_at, generated=record["generated_at"]) for line in TABLE]
    assert record["versions"] == {
        "control_plane": "v1.37.1", "kubelet": "v1.37.1", "container_runtime": "containerd://2.1.0", "kernel": "6.18.44-vm",
        "node_image": "Debian GNU/Linux 12 (bookworm)", "driver": "580.82.07", "workload": "vllm-0.11",
        # observed wins over the operator's v0.16.0; read failed: unknown (null), never absent; not found: no key.
        "device_plugin": "v0.17.1", **({"network_operator": "v26.7.0"} if SERVES_DEPLOYMENTS else dict.fromkeys(
            ("gpu_operator", "network_operator", "dra_driver", "sriov_device_plugin")))}
    # The support criterion runs on the whole stack as read: the Network Operator the table speaks of defers, out of its range
    # on this 1.37 cluster (naming the entry and its source), or unknown when the Deployments could not be listed.
    support = [r for r in record["verdict"]["reasons"] if r["criterion"] == "support"]
    assert support[0] == {"criterion": "support", "effect": "defer", "message": (
        "network_operator v26.7.0 is supported on Kubernetes 1.32 - 1.36 only (support table entry nvidia-network-operator-26.7, source "
        "%s, read 2026-12-04), and the control plane is v1.37.1 and the kubelet is v1.37.1: no support statement covers this stack" % SOURCE
        if SERVES_DEPLOYMENTS else
        "network_operator is installed but its version is unknown (not read): its support (support table entry nvidia-network-operator-26.7) "
        "cannot be checked; unknown is not agreement")}
    assert record["node"] == "gpu-1"
    assert [(method, path) for method, path in double.requests if method != "GET"] == []


def test_the_fleet_lists_the_pools_nodes_without_a_record_or_with_a_stale_one(double, tmp_path):
    double.add_node("gpu-1", labels=CANARY)
    double.add_node("gpu-2", labels=dict(CANARY, zone="b"))
    double.add_node("cpu-1", labels={"example.com/pod-managers": "general"})
    _record, _markdown, index = play(double, tmp_path)
    missing = '<section data-section="pool-missing"><h2>Pool nodes without a record</h2><table><thead><tr><th>node</th></tr></thead><tbody>'
    assert missing + "<tr><td>gpu-2</td></tr></tbody></table></section>" in index  # cpu-1 is not of the pool
    assert '<section data-section="pool-stale"><h2>Pool nodes whose record is older than the node&#x27;s last change</h2><p>none</p>' in index
    assert ("GET", "/api/v1/nodes?labelSelector=example.com/pod-managers%3Dcanary") in double.requests
    # A record dated before the Node was created (its last change) is stale.
    created = double.store.get("nodes", None, "gpu-1")["metadata"]["creationTimestamp"]
    _record, _markdown, index = play(double, tmp_path, acceptance_record_generated_at="2026-01-01T00:00:00Z")
    assert ("<tr><td>gpu-1</td><td>2026-01-01T00:00:00Z</td><td>%s</td></tr>" % created) in index
    # Another pool, on purpose: every node ({}).
    _record, _markdown, index = play(double, tmp_path, numa_gate_pool_selector={})
    assert missing + "<tr><td>cpu-1</td></tr><tr><td>gpu-2</td></tr></tbody></table></section>" in index


def test_an_api_that_cannot_be_reached_is_said_never_silence(double, tmp_path):
    """Nothing listens where the kubeconfig points: every API read is its error in the record, and the fleet page says the pool is unknown."""
    closed = tmp_path / "closed-kubeconfig"
    closed.write_text(open(double.write_kubeconfig(tmp_path / "kubeconfig"), encoding="utf-8").read().replace(double.url, "http://127.0.0.1:9"))
    record, _markdown, index = play(double, tmp_path, acceptance_record_kubeconfig=str(closed))
    stack = [entry for entry in record["observed"] if entry["source"] not in (FACTS, GIVEN)]
    assert [(entry["component"], entry["state"]) for entry in stack] == [
        (component, "read failed") for component in ("control_plane", "kubelet", "container_runtime", "kernel", "node_image", "gpu_operator",
                                                     "network_operator", "device_plugin", "dra_driver", "sriov_device_plugin")]
    assert all(entry["error"] for entry in stack)
    assert index.count('<p data-kind="pool-error">unknown: the pool\'s nodes could not be read from the API (') == 2
    assert "the read failed)" not in index  # the client's own error is said
    assert double.requests == []


def test_a_malformed_support_entry_fails_the_record_naming_it_and_writes_nothing(tmp_path):
    """Bad input through the role: an operator's entry with a malformed range, or without a source, is refused naming the entry."""
    bad = {"name": "ours", "component": "network_operator", "versions": "26.7", "kubernetes": "1.32 -- 1.36", "source": "https://example.com/s",
           "read": "2026-12-01"}
    no_source = "source is missing or empty (''): every support statement names the address it was read from"
    for entry, said in ((bad, "kubernetes must be a version range (LOW - HIGH, >= LOW, <= HIGH, V), got '1.32 -- 1.36'"),
                        (dict(bad, kubernetes="1.32 - 1.36", source=""), no_source)):
        playbook = playbook_run.write_play(tmp_path, "gpusmith.numa_gate.acceptance_record")
        variables = playbook_run.write_vars(tmp_path, {"numa_gate_artifacts_dir": str(tmp_path / "artifacts"), "acceptance_record_support": [entry]})
        output = playbook_run.run(tmp_path, playbook, *playbook_run.LOCALHOST, "-e", "@%s" % variables, returncode=2)
        failed = [outcome["msg"] for play_ in output["plays"] for task in play_["tasks"] for outcome in task["hosts"].values() if outcome.get("failed")]
        assert len(failed) == 1 and ("support table entry acceptance_record_support[0] (ours): %s" % said) in failed[0]
        assert not (tmp_path / "artifacts").exists()
