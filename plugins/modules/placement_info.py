#!/usr/bin/python
# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
---
module: placement_info
short_description: Read where pods' or processes' CPUs, memory nodes and resident pages really are
version_added: 0.1.0
author: GPU Smith (@gpusmith)
description:
  - For pods given by UID, found in the kubelet's cgroup hierarchy (cgroup v1 and v2, the cgroupfs and systemd drivers,
    Guaranteed, Burstable and BestEffort), or for PIDs, reads each container cgroup's effective CPUs and memory nodes,
    every thread's allowed CPUs and memory nodes (C(/proc/<pid>/task/*/status), as C(taskset -a) sees them), resident pages
    per NUMA node from C(numa_maps) in bytes with huge pages apart, and the cgroup's CPU usage counter with its timestamp.
  - Each pod and container cgroup's C(memory.numa_stat) as C(numa_stat) - bytes per NUMA node by type (C(anon), C(file), C(shmem),
    C(kernel)) with huge pages apart (C(anon_thp), C(file_thp), C(shmem_thp), C(hugetlb)), from cgroup v2's bytes or cgroup v1's pages
    times the page size (C(format), C(unit) say which) - and C(permitted), the share of its bytes on its permitted memory nodes
    (its effective C(mems)). A type the file has that this module does not know, a negative or malformed count, is a finding in
    C(numa_stat.findings), never a failure and never dropped.
  - With O(expected_numa_nodes), each process and container also gets its local-byte fraction.
  - Reads only. The findings (agreement with PodResources and the locality oracle) are the C(placement_findings) filter's.
  - A value that cannot be a measurement - a negative or signed page count, a page size that is not a positive power of two,
    a negative usage counter, a PID in C(cgroup.procs) that is not a positive integer - fails the task naming the file, the
    field and the value; it is never reported. A cgroup path with a C(..) component (from C(/proc/<pid>/cgroup), as the kernel
    writes it for a process in another cgroup namespace, or in O(cgroup_root)), or a link that leads out of C(sys/fs/cgroup),
    is refused, never read.
options:
  root:
    description:
      - Directory under which C(sys/) and C(proc/) are read, as in M(gpusmith.numa_gate.topology_facts). V(/) on a node; a recorded tree in tests.
    type: path
    default: /
  pod_uids:
    description: UIDs of the pods to read (C(metadata.uid)).
    type: list
    elements: str
    default: []
  pids:
    description: Process IDs to read.
    type: list
    elements: int
    default: []
  cgroup_root:
    description: The kubelet's C(--cgroup-root) (C(cgroupRoot)), under which C(kubepods) lies.
    type: str
    default: /
  expected_numa_nodes:
    description: NUMA nodes the locality oracle expects the memory on; omitted, no fraction is computed.
    type: list
    elements: int
extends_documentation_fragment:
  - gpusmith.numa_gate.read_only
"""

EXAMPLES = r"""
- name: Read the canary pod's placement
  gpusmith.numa_gate.placement_info:
    pod_uids: ["{{ pod.metadata.uid }}"]
    expected_numa_nodes: [1]
  register: placement
"""

RETURN = r"""
cgroup:
  description: The cgroup version and the mounts read (C(version), C(cpuset), C(cpuacct)).
  returned: success
  type: dict
pods:
  description:
    - One entry per UID - C(found), C(driver), C(qos), C(cgroup), C(cpus), C(mems), C(usage) and C(containers)
      (each with C(id), C(runtime), C(cpus), C(mems), C(cpus_source), C(usage), C(cpu_max), C(processes), C(memory), C(numa_stat),
      C(permitted), C(local)).
    - C(numa_stat) is C(format) (C(v1) or C(v2)), C(unit), C(source), C(bytes), C(huge_bytes) (v2), C(breakdown) and C(events) (v2),
      C(hierarchical_bytes) (v1), C(resident_bytes) and C(findings); null when the cgroup has no memory.numa_stat.
    - C(permitted) is C(nodes), C(local_bytes), C(total_bytes), C(fraction) and C(source) (C(memory.numa_stat), else C(numa_maps)).
  returned: success
  type: list
  elements: dict
processes:
  description: One entry per PID - C(threads), C(memory), its cgroup's C(cpus) and C(mems), C(usage).
  returned: success
  type: list
  elements: dict
"""

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import errors as _errors
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence.placement import read as placement


def _body(module):
    params = module.params
    if not params["root"]:
        raise _errors.NumaGateError("root must be a directory, not empty")
    expected = params["expected_numa_nodes"]
    tree, pods = placement.read_pods(params["root"], params["pod_uids"], params["cgroup_root"], expected) if params["pod_uids"] else (None, [])
    processes = []
    if params["pids"]:
        tree, processes = placement.read_pids(params["root"], params["pids"], expected)
    if tree is None:
        raise _errors.NumaGateError("give pod_uids or pids: there is nothing to read")
    module.exit_json(changed=False, cgroup=tree, pods=pods, processes=processes)


def main():
    module = AnsibleModule(
        argument_spec=dict(
            root=dict(type="path", default="/"),
            pod_uids=dict(type="list", elements="str", default=[]),
            pids=dict(type="list", elements="int", default=[]),
            cgroup_root=dict(type="str", default="/"),
            expected_numa_nodes=dict(type="list", elements="int"),
        ),
        supports_check_mode=True,
    )
    _errors.run_module(module, _body, root=module.params["root"])


if __name__ == "__main__":
    main()
