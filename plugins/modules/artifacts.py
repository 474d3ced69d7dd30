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
description:
  - Writes every file of O(files) into the folder O(dest) on the controller in one task, whatever host the
    task runs for; the roles of this collection write their artifacts (facts, locality oracle, plan, rendered
    configuration, summary) with it, one task per host and role.
  - Runs as an action plugin inside the controller process, so it costs no module execution, no connection to
    the node and no extra process per file.
  - Makes O(dest) (and its parents) when it is missing. Each file whose content differs is written to a
    temporary file in O(dest) and renamed over the old one, so a reader never sees half a file; files whose
    content is the same are left alone, and the task reports C(changed) only when a file changed.
  - Never writes outside O(dest); a file name with C(/), C(..), a NUL byte, or an empty name is refused, as is a
    name that exists in O(dest) as a symlink, folder or other non-regular file (it is not replaced or written
    through). Nothing is written when any name is refused.
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
      - File name (a plain name inside O(dest)) to its content (text, written as UTF-8).
    type: dict
    required: true
attributes:
  action:
    support: full
    description: Runs on the controller only.
  check_mode:
    support: full
    description: Reports which files would change and writes nothing.
  diff_mode:
    support: full
    description: One diff per file that changes.
  platform:
    description: Runs on the controller, a POSIX host.
    support: full
    platforms: posix
seealso:
  - module: ansible.builtin.copy
notes:
  - The roles run it with C(check_mode=false), so a play in check mode still records its plan on the controller.
"""

EXAMPLES = r"""
- name: Write the facts and the plan for this host
  gpusmith.numa_gate.artifacts:
    dest: "{{ numa_gate_artifacts_dir | default('artifacts') }}/{{ inventory_hostname }}"
    files:
      topology.json: "{{ ansible_facts.numa_gate_topology | to_nice_json(indent=2) }}\n"
      summary.md: "{{ lookup('ansible.builtin.template', 'summary.md.j2') }}"
"""

RETURN = r"""
dest:
  description: The absolute folder written into.
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
