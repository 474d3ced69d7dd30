#!/usr/bin/python
# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
---
module: kubelet_checkpoint_info
short_description: Read the kubelet's CPU and Memory Manager checkpoints and verify their checksums
version_added: 0.1.0
author: GPU Smith (@gpusmith)
description:
  - Reads C(cpu_manager_state) (formats V1, V2, the 1.36 V3 with C(podEntries), the 1.37 V4 with C(data) and
    C(dataChecksum)) and C(memory_manager_state) (V1, V2, the 1.37 V3) as the 1.37 kubelet reads them.
  - Recomputes every checksum the way the kubelet does (the legacy struct hash and the new C(dataChecksum)) and reports
    each as C(valid), C(invalid) or C(absent), never a guess.
  - Reports the policy (from C(data) where present), the default CPU set, container and pod-level entries, the memory
    machine state, and what a 1.36 kubelet would keep of the file after a downgrade and what it would lose.
  - With O(config), also says whether the kubelet would refuse to start over these files under that configuration,
    in the kubelet's words.
  - Changes nothing.
options:
  root:
    description: Where the node's file system is; V(/) on a node, a copy of it in tests. Paths never leave it.
    type: path
    default: /
  kubelet_root_dir:
    description: The kubelet's C(--root-dir), where the checkpoint files are.
    type: path
    default: /var/lib/kubelet
  config:
    description:
      - The target effective kubelet configuration (for example RV(gpusmith.numa_gate.kubelet_config_info#module:effective)).
      - When set, RV(refusals) says for each file whether the kubelet would refuse it under this configuration.
    type: dict
  node:
    description:
      - The machine, for the online-CPU and per-NUMA memory checks; the C(numa_gate_topology) facts or their summary
        C({online_cpus, numa_nodes, memory_bytes}). Without it those checks are skipped.
    type: dict
extends_documentation_fragment:
  - gpusmith.numa_gate.read_only
"""

EXAMPLES = r"""
- name: Read the checkpoints
  gpusmith.numa_gate.kubelet_checkpoint_info:
  register: checkpoints

- name: Would the kubelet start under the planned configuration?
  gpusmith.numa_gate.kubelet_checkpoint_info:
    config: "{{ planned_effective_config }}"
    node: "{{ ansible_facts.numa_gate_topology }}"
  register: checkpoints
"""

RETURN = r"""
checkpoints:
  description: For C(cpu) and C(memory), the report on its file.
  returned: always
  type: dict
  contains:
    cpu:
      description:
        - C(path), C(present), C(format), C(load) (whether 1.37 would load it), C(problem) (why not, in the kubelet's
          words), C(policy), C(default_cpu_set), C(entries), C(pod_entries), C(checksums) (each with C(status),
          C(stored), C(computed)), C(downgrade) (C(reads_as), C(keeps), C(loses)), C(sha256).
      type: dict
    memory:
      description: As for C(cpu), with C(machine_state) instead of C(default_cpu_set).
      type: dict
refusals:
  description: For C(cpu) and C(memory), the kubelet's refusal under O(config), or null when it would start.
  returned: when O(config) is set
  type: dict
  sample: {cpu: null, memory: "[memorymanager] the expected machine state is different from the real one"}
"""

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import errors as _errors
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts import schema
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kubelet.checkpoints import files as checkpoint_files


def run(module):
    params = module.params
    reports = checkpoint_files.read_all(params["root"], params["kubelet_root_dir"])
    result = {"changed": False, "checkpoints": reports}
    if params["config"] is not None:
        node = schema.kubelet_node(params["node"]) if params["node"] is not None else None
        result["refusals"] = checkpoint_files.refusals(reports, params["config"], node)
    module.exit_json(**result)


def main():
    module = AnsibleModule(
        argument_spec=dict(
            root=dict(type="path", default="/"),
            kubelet_root_dir=dict(type="path", default="/var/lib/kubelet"),
            config=dict(type="dict"),
            node=dict(type="dict"),
        ),
        supports_check_mode=True,
    )
    _errors.run_module(module, run, root=module.params["root"])


if __name__ == "__main__":
    main()
