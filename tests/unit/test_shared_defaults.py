# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Each shared default is one Python constant; its literal copies (the doc fragments, which ansible-doc reads as text,
and roles/numa_gate/defaults/main.yml, the roles' one default) and every module's argument spec must equal it."""

from __future__ import annotations

import importlib
import os

import yaml

from ansible_collections.gpusmith.numa_gate.plugins.doc_fragments import kube_api as kube_api_fragment
from ansible_collections.gpusmith.numa_gate.plugins.doc_fragments import kubelet_layout, node_state, transition_journal
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kube_api import connection_spec
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kubelet.config import layout
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._node_files import confine
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._transition.journal import step as step_journal
from ansible_collections.gpusmith.numa_gate.tests.unit import ansible_run

LAYOUT = {"path": "/var/lib/kubelet/config.yaml", "config_dir": "/etc/kubernetes/kubelet.conf.d", "dropin_name": "50-numa-gate.conf",
          "kubelet_root_dir": "/var/lib/kubelet", "root": "/"}


def _settings():
    with open(os.path.join(ansible_run.REPO, "roles", "numa_gate", "defaults", "main.yml"), encoding="utf-8") as handle:
        return yaml.safe_load(handle)


def test_the_layout_constants_are_the_layout_defaults():
    assert layout.DEFAULTS == LAYOUT
    assert {name: spec["default"] for name, spec in layout.layout_argument_spec().items()} == layout.DEFAULTS


def test_the_layout_doc_fragment_states_the_constants():
    options = yaml.safe_load(kubelet_layout.ModuleDocFragment.DOCUMENTATION)["options"]
    assert {name: option["default"] for name, option in options.items()} == layout.DEFAULTS


def test_the_settings_role_holds_the_constants():
    found = _settings()
    assert found["numa_gate_kubelet_layout"] == dict({name: value for name, value in layout.DEFAULTS.items() if name != "root"}, mode="dropin")
    assert found["numa_gate_state_dir"] == confine.DEFAULT_STATE_DIR == "/var/lib/numa-gate"


def test_the_state_dir_doc_fragments_and_argument_specs_state_the_constant():
    assert yaml.safe_load(node_state.ModuleDocFragment.DOCUMENTATION)["options"]["state_dir"]["default"] == confine.DEFAULT_STATE_DIR
    journal = yaml.safe_load(transition_journal.ModuleDocFragment.DOCUMENTATION)["options"]
    assert [option["suboptions"]["state_dir"]["default"] for option in journal.values()] == [confine.DEFAULT_STATE_DIR]
    assert step_journal.ARGUMENT_SPEC["journal"]["options"]["state_dir"]["default"] == confine.DEFAULT_STATE_DIR


def test_the_api_request_timeout_is_one_constant():
    """The client's default, every API-facing action's and documentation stub's argument spec, and the kube_api doc fragment."""
    assert connection_spec.REQUEST_TIMEOUT == 30
    documented = yaml.safe_load(kube_api_fragment.ModuleDocFragment.DOCUMENTATION)["options"]["request_timeout"]
    assert documented["default"] == connection_spec.REQUEST_TIMEOUT
    # Each action's spec is declared once in module_utils and its documentation stub holds the same dict
    # (tests/unit/test_action_specs.py): the six API-facing ones take the option from connection_spec.
    seen = []
    folder = os.path.join(ansible_run.REPO, "plugins", "action")
    for name in sorted(n[:-3] for n in os.listdir(folder) if n.endswith(".py") and n != "__init__.py"):
        spec = importlib.import_module("ansible_collections.gpusmith.numa_gate.plugins.action." + name).ARGUMENT_SPEC
        if "request_timeout" in spec:
            seen.append(name)
            assert spec["request_timeout"] is connection_spec.REQUEST_TIMEOUT_SPEC, name
    assert seen == ["canary_wait", "device_path_info", "kube_node", "kubelet_metrics_info", "kubelet_verify", "rehearsal_workloads", "service_load",
                    "service_window", "stack_info", "transition_lock"]
