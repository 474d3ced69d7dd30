# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The transition's API side (controller): the maintenance lock, the drain's dry run, cordon, drain, budgets, readiness and /configz.

Import the submodules explicitly; this file holds only this map.

- ``budgets``: Which PodDisruptionBudgets cover a pod, and how to name one in a message.
- ``came_back``: After the kubelet's start: the pods that stayed were admitted again, and the device plugins registered again.
- ``configz``: Compare what a kubelet's ``/configz`` shows with the settings it should run with, by value.
- ``cordon``: Cordon and uncordon a node: ``spec.unschedulable``, patched only when it differs.
- ``device_access``: GPU device access under the static CPU manager: does the node's NVIDIA device plugin run so that it survives it?
- ``drain``: Drain a node as ``kubectl drain`` does, within a bound, saying what it waits for while it waits.
- ``dry_run``: The drain, checked before the cordon: would every pod the drain evicts leave now? Nothing is changed.
- ``filters``: Which pods a drain evicts, skips or refuses: kubectl's pod filters.
- ``lock``: One maintenance lock per node that other tools see: a ``coordination.k8s.io/v1`` Lease named for the collection.
- ``maintenance``: The node's maintenance lock through the NVIDIA Maintenance Operator's ``NodeMaintenance``, where its CRD is served.
- ``node``: One node's wanted scheduling state: cordoned, drained or uncordoned, or its drain checked (the kube_node action's logic).
- ``ready``: Verify a node after a kubelet start: Ready and healthy without a break for a window, then /configz.
- ``specs``: The kube_node, kubelet_verify and transition_lock actions' argument specs, declared once: each action and module file import them.
- ``staying``: The pods that stay on the node through the kubelet's restart, and whether the target policy would admit them.
"""
