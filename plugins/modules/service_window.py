#!/usr/bin/python
# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
---
module: service_window
short_description: Read a measured window of a serving process, from its own /metrics or from Prometheus
version_added: 0.1.0
author: GPU Smith (@gpusmith)
extends_documentation_fragment:
  - gpusmith.numa_gate.kube_api
  - gpusmith.numa_gate.controller
  - gpusmith.numa_gate.controller.read_only
description:
  - Runs on the controller (an action plugin); reads only.
  - With O(metrics_url), one GET of the service's C(/metrics), stamped with the controller's clock and trimmed to the compared
    metrics (C(scrape)); with O(previous), an earlier C(scrape), the window between them (C(window)), each series' increase taken
    before the series are summed, a series that went down counted from zero and flagged C(reset).
  - With O(prometheus_url), O(start) and O(end), the window from the operator's Prometheus server over its HTTP API
    (C(increase()) over exactly O(end) - O(start) at O(end), C(resets()) for restarts).
  - With O(pods), the workload's own pods (the canary's evidence subjects, C(canary_result.pods)) - each read back through the API
    by name and required to be still the pod of its uid, then its metrics read with one GET of
    C(/api/v1/namespaces/<ns>/pods/<name>:<port>/proxy/<path>) through the API server (the connection options, kubernetes.core's, or
    their C(K8S_AUTH_*) variables). With O(previous) (an earlier C(scrape) of the same pods), the window between them, each pod's series
    its own, then summed; a pod only in one of the two readings is refused.
  - Defaults name vLLM's metrics; O(mapping) names another server's. The window is an input of
    P(gpusmith.numa_gate.service_comparison#filter). See the collection's C(docs/service-comparison.md).
options:
  metrics_url:
    description:
      - The service's metrics endpoint, for example C(http://10.0.0.5:8000/metrics). Exactly one of this, O(prometheus_url) and O(pods).
    type: str
  pods:
    description:
      - "The workload's pods, each C({pod: <namespace>/<name>, uid}) (the entries of C(canary_result.pods); other keys are ignored), read
        through the API's pod proxy on O(metrics_port)."
    type: list
    elements: dict
  metrics_port:
    description: The pods' metrics port (with O(pods)), for example C(8000).
    type: int
  metrics_path:
    description: The path after C(/proxy/) (with O(pods)).
    type: str
    default: metrics
  previous:
    description: The C(scrape) of an earlier run of this module against the same service (the start of the measured part).
    type: dict
  prometheus_url:
    description:
      - The Prometheus server, for example C(http://prometheus:9090).
      - A C(user:password@) in this or O(metrics_url) is sent as basic authentication (unless O(headers) has an C(Authorization))
        and masked in every message and in C(scrape.url). The environment's C(http_proxy), C(https_proxy) and C(no_proxy) apply.
    type: str
  start:
    description: The start of the measured part, seconds since the epoch (with O(prometheus_url)).
    type: float
  end:
    description: The end of the measured part, seconds since the epoch (with O(prometheus_url)).
    type: float
  mapping:
    description: Metric keys (C(ttft), C(itl), C(tpot), C(e2e), C(requests), C(prefix_cache_queries), C(prefix_cache_hits)) to metric names.
    type: dict
    default: {}
  match:
    description:
      - "Labels every series must carry, for example C({model_name: llama, namespace: canary})."
      - "A list of values is any of them, for example C({pod: [server-0, server-1]}) (a regex matcher of the values, each escaped)."
    type: dict
    default: {}
  headers:
    description: HTTP headers for the requests, for example C(Authorization). Never logged.
    type: dict
    default: {}
  timeout:
    description:
      - Seconds each request may take, from connecting to the last byte of the answer (one deadline for the whole exchange,
        so a server that trickles its answer ends there too; no retry).
    type: float
    default: 10.0
  max_bytes:
    description: The most bytes read from one answer; a larger answer fails naming the bound.
    type: int
    default: 4194304
"""

EXAMPLES = r"""
- name: Scrape at the start of the measured part
  gpusmith.numa_gate.service_window:
    metrics_url: http://10.0.0.5:8000/metrics
  register: start

- name: Scrape at its end, with the window
  gpusmith.numa_gate.service_window:
    metrics_url: http://10.0.0.5:8000/metrics
    previous: "{{ start.scrape }}"
  register: end

- name: The canary's own pods through the API's pod proxy, at the start of the measured part
  gpusmith.numa_gate.service_window:
    pods: "{{ canary_result.pods }}"
    metrics_port: 8000
  register: pods_start

- name: At its end, with the window
  gpusmith.numa_gate.service_window:
    pods: "{{ canary_result.pods }}"
    metrics_port: 8000
    previous: "{{ pods_start.scrape }}"
  register: pods_end

- name: The same window from Prometheus
  gpusmith.numa_gate.service_window:
    prometheus_url: http://prometheus:9090
    start: "{{ start.scrape.timestamp }}"
    end: "{{ end.scrape.timestamp }}"
    match: {model_name: llama}
  register: queried
"""

RETURN = r"""
scrape:
  description:
    - C(url), C(timestamp) (controller clock, seconds) and C(text) (the compared metrics' lines of the scrape).
    - With O(pods), C(timestamp), C(via) and C(pods) (each C(pod), C(uid), C(text)).
  returned: with metrics_url or pods
  type: dict
window:
  description:
    - C(source) (scrape or prometheus), C(start), C(end), C(duration), C(metrics) by key (histograms C(buckets), C(count), C(sum),
      C(series), C(reset); counters C(total), C(by), C(series), C(reset); C(type) summary or null otherwise); with O(pods) also
      C(pods) (each C(pod) and C(uid)).
    - With O(prometheus_url) also C(range), C(prometheus_version), C(prometheus_rules) (the major version's rules, C(2.x),
      C(3.x) or C(unknown)) and C(rules) (each of Prometheus' rules that version computes by, and C(checked)); each histogram
      then has C(quantile_rule) (C(running-max) to 2.48, C(small-deltas) from 2.49).
  returned: with previous, or with prometheus_url
  type: dict
"""


from ansible.module_utils.basic import AnsibleModule

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._service_comparison import specs

# The action's (plugins/action/service_window.py), declared once in plugins/module_utils/_service_comparison/specs.py.
ARGUMENT_SPEC = specs.SERVICE_WINDOW


def main():
    """This module runs as an action plugin on the controller; run on a host, it only says so."""
    module = AnsibleModule(argument_spec=ARGUMENT_SPEC, supports_check_mode=True)
    module.fail_json(msg="gpusmith.numa_gate.service_window runs as an action plugin on the controller; this module file only holds its documentation")


if __name__ == "__main__":
    main()
