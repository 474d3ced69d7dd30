# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The kube_node, kubelet_verify and transition_lock actions' argument specs, declared once: each action and module file import them.

Public: `KUBE_NODE`, `KUBELET_VERIFY`, `TRANSITION_LOCK`, `STATES`, `LOCK_STATES`, `LOCK_KINDS`.

The module files (plugins/modules/kube_node.py, kubelet_verify.py) are imported where only the node's Python is,
so this file never imports the API client (`node`, `ready`: they do): it reads the connection options'
spec (`_kube_api.connection_spec`, no imports), the journal option's (`journal.step`, which the node modules
take too) and the decision's targets and modes (`decision`), each importing only the standard library and
module_utils. The kube_node states are declared here, and `node` reads them from here.
"""

from __future__ import annotations

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kube_api import connection_spec
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._transition import decision
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._transition.journal import step as step_journal

# One node's wanted scheduling state (node.STATES).
STATES = ("cordoned", "drained", "uncordoned", "drainable")

KUBE_NODE = {
    **connection_spec.ARGUMENT_SPEC,
    "request_timeout": connection_spec.REQUEST_TIMEOUT_SPEC,
    "node": {"type": "str", "required": True},
    "state": {"type": "str", "required": True, "choices": list(STATES)},
    "timeout": {"type": "int", "default": 300},
    "poll": {"type": "float", "default": 5},
    "ignore_daemonsets": {"type": "bool", "default": True},
    "delete_emptydir_data": {"type": "bool", "default": False},
    "force": {"type": "bool", "default": False},
    "grace_period": {"type": "int"},
    "disable_eviction": {"type": "bool", "default": False},
    "admission": {"type": "dict", "options": {
        "config": {"type": "dict", "required": True},
        "numa_nodes": {"type": "list", "elements": "dict", "required": True},
        "allow": {"type": "list", "elements": "str", "default": []},
        "device_access_override": {"type": "bool", "default": False},
        "runtime_versions": {"type": "dict", "default": {}},
    }},
    **step_journal.CONTROLLER_ARGUMENT_SPEC,
}

KUBELET_VERIFY = {
    **connection_spec.ARGUMENT_SPEC,
    "request_timeout": connection_spec.REQUEST_TIMEOUT_SPEC,
    "node": {"type": "str", "required": True},
    "expect": {"type": "dict", "default": {}},
    "timeout": {"type": "int", "default": 180},
    "stable_s": {"type": "int", "default": 20},
    "poll": {"type": "float", "default": 2},
    "decide": {"type": "dict", "options": {
        "target": {"type": "str", "required": True, "choices": list(decision.TARGETS)},
        "render": {"type": "dict", "required": True},
        "checkpoints": {"type": "dict", "required": True},
        "baseline": {"type": "dict", "required": True},
        "allow_disruption": {"type": "bool", "default": False},
        "host": {"type": "str", "default": "the node"},
        "mode": {"type": "str", "default": "dropin", "choices": list(decision.MODES)},
        "config_dir": {"type": "str"},
    }},
    "stayed": {"type": "dict", "options": {
        "extended_resources": {"type": "dict", "default": {}},
        "failed_before": {"type": "list", "elements": "str", "default": []},
        "gpu_pods": {"type": "list", "elements": "dict", "default": []},
    }},
}

# The node's maintenance lock (lock.py): held (taken or renewed) or released.
LOCK_STATES = ("held", "released")
LOCK_KINDS = ("auto", "lease", "node_maintenance")

TRANSITION_LOCK = {
    **connection_spec.ARGUMENT_SPEC,
    "request_timeout": connection_spec.REQUEST_TIMEOUT_SPEC,
    "node": {"type": "str", "required": True},
    "transition": {"type": "str", "required": True},
    "state": {"type": "str", "default": "held", "choices": list(LOCK_STATES)},
    "namespace": {"type": "str", "default": "kube-system"},
    "duration": {"type": "int", "default": 900},
    # auto: the NVIDIA Maintenance Operator's NodeMaintenance where its CRD is served, else the Lease (maintenance.py).
    "kind": {"type": "str", "default": "auto", "choices": list(LOCK_KINDS)},
    "maintenance_namespace": {"type": "str", "default": "default"},
    "timeout": {"type": "int", "default": 600},
    "poll": {"type": "float", "default": 2},
}
