#!/usr/bin/python
# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
---
module: kubelet_verify
short_description: Verify a node's kubelet through the Kubernetes API - Ready and healthy for a window, /configz as expected
version_added: 0.1.0
author: GPU Smith (@gpusmith)
extends_documentation_fragment:
  - gpusmith.numa_gate.kube_api
  - gpusmith.numa_gate.kube_api.node
  - gpusmith.numa_gate.controller
  - gpusmith.numa_gate.controller.read_only
description:
  - Waits until the node is Ready and its kubelet healthy without a break for O(stable_s) seconds, within
    O(timeout), then reads the kubelet's C(/configz) and compares it with O(expect). Everything goes through the
    API server from the controller (C(/api/v1/nodes/<node>/proxy/healthz) and C(/proxy/configz)); nothing runs on
    the node.
  - One probe proves little, because a kubelet that fails its start checks exits and systemd restarts it, and
    C(healthz) can answer C(ok) between two restarts. So at every poll across the window the node's C(Ready)
    condition must be C(True) with the same C(lastTransitionTime) and C(healthz) must answer C(ok); any break
    starts the window again.
  - Values are compared by meaning. Quantities by their number (V(1Gi) equals V(1024Mi)), C(reservedMemory) per
    NUMA node in any order, CPU lists as sets (V(0-1) equals V(0,1)), Go durations by length (V(60s) equals
    V(1m0s)), numbers numerically. Only the C(featureGates) given are checked; every other map must have the
    same keys.
  - Runs as an action plugin on the controller and prints a progress line at every poll while it waits.
  - Fails with a message naming each setting that differs (expected, and what C(/configz) shows), or the node's
    last state (its Ready condition and what C(healthz) answered) when it did not become Ready and stable.
options:
  expect:
    description:
      - KubeletConfiguration (v1beta1) fields C(/configz) must show, by value, for example C(cpuManagerPolicy),
        C(memoryManagerPolicy), C(topologyManagerPolicy), C(topologyManagerScope), C(featureGates),
        C(reservedSystemCPUs), C(reservedMemory), C(kubeReserved), C(systemReserved).
      - Empty, only readiness and health are verified (and C(/configz) is still returned).
    type: dict
    default: {}
  timeout:
    description:
      - Seconds to wait for the node to be Ready and stable.
    type: int
    default: 180
  stable_s:
    description:
      - Seconds the node must stay Ready, with the same Ready transition, and healthy, before it counts as stable.
    type: int
    default: 20
  poll:
    description:
      - Seconds between two looks; a progress line is printed at each.
    type: float
    default: 2
  decide:
    description:
      - Decide whether the node is at a transition's target instead (the C(transition_decision) filter's function, the
        kubelet_transition role's decision). The API is asked only when the node's files say it is at its target;
        the task returns RV(decision), and the API's answer under RV(now), and fails only on input the decision refuses.
        A node that is not Ready, or an API that cannot be reached, is a node not at its target, not a failure.
    type: dict
    suboptions:
      target:
        description: The transition's target.
        type: str
        required: true
        choices: [enable, rollback]
      render:
        description: The target rendered without writing it (the registered result of P(gpusmith.numa_gate.kubelet_render#module)).
        type: dict
        required: true
      checkpoints:
        description: Whether the kubelet would refuse its checkpoints under the target (P(gpusmith.numa_gate.kubelet_checkpoint#module)'s result).
        type: dict
        required: true
      baseline:
        description: The node's kept baseline (P(gpusmith.numa_gate.kubelet_baseline#module)'s result).
        type: dict
        required: true
      allow_disruption:
        description: Whether a needed transition may cordon, drain and restart the kubelet; when false, the decision refuses it.
        type: bool
        default: false
      host:
        description: The host's name, for the messages.
        type: str
        default: the node
      mode:
        description: How the configuration is written (a drop-in, or the main file).
        type: str
        default: dropin
        choices: [dropin, main]
      config_dir:
        description: The drop-in folder the kubelet must be started with, in C(dropin) mode.
        type: str
  stayed:
    description:
      - After the node is Ready with the expected configuration, also check that the pods that stayed through the restart
        came back (P(gpusmith.numa_gate.kube_node#module) with O(gpusmith.numa_gate.kube_node#module:state=drainable) and
        O(gpusmith.numa_gate.kube_node#module:admission) returns what to compare). The task fails at once naming each pod of
        the node rejected at admission (C(phase) C(Failed), C(Pod was rejected) or an admission reason) that had not failed
        before, and, after O(timeout) more seconds with progress lines, each extended resource of the Node's allocatable still
        below its count before the stop (a device plugin that did not register again).
    type: dict
    suboptions:
      extended_resources:
        description: The Node's allocatable extended resources before the stop (C(nvidia.com/gpu) to its count).
        type: dict
        default: {}
      failed_before:
        description: The uids of the node's pods that had failed before the stop (not counted as rejected).
        type: list
        elements: str
        default: []
      gpu_pods:
        description:
          - The GPU pods that stayed (C(pod), C(uid), C(restarts) before the stop). Each must be Ready again within O(timeout)
            with no container restart since the stop (a GPU container that lost its device access fails and restarts); a
            restart fails the task at once.
        type: list
        elements: dict
        default: []
seealso:
  - module: gpusmith.numa_gate.kube_node
notes:
  - "Progress lines look like C(verify node-a: Ready for 8s of 20s stable window, 14s of 180s)."
  - Credentials a kubelet configuration can carry (C(staticPodURLHeader) values, C(staticPodURL) userinfo and
    query) are masked in what it returns.
"""

EXAMPLES = r"""
- name: Verify the kubelet runs with the planned policies and reservations
  gpusmith.numa_gate.kubelet_verify:
    kubeconfig: "{{ numa_gate_kubeconfig }}"
    node: "{{ numa_gate_node_name | default(inventory_hostname) }}"
    expect:
      cpuManagerPolicy: static
      memoryManagerPolicy: Static
      topologyManagerPolicy: single-numa-node
      topologyManagerScope: pod
      reservedSystemCPUs: "0-1"
      featureGates:
        PodLevelResources: true
        PodLevelResourceManagers: true
      reservedMemory:
        - numaNode: 0
          limits: {memory: 1Gi}
    timeout: 300
    stable_s: 30
"""

RETURN = r"""
rejected_pods:
  description: With O(stayed), the node's pods rejected at admission after the start, each C(namespace/pod (reason, then the message)).
  returned: with O(stayed)
  type: list
  elements: str
  sample: ["kube-system/burner-x2 (TopologyAffinityError: Pod was rejected: Resources cannot be allocated with Topology locality)"]
restarted_pods:
  description: With O(stayed), the GPU pods that stayed and restarted since the stop.
  returned: with O(stayed)
  type: list
  elements: str
unready_pods:
  description: With O(stayed), the GPU pods that stayed and were not Ready (or gone) when the check ended.
  returned: with O(stayed)
  type: list
  elements: str
lost_resources:
  description: With O(stayed), the extended resources below their count before the stop when the check ended.
  returned: with O(stayed)
  type: list
  elements: str
  sample: ["nvidia.com/gpu: 0 (absent) of the 8 allocatable before the stop"]
extended_resources:
  description: With O(stayed), the Node's allocatable extended resources when the check ended.
  returned: with O(stayed)
  type: dict
  sample: {nvidia.com/gpu: "8"}
node:
  description: The node's name.
  returned: always
  type: str
  sample: gpu-node-01
ready:
  description: Whether the node was Ready and healthy for the whole window.
  returned: always, unless the arguments or the kubeconfig were refused
  type: bool
  sample: true
healthz:
  description: What the kubelet's C(healthz) answered last (C(ok), or the code and text).
  returned: always, unless the arguments or the kubeconfig were refused
  type: str
  sample: ok
ready_since:
  description: The C(lastTransitionTime) of the node's Ready condition.
  returned: when the node became Ready and stable
  type: str
  sample: "2026-12-01T09:14:53Z"
node_state:
  description: The node's Ready condition as last seen.
  returned: always, unless the arguments or the kubeconfig were refused
  type: dict
  sample: {type: Ready, status: "True", reason: KubeletReady, message: kubelet is posting ready status}
configz:
  description: The kubelet's configuration as C(/configz) shows it (the C(kubeletconfig) object), credentials masked.
  returned: when the node became Ready and stable
  type: dict
  sample: {cpuManagerPolicy: static, topologyManagerPolicy: single-numa-node}
mismatches:
  description: Each expected setting C(/configz) does not show; C(actual) is null when it lacks the field.
  returned: always, unless the arguments or the kubeconfig were refused
  type: list
  elements: dict
  sample: [{field: cpuManagerPolicy, expected: static, actual: none}]
waited_s:
  description: Seconds it waited (with O(stayed), for the node to be Ready and stable and then for the pods that stayed).
  returned: always, unless the arguments or the kubeconfig were refused (with O(decide), under RV(now))
  type: float
  sample: 20.3
decision:
  description:
    - With O(decide), whether the node is at its target (C(converged)), whether its files already hold it
      (C(target_in_place)), whether the API was asked (C(ask_api)), why not (C(reasons), one line each) and the
      message to stop with, changing nothing (C(refusal), or null).
  returned: with O(decide), unless its input was refused
  type: dict
  sample: {converged: false, target_in_place: false, ask_api: false, reasons: [the configuration differs (/etc/kubernetes/kubelet.conf.d/50-numa-gate.conf)],
           refusal: null}
asked_api:
  description: With O(decide), whether the API was asked (only when the node's files say it is at its target).
  returned: with O(decide)
  type: bool
  sample: false
now:
  description: With O(decide), when the API was asked, its answer (the keys above, and C(failed) and C(msg) when the node was not Ready and stable).
  returned: with O(decide), when the API was asked
  type: dict
  sample: {node: gpu-node-01, ready: true, healthz: ok, mismatches: [], waited_s: 0.1}
"""


from ansible.module_utils.basic import AnsibleModule

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._transition.api import specs

# The action's (plugins/action/kubelet_verify.py), declared once in plugins/module_utils/_transition/api/specs.py.
ARGUMENT_SPEC = specs.KUBELET_VERIFY


def main():
    """This module runs as an action plugin on the controller; run on a host, it only says so."""
    module = AnsibleModule(argument_spec=ARGUMENT_SPEC, supports_check_mode=True)
    module.fail_json(msg="gpusmith.numa_gate.kubelet_verify runs as an action plugin on the controller; this module file only holds its documentation")


if __name__ == "__main__":
    main()
