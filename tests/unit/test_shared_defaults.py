# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Each shared default is one Python constant; its literal copies (the doc fragments, which ansible-doc reads as text,
and roles/numa_gate/defaults/main.yml, the roles' one default) and every module's argument spec must equal it."""

from __future__ import annotations

import os

import yaml

from ansible_collections.gpusmith.numa_gate.plugins.doc_fragments import kubelet_layout, node_state, transition_journal
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kubelet.config import layout
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._node_files import confine
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._transition.journal import step as step_journal
from ansible_collections.gpusmith.numa_gate.tests.unit import ansible_run

LAYOUT = {"path": "/var/lib/kubelet/config.yaml", "config_dir": "/etc/kubernetes/kubelet.conf.d", "dropin_name": "50-numa-gate.conf",
          "kubelet_root_dir": "/var/lib/kubelet", "root": "/"}


def _settings():
    with open(os.path.join(ansible_run.REPO, "roles", "settings", "defaults", "main.yml"), encoding="utf-8") as handle:
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
