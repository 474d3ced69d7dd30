#!/usr/bin/python
# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
---
module: kube_node
short_description: Cordon, drain or uncordon a Kubernetes node through the API, with kubectl's semantics, or check its drain first
version_added: 0.1.0
author: GPU Smith (@gpusmith)
extends_documentation_fragment:
  - gpusmith.numa_gate.kube_api
  - gpusmith.numa_gate.kube_api.node
  - gpusmith.numa_gate.transition_journal
  - gpusmith.numa_gate.controller
description:
  - Sets one node's scheduling state through the Kubernetes API from the controller, as C(kubectl cordon),
    C(kubectl drain) and C(kubectl uncordon) do (k8s.io/kubectl pkg/drain), without shelling out to kubectl.
  - Runs as an action plugin on the controller, so a long drain prints a progress line at every poll while
    it waits (pods left, seconds waited of the bound, the PodDisruptionBudgets that refuse an eviction), not
    only at the end.
  - O(state=drained) cordons first, then evicts every pod bound to the node with a policy/v1 Eviction, except
    DaemonSet pods (with O(ignore_daemonsets)) and mirror pods (annotation C(kubernetes.io/config.mirror)),
    which stay. Pods with an emptyDir volume refuse the drain unless O(delete_emptydir_data); pods without a
    controller refuse unless O(force); finished pods (Succeeded or Failed) are evicted. When any pod refuses,
    nothing is evicted and the task fails naming each pod and why.
  - An eviction a PodDisruptionBudget refuses (HTTP 429) is retried every O(poll) seconds within O(timeout);
    an evicted pod counts as gone when the API no longer has it or has a pod of that name with another UID,
    checked every second as kubectl does. An eviction error other than 429 and 404 ends only that pod; every other
    pod is still evicted and awaited, then the task fails naming each pod left and its error (RV(failed_pods)).
    When the bound runs out the task fails naming every pod left, each budget that refuses it (its name,
    minAvailable or maxUnavailable, and the disruptions it allows now) or that the pod is still terminating.
  - A failed drain leaves the node cordoned, as kubectl does; the result says whether this task cordoned it
    (RV(cordoned)) and whether it was unschedulable before (RV(was_unschedulable)), so the caller can uncordon
    only what it cordoned.
  - O(state=drainable) checks the drain before any cordon and changes nothing. It reads the pods the drain would refuse (with the
    same options), sends a server-side dry run of each eviction (C(dryRun=All), as C(kubectl drain --dry-run=server) sends it), and
    adds the node's pods up per PodDisruptionBudget against its C(disruptionsAllowed), since the API server judges each
    dry-run eviction alone and records nothing. A pod that cannot leave now fails the task naming the pod, the budget and
    the disruptions it allows; no PATCH is sent. More pods under a budget than it allows, when it allows at least one, is
    no refusal, since the drain evicts them one by one as their replacements become healthy elsewhere (RV(budget_waits)).
  - Idempotent. A cordoned node reports no change for O(state=cordoned); a cordoned node with nothing left to
    evict reports no change for O(state=drained); O(state=uncordoned) changes only an unschedulable node.
options:
  state:
    description:
      - V(cordoned) marks the node unschedulable; V(drained) cordons it and evicts its pods; V(uncordoned)
        marks it schedulable again; V(drainable) checks that the drain would go through now, changing nothing.
    type: str
    required: true
    choices: [cordoned, drained, uncordoned, drainable]
  timeout:
    description:
      - Seconds the whole drain may take, evictions and waiting for deletions together (kubectl's
        C(--timeout)). V(0) waits without a bound, as kubectl's C(--timeout=0).
    type: int
    default: 300
  poll:
    description:
      - Seconds between two tries of an eviction a PodDisruptionBudget refuses (kubectl's 5 s retry), and between two
        progress lines; evicted pods are checked every second, as kubectl does.
    type: float
    default: 5
  ignore_daemonsets:
    description:
      - Leave DaemonSet pods on the node (kubectl's C(--ignore-daemonsets)); when V(false), a DaemonSet pod
        refuses the drain.
    type: bool
    default: true
  delete_emptydir_data:
    description:
      - Evict pods that use emptyDir volumes, whose data is lost (kubectl's C(--delete-emptydir-data)).
    type: bool
    default: false
  force:
    description:
      - Evict pods that declare no controller, and pods whose DaemonSet is gone (kubectl's C(--force)); they
        are not recreated anywhere.
    type: bool
    default: false
  grace_period:
    description:
      - Seconds each pod gets to terminate, sent in the eviction's DeleteOptions (kubectl's C(--grace-period)).
        Unset or negative, each pod's own C(terminationGracePeriodSeconds).
    type: int
  disable_eviction:
    description:
      - Delete pods instead of evicting them, so no PodDisruptionBudget is consulted (kubectl's
        C(--disable-eviction)). Use with care.
    type: bool
    default: false
  admission:
    description:
      - With O(state=drainable), also predict whether the target policy admits the pods that stay on the node through the
        kubelet's restart (DaemonSet, mirror and every other pod the drain leaves). A Guaranteed pod's integer CPU requests
        become exclusive under the C(static) CPU manager, and under C(single-numa-node) each pod (scope C(pod)) or container
        must fit on one NUMA node against the planned allocatable (its CPUs less C(reservedSystemCPUs), its memory less
        C(reservedMemory)); every staying pod's CPU requests together against the planned allocatable CPUs (C(OutOfcpu)).
      - A predicted rejection fails the task before any dry run is sent, naming the pod and why, unless O(admission.allow)
        names it. The result then also carries what the verification after the start compares (RV(staying),
        RV(extended_resources), RV(failed_before)).
    type: dict
    suboptions:
      config:
        description: The target's effective KubeletConfiguration (C(cpuManagerPolicy), C(memoryManagerPolicy),
          C(topologyManagerPolicy), C(topologyManagerScope), C(reservedSystemCPUs), C(reservedMemory)).
        type: dict
        required: true
      numa_nodes:
        description: The node's NUMA nodes as the topology facts give them (C(id), C(cpus), C(memory_bytes)).
        type: list
        elements: dict
        required: true
      allow:
        description: Pods a predicted rejection does not refuse, each C(namespace/pod) or C(namespace/owner) (the controller's name).
        type: list
        elements: str
        default: []
      device_access_override:
        description:
          - With a C(static) target CPU manager, the node's NVIDIA device plugin pod is read (its flags, environment and
            C(privileged)); unless every device-list strategy is CDI or C(PASS_DEVICE_SPECS) is true on a privileged
            container, GPU containers would lose device access, and the task fails naming the setting to change. A setting
            left to the plugin's config file is unknown and refused the same way; a node with C(nvidia.com/gpu) but no
            plugin pod found too.
          - V(true) makes that refusal a warning.
        type: bool
        default: false
      runtime_versions:
        description:
          - The node's container runtime and runc versions as its binaries print them (M(gpusmith.numa_gate.transition_journal)'s
            RV(gpusmith.numa_gate.transition_journal#module:runtime_versions)), recorded in RV(device_access) beside the plugin's
            settings. Recorded, not judged; no plugin document ties device access to a version.
        type: dict
        default: {}
attributes:
  check_mode:
    support: full
    description: Sends no write request, not even the dry-run evictions of O(state=drainable) (a budget that allows no
      disruption is read from its status instead); reports whether it would cordon and which pods it would evict.
  diff_mode:
    support: none
    description: Nothing to compare; no diff.
seealso:
  - module: kubernetes.core.k8s_drain
  - module: gpusmith.numa_gate.kubelet_verify
notes:
  - Unlike kubernetes.core.k8s_drain (6.5.0), a PodDisruptionBudget refusal is retried within the bound,
    deletion is awaited by UID, and the drain reports progress while it waits.
  - "Progress lines look like C(drain node-a: 3 pods left (web-1, web-2, db-0), 25s of 300s; blocked by PDB
    db-pdb (allows 0 disruptions))."
  - With O(journal) (and not in check mode) the events are written on the node, each fsynced. O(state=drained) writes
    O(journal.events) and the drain's C(started) before it evicts anything; its C(finished) is for the caller to pass
    to the next node-side step. O(state=uncordoned) writes O(journal.events) and the uncordon's C(finished) once the API
    has taken it. O(state=cordoned) writes nothing, since a run killed right after the cordon's PATCH must leave no
    cordon event; the cordon's C(finished) goes with the drain's O(journal.events). A task that fails records nothing
    after its API work.
"""

EXAMPLES = r"""
- name: Drain the node, waiting up to 10 minutes for PodDisruptionBudgets
  gpusmith.numa_gate.kube_node:
    kubeconfig: "{{ numa_gate_kubeconfig }}"
    node: "{{ numa_gate_node_name | default(inventory_hostname) }}"
    state: drained
    timeout: 600
    poll: 5
  register: drain_result

- name: Uncordon it again, only if this play cordoned it
  gpusmith.numa_gate.kube_node:
    kubeconfig: "{{ numa_gate_kubeconfig }}"
    node: "{{ numa_gate_node_name | default(inventory_hostname) }}"
    state: uncordoned
  when: drain_result.cordoned
"""

RETURN = r"""
node:
  description: The node's name.
  returned: always
  type: str
  sample: gpu-node-01
state:
  description: The state asked for.
  returned: always
  type: str
  sample: drained
was_unschedulable:
  description: Whether the node was unschedulable (cordoned) before this task.
  returned: when the node was read
  type: bool
  sample: false
cordoned:
  description: Whether this task cordoned the node (in check mode, whether it would). Also in a failed drain's result.
  returned: O(state) is V(cordoned) or V(drained)
  type: bool
  sample: true
uncordoned:
  description: Whether this task uncordoned the node (in check mode, whether it would).
  returned: O(state) is V(uncordoned)
  type: bool
  sample: false
evicted:
  description:
    - The pods evicted, as C(namespace/name), in name order (in check mode, the pods that would be evicted).
    - A pod already gone when its eviction was sent is not listed.
  returned: O(state) is V(drained)
  type: list
  elements: str
  sample: [default/web-1, default/web-2]
skipped_pods:
  description:
    - The pods left on the node and why (DaemonSet-managed, mirror pod).
    - Not named C(skipped), which Ansible reads as the task having been skipped.
  returned: O(state) is V(drained)
  type: list
  elements: dict
  sample: [{pod: kube-system/node-agent-x7k2p, reason: DaemonSet-managed}]
pod_warnings:
  description:
    - "kubectl's warnings for pods evicted under O(force), C(<warning>: ns/a, ns/b); they are shown as task warnings too."
    - As kubectl, the emptyDir warning of a pod that has a controller is not kept (a later filter's status replaces it).
  returned: O(state) is V(drained) and the drain ran
  type: list
  elements: str
  sample: ["deleting Pods that declare no controller: default/debug"]
waited_s:
  description: Seconds the drain took.
  returned: O(state) is V(drained)
  type: float
  sample: 12.4
pending:
  description:
    - Every pod left when the drain failed, as C(namespace/name), in name order - still refused, still terminating,
      not evicted yet, or ended by an error (see RV(failed_pods)).
    - After an eviction error kubectl's drain, and this one, still evict and await every other pod, then fail; with
      O(disable_eviction) the first deletion error stops the drain at once, as kubectl's does.
  returned: a drain that timed out or that an eviction, deletion or read error ended
  type: list
  elements: str
  sample: [default/db-0, default/web-2]
failed_pods:
  description:
    - Each pod whose eviction (or deletion, or the wait for it to go) ended in an error other than 429 or 404, with the
      API's HTTP code (0 when the server was not reached) and message; the task's C(msg) names each with kubectl's words,
      C(error when evicting pods/"web-2" -n "default") and the message.
    - Not named C(failed), which Ansible reads as the task having failed.
  returned: a drain that timed out or that an eviction, deletion or read error ended
  type: list
  elements: dict
  sample: [{pod: default/web-2, code: 500, message: "Internal error occurred: etcdserver: request timed out"}]
blocked:
  description:
    - Each pod whose eviction was still refused when the bound ran out, the API's message and the budgets that cover it
      with their status now.
    - A covering budget that still allows a disruption did not refuse the eviction (the 429 came from elsewhere); the
      task's C(msg) and the progress lines name only the budgets that block.
  returned: a drain that timed out
  type: list
  elements: dict
  sample: [{pod: default/db-0, message: "Cannot evict pod as it would violate the pod's disruption budget.",
            budgets: [{name: db-pdb, spec: {minAvailable: 1}, status: {disruptionsAllowed: 0, currentHealthy: 1,
            desiredHealthy: 1, expectedPods: 1}}]}]
would_evict:
  description: The pods a refused drain would have evicted; with O(state=drainable), the pods the drain would evict.
  returned: a drain refused by pods it may not evict, and O(state=drainable)
  type: list
  elements: str
  sample: [default/web-1]
budgets:
  description:
    - The PodDisruptionBudgets that cover the pods the drain would evict, each with the disruptions it allows now and those
      pods (the pods a budget check skips, Pending or finished or being deleted, are not counted).
  returned: O(state=drainable), unless pods the drain may not evict refused it
  type: list
  elements: dict
  sample: [{budget: default/db-pdb, disruptions_allowed: 1, pods: [default/db-0, default/db-1]}]
budget_waits:
  description:
    - The budgets under which the drain would evict more pods than they allow now while allowing at least one; the drain
      evicts those pods one by one as their replacements become healthy elsewhere, within its bound.
  returned: O(state=drainable), unless it failed
  type: list
  elements: str
  sample: ["default/db-0, default/db-1 leave one by one: PodDisruptionBudget default/db-pdb allows 1 disruption and the drain would evict
            2 of its pods; the drain waits for their replacements to be healthy elsewhere, within its bound"]
staying:
  description: With O(admission), the pods that stay on the node through the restart, in creation order.
  returned: O(state=drainable) with O(admission)
  type: list
  elements: dict
  sample: [{pod: kube-system/nvidia-device-plugin-x7k2p, uid: 5d1c..., owner: kube-system/nvidia-device-plugin, qos: not Guaranteed}]
predicted_rejections:
  description: With O(admission), the staying pods the target policy would reject, why, and whether O(admission.allow) allows it.
  returned: O(state=drainable) with O(admission)
  type: list
  elements: dict
  sample: [{pod: kube-system/burner-abc, reason: TopologyAffinityError, why: "TopologyAffinityError (...)", allowed: true}]
extended_resources:
  description: With O(admission), the Node's allocatable extended resources (device plugins') before the stop.
  returned: O(state=drainable) with O(admission)
  type: dict
  sample: {nvidia.com/gpu: "8"}
device_access:
  description:
    - With O(admission), the node's GPU device plugin as judged under the target (C(plugin), C(settings), C(safe) true, false or
      null when there is nothing to judge, C(why)), the node's C(container_runtime) version as the API reports it, and
      C(runtime_versions) as the node's binaries print them (O(admission.runtime_versions)).
  returned: O(state=drainable) with O(admission), unless a staying pod refused it
  type: dict
  sample: {plugin: "gpu-operator/nvidia-device-plugin-daemonset-7x2kq (container nvidia-device-plugin)",
           settings: {pass_device_specs: "true", device_list_strategy: envvar, privileged: true, config_file: null},
           safe: true, why: PASS_DEVICE_SPECS is true (PASS_DEVICE_SPECS) on a privileged container, container_runtime: containerd://2.1.4,
           runtime_versions: {containerd: 2.1.4, cri-o: null, runc: 1.3.0}}
failed_before:
  description: With O(admission), the uids of the node's pods that had already failed before the stop.
  returned: O(state=drainable) with O(admission)
  type: list
  elements: str
refusals:
  description: Why the drain would not go through now, one line per pod or budget.
  returned: O(state=drainable) when it fails
  type: list
  elements: str
  sample: ["default/db-0 cannot leave now: PodDisruptionBudget default/db-pdb allows 0 disruptions (Cannot evict pod as it would
            violate the pod's disruption budget)"]
journal:
  description:
    - With O(journal), where the transition stands after this task's events were recorded on the node (as
      P(gpusmith.numa_gate.transition_journal#module) says).
  returned: with O(journal), outside check mode
  type: dict
transition_record:
  description:
    - With O(journal) and O(state=uncordoned), the transition's record read on the node right after the uncordon's
      C(finished) event, in the same module run (as M(gpusmith.numa_gate.transition_info) returns it in RV(gpusmith.numa_gate.transition_info#module:record)).
  returned: with O(journal) and O(state=uncordoned), outside check mode
  type: dict
"""


from ansible.module_utils.basic import AnsibleModule

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._transition.api import specs

# The action's (plugins/action/kube_node.py), declared once in plugins/module_utils/_transition/api/specs.py.
ARGUMENT_SPEC = specs.KUBE_NODE


def main():
    """This module runs as an action plugin on the controller; run on a host, it only says so."""
    module = AnsibleModule(argument_spec=ARGUMENT_SPEC, supports_check_mode=True)
    module.fail_json(msg="gpusmith.numa_gate.kube_node runs as an action plugin on the controller; this module file only holds its documentation")


if __name__ == "__main__":
    main()
