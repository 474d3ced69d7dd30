# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Issue 16, rule 7 for the evidence and record filters: hostile types and shapes are data errors that name the path, never "unexpected ...".

Each case hands a filter a value of the wrong type or shape (a pod without a name, a sample that is null, a record
read back without its verdict, an argument nested 150 levels deep) and asserts the exact message of the
AnsibleFilterError, and that it comes from the collection's own error (a NumaGateError), not a stray exception.
"""

import copy

import pytest

from ansible.errors import AnsibleFilterError

from ansible_collections.gpusmith.numa_gate.plugins.filter import evidence, record
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base.errors import NumaGateError
from ansible_collections.gpusmith.numa_gate.tests.unit.plugins.filter.test_evidence import FACTS, POD

SAMPLE = {"usage_ns": 1, "monotonic_ns": 1}
ALLOCATIONS = {"scope": "pod", "pods": [{}], "node": {}, "findings": []}


def deep(levels):
    value = "x"
    for unused_level in range(levels):
        value = [value]
    return value


def allocation(**changes):
    return dict(evidence.pod_allocations([POD], "pod", FACTS)["pods"][0], **changes)


def changed_record(path, value=None):
    """A topology-only record of FACTS with the key at ``path`` removed (``value`` None) or set to ``value``."""
    found = copy.deepcopy(record.acceptance_record(FACTS, "h"))
    where = found
    for key in path[:-1]:
        where = where[key]
    if value is None:
        del where[path[-1]]
    else:
        where[path[-1]] = value
    return found


CASES = [
    ("pods without a name", lambda: evidence.pod_allocations([{k: v for k, v in POD.items() if k != "name"}], "pod", FACTS),
     "pod_allocations: pods[0] has no name: a PodResources pod (as pod_resources_info returns it) has containers, cpu_ids, memory, name, namespace"),
    ("pods a string", lambda: evidence.pod_allocations("pods", "pod", FACTS),
     "pod_allocations: pods must be a list, got the string 'pods'"),
    ("a container's cpu_ids a number", lambda: evidence.pod_allocations([dict(POD, containers=[dict(POD["containers"][0], cpu_ids=2)])], "pod", FACTS),
     "pod_allocations: pods[0].containers[0].cpu_ids must be a string, got the number 2"),
    ("a negative memory size", lambda: evidence.pod_allocations([dict(POD, memory=[{"memory_type": "m", "size": -1, "numa_nodes": [0]}])], "pod", FACTS),
     "pod_allocations: pods[0].memory[0].size must be an integer of 0 or more, got the number -1"),
    ("an extra key nested 70 deep", lambda: evidence.pod_allocations([dict(POD, extra=deep(70))], "pod", FACTS),
     "pod_allocations: pods[0].extra is nested deeper than 64 levels of mappings and lists; not read"),
    ("an argument nested 150 deep", lambda: evidence.pod_allocations(deep(150), "pod", FACTS),
     "pod_allocations: an argument is nested deeper than 100 levels of mappings and lists; not read"),
    ("placed containers a string", lambda: evidence.placement_findings(allocation(), {"found": True, "containers": "x"}, {}, FACTS),
     "placement_findings: placed.containers must be a list, got the string 'x'"),
    ("exclusive null", lambda: evidence.placement_findings(allocation(exclusive=None), None, {}, FACTS),
     "placement_findings: allocation.exclusive must be a mapping, got null"),
    ("min_local_fraction 2", lambda: evidence.placement_findings(allocation(), None, {}, FACTS, 2),
     "placement_findings: min_local_fraction must be a number from 0 to 1, got 2"),
    ("a container id a number", lambda: evidence.placement_findings(allocation(), None, {"main": 5}, FACTS),
     "placement_findings: container_ids.main must be a string, got the number 5"),
    ("a null sample", lambda: evidence.reservation_slack("0-1", [[None, SAMPLE]], FACTS),
     "reservation_slack: samples[0][0] is null: the cgroup's usage counter was not read (placement_info usage), so there is no sample"),
    ("three samples in a pair", lambda: evidence.reservation_slack("0-1", [[1, 2, 3]], FACTS),
     "reservation_slack: samples[0] must be a pair [first, second] of usage samples of one cgroup, got a list of 3"),
    ("a negative counter", lambda: evidence.reservation_slack("0-1", [[{"usage_ns": -5, "monotonic_ns": 0}, SAMPLE]], FACTS),
     "reservation_slack: samples[0][0]: usage_ns -5 is not a CPU usage counter in nanoseconds (a decimal integer from 0 to 2**63-1); "
     "refused as a measurement"),
    ("facts without cores", lambda: evidence.reservation_slack("0-1", [], {"cpus": {}}),
     "reservation_slack: topology must be the numa_gate_topology facts (a mapping with cores), got a mapping without cores"),
    ("a null finding", lambda: record.acceptance_record(FACTS, "h", {"findings": [None]}),
     "acceptance_record: inputs.findings[0] must be a finding (a mapping), got null"),
    ("versions a number", lambda: record.acceptance_record(FACTS, "h", {"versions": 5}),
     "acceptance_record: inputs.versions must be a mapping, got the number 5"),
    ("host a number", lambda: record.acceptance_record(FACTS, 5),
     "acceptance_record: acceptance record: host must be the inventory host name (a non-empty string), got 5"),
    ("inputs a string", lambda: record.acceptance_record(FACTS, "h", "x"),
     "acceptance_record: acceptance record: inputs must be a mapping of versions, plan, baseline_config, target_config, allocations, findings, "
     "canary, memory, admission_failure, configuration, metrics, effect, service_objectives, rollback, device_path, transport, slack, policy, previous, "
     "observed, driver_read, node_name, generated_at, got str"),
    ("an allocation pod without its name", lambda: record.acceptance_record(FACTS, "h", {"allocations": ALLOCATIONS}),
     "acceptance_record: inputs.allocations.pods[0] has no pod: one pod of pod_allocations has exclusive, pod, pod_cpus, scope, "
     "shared_containers, shared_cpus, shared_pool"),
    ("findings a string", lambda: record.acceptance_verdict({"placement": {"findings": "x"}}),
     "acceptance_verdict: evidence.placement.findings must be a list, got the string 'x'"),
    ("records null", lambda: record.acceptance_fleet(None),
     "acceptance_fleet: records must be a list, got null"),
    ("a record read back without its verdict", lambda: record.acceptance_fleet([{"host": "node-b", "mode": "full"}]),
     "acceptance_fleet: records[0] (host 'node-b') has no verdict: an acceptance record (acceptance_record) has host, mode, verdict"),
    ("a record without cores", lambda: record.acceptance_markdown(changed_record(["topology", "numa_nodes", 0, "cores"])),
     "acceptance_markdown: record.topology.numa_nodes[0] has no cores: a NUMA node of the record has cores, cpus, hugepages, id, memory_bytes"),
    ("a record of schema 2", lambda: record.acceptance_html(changed_record(["schema_version"], 2)),
     "acceptance_html: record.schema_version must be one of 1, got the number 2"),
]


@pytest.mark.parametrize("name,call,message", CASES, ids=[case[0] for case in CASES])
def test_a_hostile_shape_is_a_named_data_error(name, call, message):
    del name
    with pytest.raises(AnsibleFilterError) as caught:
        call()
    assert str(caught.value) == message
    assert isinstance(caught.value.__cause__, NumaGateError)


def test_the_shapes_this_collection_writes_still_pass():
    record_ = record.acceptance_record(FACTS, "h")
    assert record.acceptance_markdown(record_).startswith("# Acceptance record: h\n")
    assert 'data-host="h"' in record.acceptance_fleet([record_])
    assert evidence.pod_allocations([POD], "pod", FACTS)["pods"][0]["pod"] == "n/p"
