#!/usr/bin/python
# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
---
module: stack_info
short_description: Read the versions a node and its cluster run, each with where and when it was read, through the API server
version_added: 0.1.0
author: GPU Smith (@gpusmith)
extends_documentation_fragment:
  - gpusmith.numa_gate.kube_api
  - gpusmith.numa_gate.kube_api.node
  - gpusmith.numa_gate.controller
  - gpusmith.numa_gate.controller.read_only
description:
  - Runs on the controller (an action plugin) and reads C(/version) (the control plane), kube-apiserver's C(/metrics)
    (its C(kubernetes_feature_enabled) series, for the feature gates), and the Node (its labels; the kubelet, container runtime,
    kernel and OS image of C(status.nodeInfo)).
  - With O(workloads), also the Deployments and DaemonSets of every namespace, to find the GPU Operator, the Network Operator,
    the NVIDIA device plugin, the NVIDIA DRA driver and the SR-IOV device plugin by their image's name; the version is the image's
    tag, else the workload's C(app.kubernetes.io/version) label.
  - Each version is dated with the controller's UTC clock and names where it was read. Not found is C(not found); a failed read
    is C(read failed) with its error, never silence.
  - The collection's C(docs/stack.md) describes the result; C(playbooks/enable.yml) refuses a node that is not eligible from it.
options:
  workloads:
    description: Also read the Deployments and DaemonSets of every namespace (the operators and device plugins).
    type: bool
    default: false
"""

EXAMPLES = r"""
- name: Read the node's stack
  gpusmith.numa_gate.stack_info:
    node: gpu-node-1
    workloads: true
  register: stack
"""

RETURN = r"""
read_at:
  description: When the reads began, the controller's clock in UTC (C(YYYY-MM-DDTHH:MM:SSZ)).
  returned: success
  type: str
observed:
  description: One entry per component - C(component), C(version) (null when unknown), C(state) (C(found), C(not found),
    C(read failed)), C(source) (where it was read), C(read_at), C(error).
  returned: success
  type: list
  elements: dict
versions:
  description: The record's map, a key per component found or whose read failed (null - unknown); a component not found has no key.
  returned: success
  type: dict
control_plane_gates:
  description: kube-apiserver's feature gates by name (true or false), null when its /metrics could not be read.
  returned: success
  type: dict
control_plane_gates_error:
  description: Why kube-apiserver's /metrics could not be read, or null.
  returned: success
  type: str
labels:
  description: The Node's labels, null when the Node could not be read.
  returned: success
  type: dict
node_error:
  description: Why the Node could not be read, or null.
  returned: success
  type: str
"""


from ansible.module_utils.basic import AnsibleModule

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._stack import specs

# The action's (plugins/action/stack_info.py), declared once in plugins/module_utils/_stack/specs.py.
ARGUMENT_SPEC = specs.STACK_INFO


def main():
    """This module runs as an action plugin on the controller; run on a host, it only says so."""
    module = AnsibleModule(argument_spec=ARGUMENT_SPEC, supports_check_mode=True)
    module.fail_json(msg="gpusmith.numa_gate.stack_info runs as an action plugin on the controller; this module file only holds its documentation")


if __name__ == "__main__":
    main()
