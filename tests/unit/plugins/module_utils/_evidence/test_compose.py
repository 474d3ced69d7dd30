# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The placement evidence composed from the evidence role's task results (_evidence/compose.py, composition/*): exact values.

The task results are shaped as Ansible registers them under ``failed_when: false`` (``failed: false``
and ``failed_when_result: false`` even when the module failed) or ``skipped``; the canary's cgroups
are the recorded tree of record_inputs, read with the real placement reader.
"""

from __future__ import annotations

import pytest

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence.podresources import allocations
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence import compose, sources
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence.placement import read as placement
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence.nodefs import EvidenceError
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._plan import locality
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._record import record
from ansible_collections.gpusmith.numa_gate.tests.unit.plugins.module_utils._record import record_inputs as ri

REGISTERED = {"changed": False, "failed": False, "failed_when_result": False}
SKIPPED = {"changed": False, "skipped": True, "skip_reason": "Conditional result was False", "false_condition": "canary_result.uid is not none"}
NODE_INFO = {"kubeletVersion": "v1.37.1", "osImage": "debian-12-gpu-20261101", "containerRuntimeVersion": "containerd://2.1.4",
             "kernelVersion": "6.8.0-45-generic"}
IDS = {"main": "containerd://" + ri.MAIN, "metrics": "containerd://" + ri.METRICS_ID, "logging": "containerd://" + ri.LOGGING_ID}
SOCKET = "/var/lib/kubelet/pod-resources/kubelet.sock"
SOCKET_FINDING = {"pod": None, "container": None, "check": "podresources_socket", "result": "unknown", "expected": SOCKET,
                  "observed": None, "sources": {"expected": "the kubelet's root dir", "observed": "the node"},
                  "message": "PodResources socket /var/lib/kubelet/pod-resources/kubelet.sock: not found"}


def registered(**values):
    return dict(REGISTERED, **values)


def canary_result(uid=ri.UID, admitted=True):
    return {"pod": ri.CANARY, "name": "pod-numa-allocation-canary", "namespace": "canary", "uid": uid, "node": "h200-vm",
            "container_ids": IDS if uid else {}, "admission": {"admitted": admitted, "failures": []}}


def full_reads(root, facts):
    """Every task result of one verify run on the H200 with the canary on CPUs 2-5, and the inputs record_inputs builds by hand."""
    inputs = ri.full_inputs(root, facts)  # writes the canary's cgroup tree under root
    oracle = locality.build(facts)
    reconciled = allocations.reconcile_allocations(ri.canary_pods(), "pod", facts["cpus"]["online"], None, oracle)
    reads = {
        "topology": facts,
        "node_object": registered(api_found=True, resources=[{"kind": "Node", "metadata": {"name": "h200-vm"}, "status": {"nodeInfo": NODE_INFO}}]),
        "kubelet_files": registered(base=inputs["baseline_config"], effective=inputs["target_config"], dropins=[]),
        "kubelet_verify": registered(node="h200-vm", ready=True, healthz="ok", mismatches=[], waited_s=20.1),
        "metrics_after": registered(rates=inputs["metrics"], scrape={"samples": []}),
        "canary": canary_result(),
        "placement": registered(pods=[placement.read_pods(root, [ri.UID])[1][0]]),
        "pod_resources": registered(reconciled=reconciled, allocatable={"cpu_ids": "0-15", "devices": []},
                                    findings=list(reconciled["findings"])),
        "device_path": None,
        "service_comparison_ran": False,
        "service_comparison_result": None,
        "service_comparison_given": inputs["service_objectives"],
        "rollback_task": registered(rollback=inputs["rollback"], transitions=[]),
    }
    return reads, inputs


def test_every_source_from_its_task_result_exactly(tmp_path):
    facts = ri.h200_facts()
    reads, inputs = full_reads(str(tmp_path), facts)
    found = compose.compose(reads)
    assert list(found) == list(sources.names())
    assert found["versions"] == {"kubelet": "v1.37.1", "node_image": "debian-12-gpu-20261101", "container_runtime": "containerd://2.1.4"}
    assert (found["baseline_config"], found["target_config"]) == (inputs["baseline_config"], inputs["target_config"])
    assert found["allocations"] == inputs["allocations"]
    assert found["findings"] == inputs["findings"]
    assert [(f["check"], f["container"], f["result"]) for f in found["findings"]] == [
        ("cpuset", "logging", "agree"), ("thread_masks", "logging", "agree"), ("cpuset", "main", "agree"), ("thread_masks", "main", "agree"),
        ("cpuset", "metrics", "agree"), ("thread_masks", "metrics", "agree"), ("device_locality", "main", "agree"), ("memory_nodes", None, "agree"),
        ("resident_memory", None, "agree")]
    assert found["canary"] == {"pod": ri.CANARY, "admission": {"admitted": True, "failures": []}}
    assert found["configuration"] == {"verified": True, "message": "/configz matches the plan"}
    assert found["metrics"] == inputs["metrics"]
    assert (found["service_objectives"], found["rollback"], found["device_path"]) == (inputs["service_objectives"], inputs["rollback"], None)


def test_the_composed_evidence_gives_the_record_the_hand_built_inputs_give(tmp_path):
    facts = ri.h200_facts()
    reads, inputs = full_reads(str(tmp_path), facts)
    evidence = compose.compose(reads)
    own = {key: inputs[key] for key in ("plan", "slack", "generated_at")}
    composed = record.build(facts, "h200-vm", dict(evidence, versions=dict(evidence["versions"], driver=ri.VERSIONS["driver"]), **own))
    # The effect source (test_effect.py) has no hand-built counterpart: compared as composed.
    by_hand = record.build(facts, "h200-vm", dict(inputs, effect=evidence["effect"], versions=dict(ri.VERSIONS, container_runtime="containerd://2.1.4")))
    assert composed == by_hand
    assert composed["verdict"]["verdict"] == by_hand["verdict"]["verdict"]


def test_nothing_read_is_none_and_a_canary_without_uid_has_no_findings():
    """Check mode: the canary is not sent, the block is skipped, the after-scrape too; kubelet_verify and the files were read."""
    reads = {"topology": ri.h200_facts(), "node_object": registered(api_found=False, resources=[]), "kubelet_files": SKIPPED,
             "kubelet_verify": SKIPPED, "metrics_after": SKIPPED, "canary": canary_result(uid=None, admitted=False), "placement": SKIPPED,
             "pod_resources": SKIPPED, "device_path": SKIPPED, "service_comparison_ran": True, "service_comparison_result": None,
             "service_comparison_given": {"state": "held"}, "rollback_task": SKIPPED}
    assert compose.compose(reads) == {
        "versions": {}, "baseline_config": None, "target_config": None, "allocations": None, "findings": [],
        "canary": {"pod": ri.CANARY, "admission": {"admitted": False, "failures": []}}, "memory": None,
        "configuration": {"verified": False, "message": ""},
        "metrics": None, "effect": None, "service_objectives": None, "rollback": None, "device_path": None, "admission_failure": None,
        "transport": None}
    assert compose.compose({}) == {
        "versions": {}, "baseline_config": None, "target_config": None, "allocations": None, "findings": [], "canary": None, "memory": None,
        "configuration": {"verified": False, "message": ""}, "metrics": None, "effect": None, "service_objectives": None, "rollback": None,
        "device_path": None, "admission_failure": None, "transport": None}


@pytest.mark.parametrize("result, expected", [
    (registered(node="n1", ready=True, mismatches=[]), {"verified": True, "message": "/configz matches the plan"}),
    # kubelet_verify failed; under failed_when: false its result reads failed: false, with mismatches [] (it never read /configz)
    # and the msg the VerifyError gave (_transition/ready.py), as the evidence role test shows for real.
    (registered(node="n1", ready=False, mismatches=[], configz={},
                msg="verify n1: not Ready and healthy for 5s in a row within 0s; last seen: Ready=Unknown (NodeStatusUnknown: Kubelet stopped posting)"),
     {"verified": False,
      "message": "verify n1: not Ready and healthy for 5s in a row within 0s; last seen: Ready=Unknown (NodeStatusUnknown: Kubelet stopped posting)"}),
    (registered(node="n1", ready=True, mismatches=[{"field": "cpuManagerPolicy", "expected": "static", "actual": "none"}],
                msg="verify n1: Ready and healthy, but the kubelet runs with other settings than expected: cpuManagerPolicy"),
     {"verified": False, "message": "verify n1: Ready and healthy, but the kubelet runs with other settings than expected: cpuManagerPolicy"}),
    # A connection error before any read: no ready, no mismatches.
    (registered(node="n1", msg="nodes \"n1\" not found"), {"verified": False, "message": "nodes \"n1\" not found"}),
    (dict(registered(node="n1", msg="boom"), failed=True), {"verified": False, "message": "boom"}),
    (registered(node="n1", ready=True), {"verified": False, "message": ""}),
])
def test_configuration_is_verified_only_without_failure_or_mismatch(result, expected):
    assert compose.compose({"kubelet_verify": result})["configuration"] == expected


def test_the_service_comparison_is_the_roles_when_it_ran_else_the_operators():
    measured, given = {"state": "not held", "reasons": ["ttft p95 0.7 > 0.5"]}, {"state": "held", "reasons": []}
    assert compose.compose({"service_comparison_ran": True, "service_comparison_result": measured,
                            "service_comparison_given": given})["service_objectives"] == measured
    assert compose.compose({"service_comparison_ran": False, "service_comparison_result": measured,
                            "service_comparison_given": given})["service_objectives"] == given


def test_the_rollback_is_the_node_read_never_a_statement():
    task = registered(rollback={"state": "rehearsed", "rehearsed": True}, transitions=[])
    stated = {"rehearsed": True, "detail": "rollback.yml restored the baseline"}
    assert compose.compose({"rollback_task": task})["rollback"] == {"state": "rehearsed", "rehearsed": True}
    # Not asked (skipped, absent): none. Failed (failed_when: false, no rollback in it): not read, naming the error.
    assert compose.compose({"rollback_task": SKIPPED})["rollback"] is None
    assert compose.compose({})["rollback"] is None
    assert compose.compose({"rollback_task": registered(msg="/var/lib/numa-gate/transitions is a symlink; not read")})["rollback"] == {
        "state": "not read", "rehearsed": False, "error": "/var/lib/numa-gate/transitions is a symlink; not read"}
    assert compose.compose({"rollback_task": registered()})["rollback"] == {
        "state": "not read", "rehearsed": False, "error": "rehearsal_info returned no rollback evidence"}
    # An operator's statement is no read at all: refused by name.
    with pytest.raises(EvidenceError) as raised:
        compose.compose({"rollback_task": SKIPPED, "rollback_given": stated})
    assert str(raised.value).startswith("placement evidence: no source reads rollback_given (known: ")


def test_a_pod_resources_info_that_failed_is_a_finding_naming_it(tmp_path):
    facts = ri.h200_facts()
    reads, _inputs = full_reads(str(tmp_path), facts)
    reads["pod_resources"] = registered(msg="Failed to import the required Python library (grpcio) on node's Python /usr/bin/python3")
    found = compose.compose(reads)
    assert (found["allocations"], found["findings"]) == (None, [{
        "pod": ri.CANARY, "container": None, "check": "podresources_read", "result": "unknown", "expected": "a PodResources reading",
        "observed": None, "sources": {"expected": "the canary", "observed": "pod_resources_info"},
        "message": "pod_resources_info failed, so the kubelet's allocations were not read: Failed to import the required Python library "
                   "(grpcio) on node's Python /usr/bin/python3"}])
    built = record.build(facts, "h200-vm", dict(found, versions=ri.VERSIONS))
    assert [r["message"] for r in built["verdict"]["reasons"] if r["criterion"] == "placement"] == [
        "placement podresources_read unknown: pod_resources_info failed, so the kubelet's allocations were not read: Failed to import the "
        "required Python library (grpcio) on node's Python /usr/bin/python3",
        "placement canary_allocation unknown: pod %s: admitted, but PodResources was not read" % ri.CANARY]


def test_a_podresources_socket_that_could_not_be_read_is_a_finding_not_silence(tmp_path):
    facts = ri.h200_facts()
    reads, _inputs = full_reads(str(tmp_path), facts)
    reads["pod_resources"] = registered(findings=[SOCKET_FINDING, dict(SOCKET_FINDING, check="pods_overlap")])
    found = compose.compose(reads)
    assert (found["allocations"], found["findings"]) == (None, [SOCKET_FINDING])


@pytest.mark.parametrize("result, expected", [
    (registered(node="gpu-1", msg='nodes "gpu-1" not found'), {"node": "gpu-1", "error": 'nodes "gpu-1" not found', "findings": [], "versions": {}}),
    ({"node": "gpu-1", "failed": True, "changed": False, "msg": "daemonsets.apps is forbidden"},
     {"node": "gpu-1", "error": "daemonsets.apps is forbidden", "findings": [], "versions": {}}),
    (registered(node="gpu-1"), {"node": "gpu-1", "error": "device_path_info returned no findings", "findings": [], "versions": {}}),
    (registered(node="gpu-1", findings=[], versions={"gpu_device_plugin": "v0.18.0"}, summary={"agree": 0, "disagree": 0, "unknown": 0}),
     {"node": "gpu-1", "findings": [], "versions": {"gpu_device_plugin": "v0.18.0"}, "summary": {"agree": 0, "disagree": 0, "unknown": 0}}),
    (SKIPPED, None),
    (None, None),
])
def test_the_device_path_read_failed_read_or_not_asked(result, expected):
    assert compose.compose({"device_path": result})["device_path"] == expected


def test_a_read_no_source_takes_or_of_the_wrong_kind_is_refused_by_name():
    with pytest.raises(EvidenceError, match=r"^placement evidence: no source reads kubelet_verfy \(known: node_object, kubelet_files, "
                                            r"pod_resources, placement, canary, topology, placement_after, kubelet_verify, metrics_before, metrics_after, "):
        compose.compose({"kubelet_verfy": {}})
    with pytest.raises(EvidenceError, match=r"^placement evidence: device_path must be a task result \(a mapping\), got list$"):
        compose.compose({"device_path": []})
    with pytest.raises(EvidenceError, match=r"^placement evidence: canary must be a mapping, got str$"):
        compose.compose({"canary": "default/pod"})
    with pytest.raises(EvidenceError, match=r"^placement evidence: reads must be a mapping of node_object, "):
        compose.compose(None)


def test_a_placement_info_that_failed_is_a_finding_naming_it(tmp_path):
    """placement_info failed outright (its msg, no pods; failed: false under failed_when: false): the record names the failure
    rather than 'no placement evidence' with no cause; PodResources was read, and its allocation stays."""
    facts = ri.h200_facts()
    reads, inputs = full_reads(str(tmp_path), facts)
    reads["placement"] = registered(msg="cgroup root /sys/fs/cgroup is not readable: Permission denied", root="/")
    found = compose.compose(reads)
    assert (found["allocations"], found["findings"]) == (inputs["allocations"], [{
        "pod": ri.CANARY, "container": None, "check": "placement_read", "result": "unknown", "expected": "the canary's cgroups, threads and pages",
        "observed": None, "sources": {"expected": "the canary", "observed": "placement_info"},
        "message": "placement_info failed, so the canary's cgroups, thread masks and resident pages were not read: cgroup root "
                   "/sys/fs/cgroup is not readable: Permission denied"}])
    built = record.build(facts, "h200-vm", dict(found, versions=ri.VERSIONS))
    assert built["verdict"]["verdict"] == "defer"
    assert [r["message"] for r in built["verdict"]["reasons"] if r["criterion"] == "placement"] == [
        "placement placement_read unknown: placement_info failed, so the canary's cgroups, thread masks and resident pages were not read: "
        "cgroup root /sys/fs/cgroup is not readable: Permission denied"]
    # Skipped (no canary to read for) is not a failure: no finding.
    reads["placement"] = SKIPPED
    assert [f["check"] for f in compose.compose(reads)["findings"]] == []


@pytest.mark.parametrize("before, after, expected", [
    ({"failed": False, "changed": False, "msg": "cannot reach the API server https://127.0.0.1:6443: connection refused"}, SKIPPED,
     {"samples": [], "error": "the scrape before the canary failed: cannot reach the API server https://127.0.0.1:6443: connection refused"}),
    ({"failed": False, "changed": False, "scrape": {"samples": []}},
     {"failed": False, "changed": False, "msg": "GET /api/v1/nodes/gpu-1/proxy/metrics: 503 Service Unavailable"},
     {"samples": [], "error": "the scrape after the canary failed: GET /api/v1/nodes/gpu-1/proxy/metrics: 503 Service Unavailable"}),
    ({"failed": False, "changed": False, "scrape": {"samples": []}}, {"failed": False, "changed": False, "scrape": {"samples": []}, "rates": []}, []),
    (SKIPPED, SKIPPED, None),
])
def test_a_failed_scrape_is_kept_with_its_message(before, after, expected):
    assert compose.compose({"metrics_before": before, "metrics_after": after})["metrics"] == expected
