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
  - Calls C(List) (or C(Get) for up to two pods named) and C(GetAllocatableResources) on the kubelet's PodResources socket,
    including the pod-level C(cpu_ids) and C(memory) fields (4 and 5) of Kubernetes 1.37; at most 3 calls per reading
    (the kubelet limits this API to 100 calls a second, burst 10), so more pods named are picked from one C(List).
  - Reconciles the allocations by O(scope) - under pod scope the pod-level set is the whole allocation and shared containers
    run on the pod set minus the exclusive containers' sets; under container scope shared containers run on the node's
    shared pool. Nothing is counted twice.
  - With O(topology), device IDs are mapped to the facts' GPU UUIDs, NICs and PCI addresses.
  - A missing socket, a refused call or a kubelet without the pod-level fields is a finding, never a failure.
  - Needs the Python libraries C(grpcio) and C(protobuf) on the node, any C(protobuf) from 3.12 on and any C(grpcio) with
    C(unary_unary) calls (tested with 1.51 and 1.85) - the message classes are built at run time from the proto's descriptor
    set, not generated code with a version check. The P(gpusmith.numa_gate.podresources_client#role) role installs them (the
    OS packages C(python3-grpcio) and C(python3-protobuf) on Debian and Ubuntu, a virtualenv on the RHEL family) and names
    the Python interpreter to run this module with.
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
    description:
      - Pods to read with C(Get) (each C(name) and C(namespace)); empty reads every pod with C(List).
      - Each entry must have both, a C(name) that is a DNS-1123 subdomain and a C(namespace) that is a DNS-1123 label (the API
        server's rules), and nothing else; any other entry is refused before a call is made.
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
    description:
      - Seconds all the calls may take together (one deadline; a call it leaves no time for is not made, and is a finding).
      - An answer larger than 16 MiB (the kubelet's own client's bound) is refused by gRPC and is a finding.
    type: float
    default: 5
  resource_claims:
    description:
      - The ResourceClaims (C(resource.k8s.io/v1) items) of the pods' namespaces, read from the API on the controller
        (M(kubernetes.core.k8s_info)). With O(node_name), each DRA device PodResources reports is joined to its claim's
        C(status.allocation) and to the ResourceSlice device of the node (NUMA node, PCI address, UUID), and compared with the
        pod's CPUs and memory.
      - Unset, each DRA device is matched by name only and is an unknown C(dra_claim) finding, never agreement.
    type: list
    elements: dict
  resource_slices:
    description: The ResourceSlices of the node (C(resource.k8s.io/v1) items), read with O(resource_claims).
    type: list
    elements: dict
    default: []
  node_name:
    description: The Kubernetes Node's name, whose ResourceSlices are joined; required with O(resource_claims).
    type: str
extends_documentation_fragment:
  - gpusmith.numa_gate.read_only
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
libraries:
  description:
    - The node's libraries that read the answer - C(protobuf) (version), C(protobuf_implementation) (python, cpp or upb),
      C(message_classes) (V(GetMessageClass) or V(MessageFactory.GetPrototype)) and C(grpcio) (version).
  returned: success
  type: dict
  sample: {protobuf: "4.21.12", protobuf_implementation: cpp, message_classes: MessageFactory.GetPrototype, grpcio: "1.51.1"}
findings:
  description: Every finding of the call and the reconciliation, each with C(check), C(result) and C(message).
  returned: success
  type: list
  elements: dict
"""

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import errors as _errors
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import fileio as _fileio
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import k8s_names as _k8s_names
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._device_path import dra_claims
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence.podresources import allocations
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence.podresources import client
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts import schema
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._plan import locality


def _body(module):
    params = module.params
    pods = _k8s_names.pod_refs(params["pods"], "pods") if params["pods"] else None
    if not params["timeout"] > 0:
        raise _errors.NumaGateError("timeout must be more than 0 seconds, not %r" % (params["timeout"],))
    oracle = locality.build(params["topology"])
    online = schema.kubelet_node(params["topology"])["online_cpus"]
    # The claims and slices are checked before any call: a wrong shape is refused with nothing asked of the kubelet.
    dra = None
    if params["resource_claims"] is not None:
        dra = dra_claims.prepare(params["resource_claims"], params["resource_slices"], params["node_name"])
    socket = _fileio.resolve_within(params["root"], params["socket"])
    answer = client.read(socket, timeout=params["timeout"], pods=pods)
    allocatable = answer["allocatable"]["cpu_ids"] if answer["allocatable"] else None
    reconciled = allocations.reconcile_allocations(answer["pods"], params["scope"], online, allocatable, oracle, dra)
    findings = answer["findings"] + reconciled["findings"] + [f for pod in reconciled["pods"] for f in pod["findings"]]
    module.exit_json(changed=False, socket=socket, reachable=answer["reachable"], pods=answer["pods"], allocatable=answer["allocatable"],
                     reconciled=reconciled, libraries=answer["libraries"], findings=findings)


def main():
    module = AnsibleModule(
        argument_spec=dict(
            root=dict(type="path", default="/"),
            socket=dict(type="path", default=client.DEFAULT_SOCKET),
            pods=dict(type="list", elements="dict", default=[]),
            scope=dict(type="str", choices=list(allocations.SCOPES), default="pod"),
            topology=dict(type="dict", required=True),
            timeout=dict(type="float", default=5.0),
            resource_claims=dict(type="list", elements="dict"),
            resource_slices=dict(type="list", elements="dict", default=[]),
            node_name=dict(type="str"),
        ),
        required_by={"resource_claims": "node_name"},
        supports_check_mode=True,
    )
    _errors.run_module(module, _body, root=module.params["root"], socket=module.params["socket"])


if __name__ == "__main__":
    main()
