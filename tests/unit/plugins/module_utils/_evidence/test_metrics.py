"""Kubelet metrics (_evidence/metrics.py): real Prometheus text, parsed by prometheus-client, rates across a counter reset.

The text is produced by prometheus-client's own exposition (generate_latest) from counters,
gauges and a histogram named and labelled as the kubelet's, so it is the real format, written
by a real exporter; the kubelet's own exposition (component-base) writes the same text format.
"""

import pytest
from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence import metrics
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence import nodefs


def scrape(allocations, errors, assignments, pinning, admissions):
    registry = CollectorRegistry()
    total = Counter("resource_manager_allocations", "allocations", ["resource_name", "source"], registry=registry)
    failed = Counter("resource_manager_allocation_errors", "errors", ["resource_name", "source"], registry=registry)
    kinds = Gauge("resource_manager_container_assignments", "assignments", ["resource_name", "assignment_type"], registry=registry)
    pins = Counter("kubelet_cpu_manager_pinning_requests", "pinning", registry=registry)
    durations = Histogram("kubelet_topology_manager_admission_duration_ms", "admission", buckets=(1, 10), registry=registry)
    Counter("kubelet_http_requests", "ignored", registry=registry).inc(7)
    for source, value in allocations.items():
        total.labels("cpu", source).inc(value)
    failed.labels("cpu", "pod").inc(errors)
    for kind, value in assignments.items():
        kinds.labels("cpu", kind).set(value)
    pins.inc(pinning)
    for value in admissions:
        durations.observe(value)
    return generate_latest(registry).decode()


def test_parse_keeps_the_resource_manager_families_only():
    parsed = metrics.parse(scrape({"pod": 3, "node": 1}, 0, {"pod_exclusive": 2, "pod_shared": 1, "node_exclusive": 0}, 4, [0.5]))
    names = sorted({s["name"] for s in parsed["samples"]})
    assert names == ["kubelet_cpu_manager_pinning_requests_total", "kubelet_topology_manager_admission_duration_ms_bucket",
                     "kubelet_topology_manager_admission_duration_ms_count", "kubelet_topology_manager_admission_duration_ms_sum",
                     "resource_manager_allocation_errors_total", "resource_manager_allocations_total",
                     "resource_manager_container_assignments"]
    assert {"name": "resource_manager_allocations_total", "labels": {"resource_name": "cpu", "source": "pod"}, "value": 3.0,
            "type": "counter"} in parsed["samples"]


def test_rates_across_a_counter_reset():
    first = {"timestamp": 100.0, **metrics.parse(scrape({"pod": 40, "node": 10}, 2, {"pod_exclusive": 2}, 50, [0.5, 5]))}
    # the kubelet restarted in between: every counter began again from 0
    second = {"timestamp": 160.0, **metrics.parse(scrape({"pod": 6, "node": 13}, 0, {"pod_exclusive": 3}, 3, [5]))}
    by = {(r["name"], tuple(sorted(r["labels"].items()))): r for r in metrics.rates(first, second)}
    pod = by[("resource_manager_allocations_total", (("resource_name", "cpu"), ("source", "pod")))]
    assert (pod["first"], pod["second"], pod["reset"], pod["increase"], pod["rate_per_second"]) == (40.0, 6.0, True, 6.0, 0.1)
    node = by[("resource_manager_allocations_total", (("resource_name", "cpu"), ("source", "node")))]
    assert (node["reset"], node["increase"], node["rate_per_second"]) == (False, 3.0, 0.05)
    pins = by[("kubelet_cpu_manager_pinning_requests_total", ())]
    assert (pins["reset"], pins["increase"], pins["rate_per_second"]) == (True, 3.0, 0.05)
    count = by[("kubelet_topology_manager_admission_duration_ms_count", ())]
    assert (count["first"], count["second"], count["reset"], count["increase"]) == (2.0, 1.0, True, 1.0)
    gauge = by[("resource_manager_container_assignments", (("assignment_type", "pod_exclusive"), ("resource_name", "cpu")))]
    assert gauge == {"name": "resource_manager_container_assignments", "labels": {"assignment_type": "pod_exclusive", "resource_name": "cpu"},
                     "type": "gauge", "second": 3.0}


def test_bad_text_and_bad_order():
    with pytest.raises(nodefs.EvidenceError, match="not in the Prometheus text format"):
        metrics.parse("resource_manager_allocations_total{resource_name=\"cpu\" 1\n")
    with pytest.raises(nodefs.EvidenceError, match=r"the second scrape \(5\) is not later than the first \(5\)"):
        metrics.rates({"timestamp": 5, "samples": []}, {"timestamp": 5, "samples": []})
