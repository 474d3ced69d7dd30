#!/usr/bin/python
# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
---
module: kubelet_config_info
short_description: Read a node's effective kubelet configuration and its resource manager checkpoints
version_added: 0.1.0
author: GPU Smith (@gpusmith)
extends_documentation_fragment:
  - gpusmith.numa_gate.read_only
  - gpusmith.numa_gate.kubelet_layout
description:
  - Reads the kubelet's main configuration file and every C(*.conf) drop-in of its C(--config-dir), and merges them
    the way the kubelet does (drop-ins in lexical order as JSON merge patches, the kubelet's default C(evictionHard)
    filled in when the main file sets none).
  - Returns the effective configuration with and without the drop-in this collection manages; the latter is what a
    reservation plan is merged over (P(gpusmith.numa_gate.reservation_plan#filter)).
  - Reports the policy recorded in the CPU and Memory Manager checkpoint files.
  - Every path is resolved inside O(root) (C(..) and absolute symlink targets stay inside it); only regular files are
    read, so a FIFO or device where a configuration file is expected is refused by name instead of blocking.
  - Fields that carry credentials (such as C(staticPodURLHeader)) are shown as C(********).
  - Changes nothing.
notes:
  - A main file that does not exist is reported as C(main_exists=false); the configuration is then the drop-ins alone.
"""

EXAMPLES = r"""
- name: Read the kubelet configuration before planning
  gpusmith.numa_gate.kubelet_config_info:
  register: kubelet_now

- name: Plan over what the node already has
  ansible.builtin.set_fact:
    plan: "{{ ansible_facts.numa_gate_topology | gpusmith.numa_gate.reservation_plan({'reserved_cpus': 4}, kubelet_now.base) }}"
"""

RETURN = r"""
effective:
  description: The effective kubelet configuration now (main file plus every drop-in), credentials masked.
  returned: always
  type: dict
base:
  description: The effective configuration without the drop-in this collection manages.
  returned: always
  type: dict
files:
  description: The files merged, in the kubelet's order.
  returned: always
  type: list
  elements: str
sources:
  description: For each top-level key of RV(effective), the file that set it last.
  returned: always
  type: dict
main_exists:
  description: Whether the main configuration file exists.
  returned: always
  type: bool
checkpoints:
  description:
    - For C(cpu_manager_state) and C(memory_manager_state), the policy recorded in the checkpoint, or null when there is
      no checkpoint; C(problems) lists checkpoints that cannot be read.
  returned: always
  type: dict
  sample: {cpu_manager_state: none, memory_manager_state: null, problems: []}
"""

import sys

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import errors as _errors
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kubelet.config import layout
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kubelet.config import info
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kubelet.config import documents
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kubelet.config import merge


def run(module):
    module.exit_json(changed=False, **info.read(module.params))


def main():
    module = AnsibleModule(
        argument_spec=dict(
            layout.layout_argument_spec(),
        ),
        supports_check_mode=True,
    )
    if not merge.HAS_YAML:
        module.fail_json(msg=documents.missing_yaml(sys.executable))
    _errors.run_module(module, run, root=module.params["root"])


if __name__ == "__main__":
    main()
