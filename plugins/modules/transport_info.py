#!/usr/bin/python
# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
---
module: transport_info
short_description: Read the transport variables of pods' main container process on the node
version_added: 0.1.0
author: GPU Smith (@gpusmith)
description:
  - For each pod given by UID and the container IDs the API reports, finds the named container's cgroup in the kubelet's
    hierarchy (as M(gpusmith.numa_gate.placement_info) does), its main process (the one whose parent is outside the container),
    and reads from its C(/proc/<pid>/environ) only C(UCX_NET_DEVICES), C(NCCL_IB_HCA) and C(NCCL_SOCKET_IFNAME).
  - No other variable is read into the result, returned or logged.
  - The environ file is opened with C(O_NONBLOCK) and checked with C(fstat) before any read, bounded to 2 MiB and 2 seconds; a FIFO,
    device, a larger file, a slow read, or content that is not C(KEY=VALUE) text (binary) is a C(problem) of that entry, never a
    failure and never a hang.
  - Reads only. What the values select and how that compares with the GPUs' nearest NIC is the evidence role's composition
    (the C(transport) source).
options:
  root:
    description:
      - Directory under which C(sys/) and C(proc/) are read, as in M(gpusmith.numa_gate.topology_facts). V(/) on a node; a recorded tree in tests.
    type: path
    default: /
  pods:
    description:
      - The pods to read, each C(uid) (C(metadata.uid)) and C(container_ids) (container name to the ID the API reports,
        C(containerd://<id>) accepted), as the canary role's C(canary_result.pods) gives them.
    type: list
    elements: dict
    required: true
  container:
    description: The name of the main container, the one whose transport is read.
    type: str
    default: main
  cgroup_root:
    description: The kubelet's C(--cgroup-root) (C(cgroupRoot)), under which C(kubepods) lies.
    type: str
    default: /
extends_documentation_fragment:
  - gpusmith.numa_gate.read_only
"""

EXAMPLES = r"""
- name: Read the canary's transport variables
  gpusmith.numa_gate.transport_info:
    pods: "{{ canary_result.pods }}"
    container: main
  register: transport
"""

RETURN = r"""
containers:
  description:
    - One entry per pod - C(uid), C(container), C(container_id), C(pid) (the main process, or null), C(problem) (why it could not be
      read, or null) and C(environ) (C(pid), C(read), C(values) - only the three keys that are set, C(problem), C(bytes)), or null.
  returned: success
  type: list
  elements: dict
  sample: [{uid: 0a1b2c3d-0000-4000-8000-000000000001, container: main, container_id: 4f2e, pid: 4242, problem: null,
            environ: {pid: 4242, read: true, values: {NCCL_IB_HCA: "=mlx5_2"}, problem: null, bytes: 1830}}]
"""

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import errors as _errors
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence.transport import read as transport


def _body(module):
    params = module.params
    if not params["root"]:
        raise _errors.NumaGateError("root must be a directory, not empty")
    for number, pod in enumerate(params["pods"]):
        if not isinstance(pod.get("uid"), str) or not isinstance(pod.get("container_ids") or {}, dict):
            raise _errors.NumaGateError("pods[%d] %r: expected uid (a string) and container_ids (container name: ID)" % (number, pod))
    containers = transport.read_pods(params["root"], params["pods"], params["container"], params["cgroup_root"])
    module.exit_json(changed=False, containers=containers)


def main():
    module = AnsibleModule(
        argument_spec=dict(
            root=dict(type="path", default="/"),
            pods=dict(type="list", elements="dict", required=True),
            container=dict(type="str", default="main"),
            cgroup_root=dict(type="str", default="/"),
        ),
        supports_check_mode=True,
    )
    _errors.run_module(module, _body, root=module.params["root"])


if __name__ == "__main__":
    main()
