# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The verify step's evidence: where a pod's CPUs, pages and devices really are, and whether that agrees.

Import the submodules explicitly; this file holds only this map.

- ``nodefs``: `EvidenceError`, `read_text`, `list_dirs`, `is_dir`, `is_file` (node files through _fileio; cgroup files inside the mount).
- ``measures``: `count`, `number` (a measurement is the kernel's non-negative decimal integer or refused).
- ``inputs``: the shapes of the evidence filters' inputs (`check_pods`, `check_allocation`, `check_placed`, `check_samples`, ...).
- ``layout``: `pod_cgroup_candidates`, `container_of`, `is_pod_uid`, `QOS_CLASSES`, `DRIVERS` (the kubelet's cgroup names).
- ``cgroups``: `hierarchy`, `find_pod`, `cgroup_of_pid`, `relative_path`.  ``cpusets``: `effective_sets`, `processes`.
- ``threads``: `thread_masks`, `parse_status`.  ``numa_maps``: `parse`, `resident`, `local_fraction`, `add`.
- ``usage``: `read_usage`.  ``placement``: `read_pods`, `read_pids`, `process_placement` (the placement_info reading).
- ``podresources``: the proto, its generated client and `podresources.client.read`.
- ``allocations``: `reconcile_allocations`, `SCOPES` (PodResources by scope, never double-counted).
- ``devices``: `map_device`, `map_container_devices` (device IDs to the oracle's GPUs and NICs).
- ``reconcile``: `reconcile_pod`, `DEFAULT_MIN_LOCAL_FRACTION` (the findings, pure).
- ``slack``: `average_use`, `reservation_slack`, `compare`.  ``metrics``: `parse`, `rates`, `FAMILIES`.
- ``metrics_fetch``: `fetch_metrics` (controller side, through the API server's node proxy).
- ``histogram_quantile``: `bucket_quantile`, `parse_le` (PromQL's histogram_quantile over classic buckets).
- ``service_window``: `scrape_window`, `aggregate`, `DEFAULT_METRICS` (a window from two scrapes of a service's /metrics).
- ``service_query``: `query_window`, `instant_query`, `fetch_metrics_text` (a window from a Prometheus server's HTTP API).
- ``service_checks``: `comparability` (refusals and warnings).  ``service_stats``: `spread`, `difference`.
- ``service_objectives``: `check_objective`, `validate`.  ``service_compare``: `compare` (baseline against canary, the state).
- ``canary``: `manifest`, `qos_problems`, `admission` (the allocation canary and its admission by layer).
- ``sources``: `SOURCES`, the list of evidence sources the record iterates; ``compose``: `compose` (the placement_evidence
  fact from the role's task results); ``composition/<source>.py``: how each source's task result becomes evidence.
"""
