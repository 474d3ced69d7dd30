# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The shapes of what the evidence filters are given, checked before anything is read from them.

Public: `check_pods`, `check_allocation`, `check_placed`, `check_container_ids`, `check_fraction`, `check_samples`,
`POD`, `ALLOCATION`, `FINDING`, `PLACED_VIEW`, `MEMORY_BYTES`.

The values come from this collection's own modules (`pod_resources_info`'s ``pods``, `pod_allocations`'
``pods``, `placement_info`'s ``pods``, a usage sample), but a filter is given whatever the play hands it: a
pod without a name, a container list that is a string, a sample that is null. Each is refused with the
path of the part that does not fit (``pods[0].containers[1].name``) and what it should be; nothing
downstream ever sees a KeyError or a TypeError.
"""

from __future__ import annotations

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import shape_check as S
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence import measures
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence import nodefs

_E = nodefs.EvidenceError

MEMORY_BLOCK = S.Fields("a PodResources memory block", {"memory_type": S.STR, "size": S.COUNT, "numa_nodes": S.ListOf(S.COUNT)})
DEVICE_GROUP = S.Fields("a PodResources device group", {"resource_name": S.STR, "device_ids": S.ListOf(S.STR)}, {"numa_nodes": S.ListOf(S.COUNT)})
CLAIM_RESOURCE = S.Fields("a PodResources claim resource", {"driver_name": S.STR, "pool_name": S.STR, "device_name": S.STR},
                          {"cdi_devices": S.ListOf(S.STR)})
DYNAMIC_RESOURCE = S.Fields("a PodResources dynamic resource", {}, {"claim_name": S.STR, "claim_namespace": S.STR,
                                                                    "claim_resources": S.ListOf(CLAIM_RESOURCE)})
CONTAINER = S.Fields("a PodResources container", {"name": S.STR, "cpu_ids": S.STR, "devices": S.ListOf(DEVICE_GROUP),
                                                  "memory": S.ListOf(MEMORY_BLOCK), "dynamic_resources": S.ListOf(DYNAMIC_RESOURCE)})
POD = S.Fields("a PodResources pod (as pod_resources_info returns it)",
               {"name": S.STR, "namespace": S.STR, "cpu_ids": S.STR, "memory": S.ListOf(MEMORY_BLOCK), "containers": S.ListOf(CONTAINER)})

FINDING = S.Fields("a finding", {"check": S.STR, "result": S.OneOf("agree", "disagree", "unknown"), "message": S.STR},
                   {"pod": S.Nullable(S.STR), "container": S.Nullable(S.STR), "expected": S.ANY, "observed": S.ANY, "sources": S.MAPPING})
MAPPED_DEVICE = S.Fields("a mapped device (pod_allocations devices)",
                         {"resource_name": S.STR, "id": S.STR, "kind": S.Nullable(S.OneOf("gpu", "nic")), "numa_node": S.Nullable(S.COUNT),
                          "pci_address": S.Nullable(S.STR), "numa_source": S.Nullable(S.STR)},
                         {"uuid": S.Nullable(S.STR), "name": S.Nullable(S.STR)})
ALLOCATION = S.Fields("one pod of pod_allocations", {
    "pod": S.STR, "scope": S.OneOf("pod", "container"), "exclusive": S.MapOf(S.STR), "shared_containers": S.ListOf(S.STR),
    "shared_cpus": S.Nullable(S.STR), "shared_pool": S.Nullable(S.OneOf("pod", "node")), "pod_cpus": S.Nullable(S.STR)},
    {"findings": S.ListOf(FINDING), "devices": S.MapOf(S.ListOf(MAPPED_DEVICE))})

NODE_BYTES = S.MapOf(S.COUNT, keys=S.DECIMAL)
MEMORY_BYTES = S.Fields("resident memory (placement_info memory)",
                        {"normal_bytes": NODE_BYTES, "huge_bytes": S.MapOf(NODE_BYTES), "mappings": S.COUNT})
THREAD = S.Fields("a thread (placement_info threads)", {"tid": S.COUNT, "cpus": S.STR}, {"name": S.Nullable(S.STR), "mems": S.STR})
PROCESS = S.Fields("a process (placement_info processes)", {"threads": S.ListOf(THREAD)}, {"pid": S.COUNT, "memory": MEMORY_BYTES})
PLACED_VIEW = S.Fields("a container of placement_info", {"id": S.STR, "cpus": S.Nullable(S.STR), "cpus_source": S.Nullable(S.STR),
                                                         "mems": S.Nullable(S.STR), "processes": S.ListOf(PROCESS), "memory": MEMORY_BYTES})
_PLACED = S.Fields("a pod of placement_info", {"found": S.BOOL})
_FOUND = S.Fields("a pod of placement_info that was found", {"found": S.BOOL, "containers": S.ListOf(PLACED_VIEW)}, {"mems": S.Nullable(S.STR)})
SAMPLE = S.Fields("a usage sample (placement_info usage)", {"usage_ns": S.ANY, "monotonic_ns": S.ANY}, {"source": S.Nullable(S.STR)})


def check_pods(pods):
    """``pods`` (PodResources pods) if they have their shape; EvidenceError naming the first part that does not."""
    return S.check(pods, S.ListOf(POD), "pods", _E)


def check_allocation(allocation):
    return S.check(allocation, ALLOCATION, "allocation", _E)


def check_placed(placed):
    """A placement_info pod entry, or null (not read): found ones need their containers."""
    if placed is None:
        return None
    S.check(placed, _PLACED, "placed", _E)
    return S.check(placed, _FOUND, "placed", _E) if placed["found"] else placed


def check_container_ids(container_ids):
    return S.check(container_ids, S.Nullable(S.MapOf(S.STR)), "container_ids", _E)


def check_fraction(value):
    """min_local_fraction: a number from 0 to 1."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
        raise _E("min_local_fraction must be a number from 0 to 1, got %r" % (value,), field="min_local_fraction")
    return value


def check_sample(sample, where):
    """One usage sample: a mapping whose usage_ns and monotonic_ns are plausible counters (`measures.number`)."""
    if sample is None:
        raise _E("%s is null: the cgroup's usage counter was not read (placement_info usage), so there is no sample" % where, field=where)
    S.check(sample, SAMPLE, where, _E)
    measures.number(sample["usage_ns"], where, "usage_ns", "a CPU usage counter in nanoseconds")
    measures.number(sample["monotonic_ns"], where, "monotonic_ns", "a CLOCK_MONOTONIC reading in nanoseconds")
    return sample


def check_samples(samples):
    """[(first, second)]: a list of pairs of usage samples of one cgroup each."""
    S.check(samples, S.LIST, "samples", _E)
    pairs = []
    for index, pair in enumerate(samples):
        if not isinstance(pair, (list, tuple)) or len(pair) != 2:
            raise _E("samples[%d] must be a pair [first, second] of usage samples of one cgroup, got %s"
                     % (index, "a list of %d" % len(pair) if isinstance(pair, (list, tuple)) else type(pair).__name__), field="samples[%d]" % index)
        pairs.append((check_sample(pair[0], "samples[%d][0]" % index), check_sample(pair[1], "samples[%d][1]" % index)))
    return pairs
