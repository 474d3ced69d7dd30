#!/usr/bin/python
# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
---
module: kubelet_render
short_description: Render the kubelet configuration as kubelet_config does, on the controller when a reading allows it
version_added: 0.1.0
author: GPU Smith (@gpusmith)
description:
  - Takes the options of M(gpusmith.numa_gate.kubelet_config) and gives its result, plus O(reading).
  - In check mode, for O(gpusmith.numa_gate.kubelet_config#module:mode=dropin) and
    O(gpusmith.numa_gate.kubelet_config#module:state=present), when O(reading) was read from the same files
    (the same C(path), C(config_dir), C(dropin_name), C(kubelet_root_dir) and C(root)), the drop-in is rendered
    on the controller from O(reading), with no module run on the node - the same target, rules, stale-checkpoint
    refusals, failure messages, warnings and diff as the module in check mode (credentials masked the same way).
    Such a result has RV(rendered_on=controller).
  - In every other case (applying, mode C(main), state C(absent), no O(reading) or one of other files) it runs
    M(gpusmith.numa_gate.kubelet_config) on the node with the other options, unchanged.
  - Used by the P(gpusmith.numa_gate.kubelet_render#role) role, which passes the reading the
    P(gpusmith.numa_gate.topology#role) role made (C(topology_result.kubelet_config)) when there is one, so that
    C(playbooks/plan.yml) makes one node round trip per node.
options:
  reading:
    description:
      - What M(gpusmith.numa_gate.topology_facts) returned as RV(gpusmith.numa_gate.topology_facts#module:kubelet_config)
        (its O(gpusmith.numa_gate.topology_facts#module:kubelet_layout) option), or null.
      - The reading is as old as that module run; a file changed on the node since then is not seen (the module
        run, which reads the node again, is what applies).
    type: dict
  mode:
    description: As for M(gpusmith.numa_gate.kubelet_config).
    type: str
    choices: [dropin, main]
    default: dropin
  settings:
    description: As for M(gpusmith.numa_gate.kubelet_config).
    type: dict
  node:
    description: As for M(gpusmith.numa_gate.kubelet_config).
    type: dict
  state:
    description: As for M(gpusmith.numa_gate.kubelet_config).
    type: str
    choices: [present, absent]
    default: present
  backup_dir:
    description: As for M(gpusmith.numa_gate.kubelet_config).
    type: str
    default: /var/lib/numa-gate/backups
  stale_checkpoints:
    description: As for M(gpusmith.numa_gate.kubelet_config).
    type: str
    choices: [fail, report]
    default: fail
  path:
    description: As for M(gpusmith.numa_gate.kubelet_config).
    type: str
    default: /var/lib/kubelet/config.yaml
  config_dir:
    description: As for M(gpusmith.numa_gate.kubelet_config).
    type: str
    default: /etc/kubernetes/kubelet.conf.d
  dropin_name:
    description: As for M(gpusmith.numa_gate.kubelet_config).
    type: str
    default: 50-numa-gate.conf
  kubelet_root_dir:
    description: As for M(gpusmith.numa_gate.kubelet_config).
    type: str
    default: /var/lib/kubelet
  root:
    description: As for M(gpusmith.numa_gate.kubelet_config).
    type: path
    default: /
attributes:
  action:
    support: full
    description: An action plugin; it runs M(gpusmith.numa_gate.kubelet_config) on the node unless it renders on the controller.
  check_mode:
    support: full
    description: In check mode nothing is written, and with a matching O(reading) nothing runs on the node.
  diff_mode:
    support: full
    description: The managed drop-in before and after, as M(gpusmith.numa_gate.kubelet_config) shows it.
  platform:
    description: The node is a POSIX host; the controller render needs PyYAML on the controller (ansible-core has it).
    support: full
    platforms: posix
notes:
  - A controller render leaves out the file attributes (owner, mode, size) that a module result adds for an existing RV(path).
"""

EXAMPLES = r"""
- name: Read topology and kubelet files in one module run
  gpusmith.numa_gate.topology_facts:
    kubelet_layout: {}
  register: gathered

- name: Show what would change, rendered on the controller
  gpusmith.numa_gate.kubelet_render:
    settings: {cpuManagerPolicy: static, reservedSystemCPUs: "0"}
    node: "{{ ansible_facts.numa_gate_topology }}"
    reading: "{{ gathered.kubelet_config }}"
  check_mode: true
  diff: true
"""

RETURN = r"""
rendered_on:
  description: V(controller) when the result was computed on the controller from O(reading); absent when the module ran.
  returned: when rendered on the controller
  type: str
  sample: controller
path:
  description: As M(gpusmith.numa_gate.kubelet_config) returns it (the other return values too).
  returned: always
  type: str
content:
  description: The managed file's text after this run, byte for byte what is (or in check mode would be) written on the node.
  returned: always
  type: str
"""


from ansible.module_utils.basic import AnsibleModule

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._render import specs

# The action's (plugins/action/kubelet_render.py), declared once in plugins/module_utils/_render/specs.py.
ARGUMENT_SPEC = specs.KUBELET_RENDER


def main():
    """This module runs as an action plugin on the controller; run on a host, it only says so."""
    module = AnsibleModule(argument_spec=ARGUMENT_SPEC, supports_check_mode=True, **specs.KUBELET_CONFIG_RULES)
    module.fail_json(msg="gpusmith.numa_gate.kubelet_render runs as an action plugin on the controller; this module file only holds its documentation")


if __name__ == "__main__":
    main()
