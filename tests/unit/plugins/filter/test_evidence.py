"""The evidence filters (plugins/filter/evidence.py): thin adapters, errors as AnsibleFilterError."""

import pytest

from ansible.errors import AnsibleFilterError

from ansible_collections.gpusmith.numa_gate.plugins.filter import evidence

FACTS = {"schema_version": 1, "cpus": {"online": "0-3", "isolated": ""}, "numa_nodes": [{"id": 0, "cpus": "0-1"}, {"id": 1, "cpus": "2-3"}],
         "cores": [{"cpus": "0"}, {"cpus": "1"}, {"cpus": "2"}, {"cpus": "3"}], "gpus": [], "nics": []}
POD = {"name": "p", "namespace": "n", "cpu_ids": "2-3", "memory": [],
       "containers": [{"name": "main", "cpu_ids": "2", "devices": [], "memory": [], "dynamic_resources": []},
                      {"name": "side", "cpu_ids": "", "devices": [], "memory": [], "dynamic_resources": []}]}


def test_filters_are_registered():
    names = ["metrics_rates", "placement_evidence", "placement_findings", "placement_recheck", "pod_allocations", "reservation_slack"]
    assert sorted(evidence.FilterModule().filters()) == names


def test_pod_allocations_and_findings():
    result = evidence.pod_allocations([POD], "pod", FACTS)
    (pod,) = result["pods"]
    assert (pod["pod_cpus"], pod["shared_cpus"], result["node"]["shared_pool"]) == ("2-3", "3", "0-1")
    findings = evidence.placement_findings(pod, {"uid": "u", "found": False}, {}, FACTS)
    assert findings == [{"pod": "n/p", "container": None, "check": "pod_cgroup", "result": "unknown", "expected": None, "observed": None,
                         "sources": {}, "message": "pod n/p: its cgroup was not found on the node"}]


def test_reservation_slack_and_rates():
    pair = [{"usage_ns": 0, "monotonic_ns": 0}, {"usage_ns": 4 * 10 ** 8, "monotonic_ns": 10 ** 9}]
    assert evidence.reservation_slack("0-1", [pair], FACTS)["slack_cpu_equivalents"] == 1.6
    first = {"timestamp": 0, "samples": [{"name": "x_total", "labels": {}, "value": 5.0, "type": "counter"}]}
    second = {"timestamp": 10, "samples": [{"name": "x_total", "labels": {}, "value": 2.0, "type": "counter"}]}
    (rate,) = evidence.metrics_rates(second, first)
    assert (rate["reset"], rate["rate_per_second"]) == (True, 0.2)


def test_errors_become_filter_errors():
    with pytest.raises(AnsibleFilterError, match="pod_allocations: topology manager scope 'node' is not one of pod, container"):
        evidence.pod_allocations([], "node", FACTS)
    with pytest.raises(AnsibleFilterError, match="metrics_rates: the second scrape"):
        evidence.metrics_rates({"timestamp": 0, "samples": []}, {"timestamp": 0, "samples": []})


def test_placement_recheck():
    after = {"workloads": [{"owner": "ReplicaSet/n/p-rs", "namespace": "n", "now": [{"name": "p", "uid": "u", "ready": True, "container_ids": {}}]}]}
    resources = {"reachable": True, "pods": [POD], "reconciled": evidence.pod_allocations([POD], "pod", FACTS)}
    result = evidence.placement_recheck(after, resources, {"pods": [{"uid": "u", "found": False}]}, FACTS)
    assert result["problems"] == ["n/p: recheck_cgroup unknown: pod n/p (uid u): placement_info found no cgroup for it after the rollback"]
    with pytest.raises(AnsibleFilterError, match=r"^placement_recheck: "):
        evidence.placement_recheck(after, resources, {"pods": []}, {"schema_version": 99})
