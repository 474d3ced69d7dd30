#!/usr/bin/python
# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
---
module: service_load
short_description: Run the operator's load generator once against a serving process, from the controller
version_added: 0.1.0
author: GPU Smith (@gpusmith)
extends_documentation_fragment:
  - gpusmith.numa_gate.kube_api
  - gpusmith.numa_gate.controller
description:
  - Runs on the controller (an action plugin). One run of one window of a service comparison; the role
    C(gpusmith.numa_gate.service_comparison) runs it for each window, sides interleaved, between two reads of
    M(gpusmith.numa_gate.service_window) (the collection's C(docs/service-comparison.md)).
  - With O(argv), the command runs without a shell in its own session, in a cgroup made for the run (cgroup v2), else in a pid
    namespace (C(unshare)), so everything it starts is inside, a child that calls C(setsid) too; neither possible, it is refused
    and nothing runs. When it runs past O(timeout), or past O(stop_after) (a warmup of that duration - stopping it is its normal
    end), everything in it gets SIGTERM, then SIGKILL after 5 s. When it ends by itself, whatever it left is killed and the
    cgroup removed, so nothing keeps loading the service.
  - With O(job), the Job is created through the API (the connection options, kubernetes.core's, or their C(K8S_AUTH_*) variables),
    read every O(poll) seconds until its C(Complete) or
    C(Failed) condition, and deleted with its pods (propagation C(Background)) whatever happened; a failed Job's pod log tail is read first.
  - A run that fails (a non-zero exit status, a signal, a failed Job, the timeout) fails the task naming the side, the repetition,
    the window, the argv or the Job, and the last 2000 bytes of its standard error (or the pod's log).
  - The result file (O(result_file), for example C(vllm bench serve --save-result --result-filename)) is read as a JSON object after a
    run that ended by itself; it must not exist before the run.
options:
  side:
    description: The side this run loads (named in messages).
    type: str
    required: true
    choices: [baseline, canary]
  repetition:
    description: The repetition of that side (named in messages).
    type: int
    required: true
  window:
    description: The window's number in the order of the comparison (named in messages).
    type: int
    required: true
  phase:
    description: C(warmup) (excluded from the comparison) or C(measure) (the measured part).
    type: str
    default: measure
    choices: [warmup, measure]
  argv:
    description: The load generator's command as a list, run on the controller without a shell. Exactly one of this and O(job).
    type: list
    elements: str
  job:
    description: A C(batch/v1) Job manifest, created through the API. Exactly one of this and O(argv).
    type: dict
  stop_after:
    description: Seconds after which the run is stopped as its normal end (a warmup of that duration). Unset, the run must end by itself.
    type: float
  timeout:
    description: Seconds the run may take; past them it is stopped and the task fails.
    type: float
    default: 3600.0
  result_file:
    description: The file the load generator writes its result to (JSON object); read after the run, refused when it exists before.
    type: str
  max_result_bytes:
    description: The most bytes read from the result file; a larger file fails naming the bound.
    type: int
    default: 16777216
  poll:
    description: Seconds between two reads of the Job (with O(job)).
    type: float
    default: 2.0
attributes:
  check_mode:
    description: In check mode nothing is run (the task is skipped).
    support: full
  diff_mode:
    description: Changes no configuration.
    support: none
"""

EXAMPLES = r"""
- name: Run vllm bench serve against the canary, keeping its result file
  gpusmith.numa_gate.service_load:
    side: canary
    repetition: 1
    window: 2
    argv: [vllm, bench, serve, --base-url, "http://10.0.0.6:8000", --request-rate, "4", --max-concurrency, "16",
           --save-result, --result-filename, /tmp/bench/02-canary-1-measure.json]
    result_file: /tmp/bench/02-canary-1-measure.json
    timeout: 1800
  register: load
"""

RETURN = r"""
argv:
  description: The command as it ran (any URL's C(user:password@) masked).
  returned: with argv
  type: list
  elements: str
manifest:
  description: The Job as it was created.
  returned: with job
  type: dict
start:
  description: When the run started (controller clock, seconds since the epoch).
  returned: success
  type: float
end:
  description: When it ended.
  returned: success
  type: float
exit_status:
  description: The command's exit status (negative - the signal that stopped it after O(stop_after)); null for a Job.
  returned: success
  type: int
outcome:
  description: How the run ended, in words (C(exit status 0), C(stopped after 30 s (the warmup's duration)), C(the Job completed (...))).
  returned: success
  type: str
stopped:
  description: Whether the run was stopped at O(stop_after).
  returned: success
  type: bool
client:
  description: The result file's JSON object, or null when there was none.
  returned: success
  type: dict
result_file:
  description: The result file read, or null.
  returned: success
  type: str
stdout_tail:
  description: The last 2000 bytes of the command's standard output.
  returned: with argv
  type: str
contained:
  description: Where the command ran, so that all it started could be ended - C(cgroup) or C(pid namespace).
  returned: with argv
  type: str
left:
  description: The pids still in the run's cgroup after the command ended, all killed (empty in a pid namespace, whose end kills them).
  returned: with argv
  type: list
  elements: int
stderr_tail:
  description: The last 2000 bytes of its standard error (a failed Job's pod log tail).
  returned: always
  type: str
"""


from ansible.module_utils.basic import AnsibleModule

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._service_comparison import specs

# The action's (plugins/action/service_load.py), declared once in plugins/module_utils/_service_comparison/specs.py.
ARGUMENT_SPEC = specs.SERVICE_LOAD


def main():
    """This module runs as an action plugin on the controller; run on a host, it only says so."""
    module = AnsibleModule(argument_spec=ARGUMENT_SPEC, supports_check_mode=True)
    module.fail_json(msg="gpusmith.numa_gate.service_load runs as an action plugin on the controller; this module file only holds its documentation")


if __name__ == "__main__":
    main()
