# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filters: pod_allocations, placement_findings, placement_recheck, reservation_slack, metrics_rates, placement_evidence (docs in <name>.yml)."""

from __future__ import annotations

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._device_path import dra_claims
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence.podresources import allocations
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence import compose
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence import metrics
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence.reconcile import findings as reconcile
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence.reconcile import recheck
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence import slack
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts import schema
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._plan import locality
from ansible_collections.gpusmith.numa_gate.plugins.plugin_utils.filters import adapt


def pod_allocations(pods, scope, topology, allocatable_cpus=None, resource_claims=None, resource_slices=None, node=None):
    """PodResources pods reconciled by scope (never double-counted), devices mapped through the topology's oracle; with
    ``resource_claims`` (and ``resource_slices``, ``node``) each DRA device is joined to its claim and slice."""
    def run(pods, scope, topology, allocatable_cpus, resource_claims, resource_slices, node):
        online = schema.kubelet_node(topology)["online_cpus"]
        dra = None if resource_claims is None else dra_claims.prepare(resource_claims, resource_slices or [], node)
        return allocations.reconcile_allocations(pods, scope, online, allocatable_cpus, locality.build(topology), dra)
    return adapt("pod_allocations", run, pods, scope, topology, allocatable_cpus, resource_claims, resource_slices, node)


def placement_findings(allocation, placed, container_ids, topology, min_local_fraction=reconcile.DEFAULT_MIN_LOCAL_FRACTION):
    """Findings for one pod: its reconciled allocation against its placement_info entry and the oracle."""
    def run(allocation, placed, container_ids, topology, min_local_fraction):
        return reconcile.reconcile_pod(allocation, placed, container_ids, locality.build(topology), min_local_fraction)
    return adapt("placement_findings", run, allocation, placed, container_ids, topology, min_local_fraction)


def placement_recheck(after, pod_resources, placement, topology, main_container=None):
    """The canary's placement checks for the pods a rehearsed rollback recreated (rehearsal_workloads' result after it)."""
    return adapt("placement_recheck", recheck.recheck, pod_resources, placement, after, topology, main_container)


def reservation_slack(reserved_cpus, samples, topology):
    """Slack of one reservation from pairs of usage samples, physical cores from the topology (SMT-aware)."""
    return adapt("reservation_slack", lambda r, s, t: slack.reservation_slack(r, s, slack.topology_cores(t)), reserved_cpus, samples, topology)


def metrics_rates(second, first):
    """Per-second rates of the cumulative kubelet metric series between two scrapes (reset-aware)."""
    return adapt("metrics_rates", metrics.rates, first, second)


def placement_evidence(reads):
    """One node's evidence, a value per source (`_evidence.sources.SOURCES`), from the evidence role's task results."""
    return adapt("placement_evidence", compose.compose, reads)


class FilterModule(object):
    """The evidence filters."""

    def filters(self):
        return {"pod_allocations": pod_allocations, "placement_findings": placement_findings, "placement_recheck": placement_recheck,
                "reservation_slack": reservation_slack, "metrics_rates": metrics_rates, "placement_evidence": placement_evidence}
