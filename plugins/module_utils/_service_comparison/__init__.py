# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The service comparison step: baseline against canary under the same load, quantiles as Prometheus computes them.

Import the submodules explicitly; this file holds only this map.

- ``pages/``: The service comparison's part of the pages: its table rows and drawings (pure).
- ``checks``: Whether baseline and canary runs measured the same work, before any quantile is compared (pure).
- ``compare``: Baseline against canary under the same load: comparability first, then the table and the objectives (pure).
- ``containment``: Where a load generator runs on the controller so that everything it starts can be ended: a cgroup made for it, or a pid namespace.
- ``errors``: The service comparison's one error.
- ``inputs``: The shapes of what the service comparison is given, checked before anything is read from them.
- ``load``: One run of the operator's load generator: a command in a box of its own on the controller, or a Job through the API; nothing left running.
- ``pod_metrics``: The workload's own pods' metrics, read through the API's pod proxy (controller side).
- ``objectives``: The operator's service objectives, checked against the comparison's table (pure).
- ``prometheus_rules``: Which of Prometheus' rules a server of a given version computes by (pure): each read from Prometheus' source at its tags.
- ``quantile``: PromQL's ``histogram_quantile`` on classic histogram buckets, computed locally (pure).
- ``query``: A measured window read from the operator's Prometheus server over its HTTP API (controller side).
- ``runs``: The load runs of a service comparison: the interleaved plan, the commands it renders, and the run record (pure).
- ``specs``: The service_load and service_window actions' argument specs, declared once: each action and module file import them.
- ``stats``: Run-to-run variation of the service measurements, and what a difference between the sides may claim (pure).
- ``window``: A measured window of a serving process from two scrapes of its own ``/metrics`` (pure).
"""
