#!/usr/bin/python
# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
---
module: kubelet_metrics_info
short_description: Scrape a node's kubelet resource-manager metrics through the API server
version_added: 0.1.0
author: GPU Smith (@gpusmith)
extends_documentation_fragment:
  - gpusmith.numa_gate.kube_api
  - gpusmith.numa_gate.kube_api.node
  - gpusmith.numa_gate.controller
  - gpusmith.numa_gate.controller.read_only
description:
  - Runs on the controller (an action plugin) and reads C(/api/v1/nodes/<node>/proxy/metrics) with the C(kubernetes) Python client.
  - Keeps C(resource_manager_allocations_total), C(resource_manager_allocation_errors_total),
    C(resource_manager_container_assignments) and the older C(kubelet_cpu_manager_*), C(kubelet_memory_manager_*),
    C(kubelet_topology_manager_*) families, parsed with prometheus-client's text parser.
  - With O(previous) (an earlier result's C(scrape)), every cumulative series becomes a per-second rate; a series that went down
    is a counter reset and its increase is its new value.
  - A counter (or a histogram's C(_count) or C(_bucket)) below zero is not a count; the scrape is refused naming the series.
options:
  previous:
    description:
      - An earlier C(scrape) of the same node. It is checked before any request (a number C(timestamp), C(samples) each
        with a C(name), C(labels) of strings, a number C(value) and a C(type)); a scrape of another node is refused.
    type: dict
"""

EXAMPLES = r"""
- name: First scrape
  gpusmith.numa_gate.kubelet_metrics_info:
    node: gpu-node-1
  register: before

- name: Second scrape, with rates
  gpusmith.numa_gate.kubelet_metrics_info:
    node: gpu-node-1
    previous: "{{ before.scrape }}"
  register: after
"""

RETURN = r"""
scrape:
  description: C(node), C(timestamp) (controller clock, seconds) and C(samples) (C(name), C(labels), C(value), C(type)).
  returned: success
  type: dict
rates:
  description: Per series C(first), C(second), C(increase), C(reset), C(rate_per_second) (gauges only C(second)).
  returned: when previous is given
  type: list
  elements: dict
"""


from ansible.module_utils.basic import AnsibleModule

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence import specs

# The action's (plugins/action/kubelet_metrics_info.py), declared once in plugins/module_utils/_evidence/specs.py.
ARGUMENT_SPEC = specs.KUBELET_METRICS_INFO


def main():
    """This module runs as an action plugin on the controller; run on a host, it only says so."""
    module = AnsibleModule(argument_spec=ARGUMENT_SPEC, supports_check_mode=True)
    module.fail_json(msg="gpusmith.numa_gate.kubelet_metrics_info runs as an action plugin on the controller; this module file only holds its documentation")


if __name__ == "__main__":
    main()
