#!/usr/bin/python
# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
---
module: kubelet_service
short_description: Stop the kubelet and confirm it stopped, or start it, as one journaled transition step
version_added: 0.1.0
author: GPU Smith (@gpusmith)
description:
  - O(state=stopped) runs C(systemctl stop) on the kubelet's unit when it is not down already, then reads its
    C(ActiveState) again and fails unless it is C(inactive) or C(failed).
  - O(state=started) runs C(systemctl reset-failed) then C(systemctl start) when the unit is not active (a kubelet that refused to
    start and was restarted by its unit until systemd's start rate limit would otherwise be refused this start). Whether the
    kubelet then becomes Ready is for M(gpusmith.numa_gate.kubelet_verify).
  - With O(journal), records the transition's C(stop) or C(start) step around that work in the same run (C(started)
    before, C(finished) after, each fsynced), so a run killed right after it leaves the journal saying so.
options:
  service:
    description:
      - The kubelet's systemd unit, one service unit name by systemd's rules (C(kubelet) means C(kubelet.service)).
      - A pattern (C(*), C(?), C([)), a value starting with C(-), a character systemd does not allow in a unit name, a suffix
        other than C(.service), a template, or a name over 255 characters is refused before systemctl runs.
    type: str
    default: kubelet
  timeout:
    description:
      - Seconds each C(systemctl) call may take; at the deadline it (and what it started) is killed and the task fails.
    type: float
    default: 300
  state:
    description: Whether the unit is to be stopped or started.
    type: str
    choices: [stopped, started]
    required: true
extends_documentation_fragment:
  - gpusmith.numa_gate.transition_journal
attributes:
  check_mode:
    description: Reads the unit's state and says whether it would stop or start it; runs nothing else and records nothing.
    support: full
  diff_mode:
    description: Shows the unit's state before and after.
    support: full
"""

EXAMPLES = r"""
- name: Stop the kubelet, as the transition's stop step
  gpusmith.numa_gate.kubelet_service:
    state: stopped
    journal:
      transition: 20261201T090000Z
      step: stop

- name: Start it again
  gpusmith.numa_gate.kubelet_service:
    state: started
"""

RETURN = r"""
before:
  description: The unit's C(ActiveState) before.
  returned: always
  type: str
  sample: active
after:
  description: The unit's C(ActiveState) after (in check mode, what it would be).
  returned: always
  type: str
  sample: inactive
journal:
  description: With O(journal), the journal's C(path), the C(events) this run appended (none in check mode) and C(notes).
  returned: with O(journal)
  type: dict
"""

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import errors as _errors
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._transition.node import kubelet_service as service
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._transition.journal import step as step_journal


def run(module):
    params = module.params
    service.unit_name(params["service"])
    runner = service.TimedRunner(module, params["timeout"])
    steps = step_journal.StepJournal("/", params["journal"], module.check_mode)
    before = service.active_state(runner, params["service"])
    stopping = params["state"] == "stopped"
    needed = (before not in service.DOWN) if stopping else (before != "active")
    steps.started()
    after = before
    if needed:
        if module.check_mode:
            after = "inactive" if stopping else "active"
        else:
            after = service.stop(runner, params["service"]) if stopping else service.start(runner, params["service"])
    steps.finished("changed" if needed else "ok")
    result = {"changed": needed, "before": before, "after": after}
    if needed and module._diff:  # pylint: disable=protected-access
        result["diff"] = {"before": "%s: %s\n" % (params["service"], before), "after": "%s: %s\n" % (params["service"], after)}
    result.update(steps.result())
    module.exit_json(**result)


def main():
    module = AnsibleModule(
        argument_spec=dict(
            service=dict(type="str", default="kubelet"),
            timeout=dict(type="float", default=300),
            state=dict(type="str", choices=["stopped", "started"], required=True),
            **step_journal.ARGUMENT_SPEC
        ),
        supports_check_mode=True,
    )
    _errors.run_module(module, run)


if __name__ == "__main__":
    main()
