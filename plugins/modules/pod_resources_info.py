#!/usr/bin/python
# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
---
module: pod_resources_info
short_description: Read the kubelet's PodResources API v1 and reconcile it by Topology Manager scope
version_added: 0.1.0
author: GPU Smith (@gpusmith)
description:
  - Calls C(List) (or C(Get) for the pods named) and C(GetAllocatableResources) on the kubelet's PodResources socket,
    including the pod-level C(cpu_ids) and C(memory) fields (4 and 5) of Kubernetes 1.37.
  - Reconciles the allocations by O(scope) - under pod scope the pod-level set is the whole allocation and shared containers
    run on the pod set minus the exclusive containers' sets; under container scope shared containers run on the node's
    shared pool. Nothing is counted twice.
  - With O(topology), device IDs are mapped to the facts' GPU UUIDs, NICs and PCI addresses.
  - A missing socket, a refused call or a kubelet without the pod-level fields is a finding, never a failure.
  - Needs the Python libraries C(grpcio) and C(protobuf) on the node (the client was generated with grpcio-tools 1.85.1, protobuf 7.35).
options:
  root:
    description: Directory the socket path is resolved in (as in a chroot), V(/) on a node.
    type: path
    default: /
  socket:
    description: The PodResources unix socket.
    type: path
    default: /var/lib/kubelet/pod-resources/kubelet.sock
  pods:
    description: Pods to read with C(Get) (each C(name) and C(namespace)); empty reads every pod with C(List).
    type: list
    elements: dict
    default: []
  scope:
    description: The kubelet's C(topologyManagerScope).
    type: str
    choices: [pod, container]
    default: pod
  topology:
    description: The node's C(numa_gate_topology) facts (for online CPUs and device identities).
    type: dict
    required: true
  timeout:
    description: Seconds to wait for each call.
    type: float
    default: 5
attributes:
  check_mode:
    description: Reads only.
    support: full
  diff_mode:
    description: Changes nothing.
    support: none
"""

EXAMPLES = r"""
- name: Read the allocations
  gpusmith.numa_gate.pod_resources_info:
    topology: "{{ ansible_facts.numa_gate_topology }}"
    scope: pod
  register: allocations
"""

RETURN = r"""
reachable:
  description: Whether the kubelet answered.
  returned: success
  type: bool
pods:
  description: PodResources as the kubelet reported them (cpu_ids as cpulists).
  returned: success
  type: list
  elements: dict
allocatable:
  description: GetAllocatableResources, or null.
  returned: success
  type: dict
reconciled:
  description:
    - C(scope), C(pods) (per pod C(pod_cpus), C(exclusive), C(shared_containers), C(shared_cpus), C(shared_pool), C(memory), C(devices),
      C(findings)), C(node), C(findings).
  returned: success
  type: dict
findings:
  description: Every finding of the call and the reconciliation, each with C(check), C(result) and C(message).
  returned: success
  type: list
  elements: dict
"""

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.gpusmith.numa_gate.plugins.module_utils import _errors
from ansible_collections.gpusmith.numa_gate.plugins.module_utils import _fileio
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence import allocations
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence.podresources import client
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts import schema
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._plan import locality


def _body(module):
    params = module.params
    oracle = locality.build(params["topology"])
    online = schema.kubelet_node(params["topology"])["online_cpus"]
    socket = _fileio.resolve_within(params["root"], params["socket"])
    answer = client.read(socket, timeout=params["timeout"], pods=params["pods"] or None)
    allocatable = answer["allocatable"]["cpu_ids"] if answer["allocatable"] else None
    reconciled = allocations.reconcile_allocations(answer["pods"], params["scope"], online, allocatable, oracle)
    findings = answer["findings"] + reconciled["findings"] + [f for pod in reconciled["pods"] for f in pod["findings"]]
    module.exit_json(changed=False, socket=socket, reachable=answer["reachable"], pods=answer["pods"], allocatable=answer["allocatable"],
                     reconciled=reconciled, findings=findings)


def main():
    module = AnsibleModule(
        argument_spec=dict(
            root=dict(type="path", default="/"),
            socket=dict(type="path", default=client.DEFAULT_SOCKET),
            pods=dict(type="list", elements="dict", default=[]),
            scope=dict(type="str", choices=list(allocations.SCOPES), default="pod"),
            topology=dict(type="dict", required=True),
            timeout=dict(type="float", default=5.0),
        ),
        supports_check_mode=True,
    )
    _errors.run_module(module, _body, root=module.params["root"], socket=module.params["socket"])


if __name__ == "__main__":
    main()
