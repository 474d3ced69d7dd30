#!/usr/bin/python
# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
---
module: canary_wait
short_description: Wait for the allocation canary's pods to be admitted or refused, with progress lines
version_added: 0.1.0
author: GPU Smith (@gpusmith)
extends_documentation_fragment:
  - gpusmith.numa_gate.kube_api
  - gpusmith.numa_gate.kube_api.node
  - gpusmith.numa_gate.controller
  - gpusmith.numa_gate.controller.read_only
description:
  - Runs on the controller (an action plugin) and reads the canary's pods through the API, a bare pod by O(name), a controller's
    pods by O(selector), every O(poll) seconds.
  - Ends when O(replicas) pods exist and as many are admitted and Ready, or one is refused at a layer (the scheduler, the kubelet),
    or when O(timeout) seconds are spent; the caller reads how far the pods got from RV(resources). Running out of time is no failure.
  - With O(window), it looks until O(timeout) whatever the pods do.
  - Prints a progress line when what it says changes (pods created, scheduled, admitted), else one every 10 seconds.
  - An API error (no connection, a rejected credential) fails the task with its message.
options:
  namespace:
    description: The canary's namespace.
    type: str
    required: true
  name:
    description: The name of a bare canary pod; exactly one of O(name) and O(selector).
    type: str
  selector:
    description: The labels of a controller's canary pods (its pod template's labels); exactly one of O(name) and O(selector).
    type: dict
  replicas:
    description: How many pods the canary has.
    type: int
    default: 1
  timeout:
    description: Seconds to wait at most.
    type: int
    default: 180
  poll:
    description: Seconds between two looks.
    type: float
    default: 3
  window:
    description:
      - Look for the whole O(timeout), whatever the pods do, a progress line also counting the pods refused (the canary role's
        admission-failure probe counts what the owning controller does in a bounded window).
    type: bool
    default: false
"""

EXAMPLES = r"""
- name: Wait for the canary's admission
  gpusmith.numa_gate.canary_wait:
    node: gpu-node-1
    namespace: default
    name: pod-numa-allocation-canary
    timeout: 180
  register: seen
"""

RETURN = r"""
resources:
  description: The canary's pods as the last look read them.
  returned: success
  type: list
  elements: dict
attempts:
  description: How many looks the wait took.
  returned: success
  type: int
waited_s:
  description: Seconds waited, on the controller's monotonic clock.
  returned: success
  type: float
"""


from ansible.module_utils.basic import AnsibleModule

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence import specs

# The action's (plugins/action/canary_wait.py), declared once in plugins/module_utils/_evidence/specs.py.
ARGUMENT_SPEC = specs.CANARY_WAIT


def main():
    """This module runs as an action plugin on the controller; run on a host, it only says so."""
    module = AnsibleModule(argument_spec=ARGUMENT_SPEC, supports_check_mode=True)
    module.fail_json(msg="gpusmith.numa_gate.canary_wait runs as an action plugin on the controller; this module file only holds its documentation")


if __name__ == "__main__":
    main()
