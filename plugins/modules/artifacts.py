#!/usr/bin/python
# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
---
module: artifacts
short_description: Write a host's artifacts into one folder on the controller, in one task
version_added: 0.1.0
author: GPU Smith (@gpusmith)
extends_documentation_fragment:
  - gpusmith.numa_gate.controller
description:
  - Writes every file of O(files) into the folder O(dest) on the controller in one task, whatever host the
    task runs for; the roles of this collection write their artifacts (facts, locality oracle, plan, rendered
    configuration, summary) with it, one task per host and role.
  - Runs as an action plugin inside the controller process, so it costs no module execution, no connection to
    the node and no extra process per file.
  - The folder written into is O(dest), or C(<dest>/<host>) with O(host), or C(<dest>/<host>/<subdir>) with O(subdir) too.
  - Makes that folder (and its parents) when it is missing. Every name and every content is checked before anything
    is written; then each file whose content differs is written to a temporary file in the folder, and only when all
    of them are written are they renamed over the old ones, so a failed batch changes no file and a reader never
    sees half a file. Files whose content is the same are left alone, and the task reports C(changed) only when a
    file changed.
  - Never writes outside O(dest), and never into another host's folder. A file name, O(host) and O(subdir) must
    each be one name - not empty, not C(.) or C(..), no C(/), no NUL or other control character, valid UTF-8, at
    most 255 bytes (the file-name limit) - or the task fails naming the value and the rule. A name that exists as
    a symlink, folder or other non-regular file is refused, as is a host folder or subfolder that exists as a
    symlink or a file (it is not replaced or written through). Nothing is written when anything is refused.
  - Files are written with mode C(0644), a folder it makes with mode C(0755).
options:
  dest:
    description:
      - The controller folder to write into; a relative path is relative to the directory C(ansible-playbook)
        runs in.
    type: path
    required: true
  files:
    description:
      - File name (one plain name inside the folder) to its content (text, written as UTF-8).
    type: dict
    required: true
  host:
    description:
      - The inventory host whose artifacts these are; they go into the folder C(<dest>/<host>).
      - Give the host name here rather than inside O(dest), so that it is checked as one folder name; a host
        named C(../../x), C(..) or C(node-b/../node-a) is refused before anything is written.
    type: str
  subdir:
    description:
      - A folder inside the host's folder (C(<dest>/<host>/<subdir>)), or inside O(dest) without O(host); one name,
        checked as O(host) is.
    type: str
attributes:
  check_mode:
    support: full
    description: Reports which files would change and writes nothing.
  diff_mode:
    support: full
    description: One diff per file that changes.
seealso:
  - module: ansible.builtin.copy
notes:
  - The roles run it with C(check_mode=false), so a play in check mode still records its plan on the controller.
"""

EXAMPLES = r"""
- name: Write the facts and the plan for this host into <artifacts>/<host>
  gpusmith.numa_gate.artifacts:
    dest: "{{ numa_gate_artifacts_dir | default('artifacts') }}"
    host: "{{ inventory_hostname }}"
    files:
      topology.json: "{{ ansible_facts.numa_gate_topology | to_nice_json(indent=2) }}\n"
      summary.md: "{{ lookup('ansible.builtin.template', 'summary.md.j2') }}"

- name: Keep a copy of the baseline in <artifacts>/<host>/baseline
  gpusmith.numa_gate.artifacts:
    dest: "{{ numa_gate_artifacts_dir | default('artifacts') }}"
    host: "{{ inventory_hostname }}"
    subdir: baseline
    files:
      manifest.json: "{{ baseline.manifest | to_nice_json(indent=2) }}\n"
"""

RETURN = r"""
dest:
  description: The absolute folder written into (with O(host), C(<dest>/<host>), and C(/<subdir>) with O(subdir)).
  returned: always
  type: str
  sample: /home/ops/artifacts/gpu-node-01
files:
  description: Every file name given, in name order.
  returned: always
  type: list
  elements: str
  sample: [plan.json, summary.md]
changed_files:
  description: The files written (in check mode, the files that would be written).
  returned: always
  type: list
  elements: str
  sample: [plan.json]
"""


from ansible.module_utils.basic import AnsibleModule

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import artifacts

# The action's (plugins/action/artifacts.py), declared once in plugins/module_utils/_base/artifacts.py.
ARGUMENT_SPEC = artifacts.ARGUMENT_SPEC


def main():
    """This module runs as an action plugin on the controller; run on a host, it only says so."""
    module = AnsibleModule(argument_spec=ARGUMENT_SPEC, supports_check_mode=True)
    module.fail_json(msg="gpusmith.numa_gate.artifacts runs as an action plugin on the controller; this module file only holds its documentation")


if __name__ == "__main__":
    main()
