#!/usr/bin/python
# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
---
module: rehearsal_restart
short_description: Stop a container's main process on the node so that the kubelet restarts the container (opt-in rehearsal step)
version_added: 0.1.0
author: GPU Smith (@gpusmith)
description:
  - For the opt-in restart after a rehearsed rollback (the C(rehearsal) role's C(rehearsal_restart_main)) - finds the main process of
    a container's cgroup (the one process in it whose parent is outside it), checking each PID is in that cgroup now
    (C(/proc/<pid>/cgroup)), and sends it SIGKILL; the runtime reports the exit and the kubelet starts the container again in the
    same pod, under its C(restartPolicy). SIGKILL because a container's PID 1 ignores SIGTERM without a handler.
  - A cgroup with no process of those given, or with several whose parent is outside it, fails naming them, and nothing is stopped.
  - Changes a running workload; run it only when asked. Signals only under O(root) V(/) (a recorded tree's PIDs are not this host's).
options:
  root:
    description: Directory under which C(proc/) is read. V(/) on a node.
    type: path
    default: /
  cgroup:
    description: The container's cgroup path (M(gpusmith.numa_gate.placement_info)'s container C(cgroup)).
    type: str
    required: true
  pids:
    description: The processes placement_info read in that cgroup.
    type: list
    elements: int
    required: true
attributes:
  check_mode:
    description: Names the process it would stop, stops nothing.
    support: full
  diff_mode:
    description: No diff.
    support: none
"""

EXAMPLES = r"""
- name: Restart the main container of a recreated pod
  gpusmith.numa_gate.rehearsal_restart:
    cgroup: "{{ pod.main.cgroup }}"
    pids: "{{ pod.main.pids }}"
"""

RETURN = r"""
pid:
  description: The main process stopped (or that would be).
  returned: success
  type: int
signal:
  description: The signal sent, C(SIGKILL).
  returned: success
  type: str
stopped:
  description: Whether it was sent (false in check mode).
  returned: success
  type: bool
"""

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import errors as _errors
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._rehearsal import restart


def _body(module):
    found = restart.stop(module.params["root"], module.params["cgroup"], module.params["pids"], check_mode=module.check_mode)
    module.exit_json(changed=True, **found)


def main():
    module = AnsibleModule(
        argument_spec=dict(
            root=dict(type="path", default="/"),
            cgroup=dict(type="str", required=True),
            pids=dict(type="list", elements="int", required=True),
        ),
        supports_check_mode=True,
    )
    _errors.run_module(module, _body, cgroup=module.params["cgroup"])


if __name__ == "__main__":
    main()
