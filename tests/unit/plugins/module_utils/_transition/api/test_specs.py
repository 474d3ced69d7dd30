# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""kube_node's and kubelet_verify's argument specs, declared once in specs.py.

tests/unit/test_action_specs.py checks that the action file and its module file hold these dicts and that the module's
documentation matches them.
"""

import json

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._transition import decision
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._transition.api import node, specs
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._transition.journal import step as step_journal
from ansible_collections.gpusmith.numa_gate.tests.unit.plugins.module_utils import light_imports


def test_each_spec_is_plain_data_option_by_option():
    for spec in (specs.KUBE_NODE, specs.KUBELET_VERIFY):
        assert json.loads(json.dumps(spec)) == spec
        assert all(isinstance(option, dict) and "type" in option for option in spec.values())


def test_the_spec_module_loads_no_api_client_and_no_third_party_library():
    assert light_imports.heavy_imports("_transition.api.specs") == []


def test_the_choices_are_the_logic_s_own():
    assert node.STATES is specs.STATES
    assert specs.KUBE_NODE["journal"] is step_journal.CONTROLLER_ARGUMENT_SPEC["journal"]
    decide = specs.KUBELET_VERIFY["decide"]["options"]
    assert (tuple(decide["target"]["choices"]), tuple(decide["mode"]["choices"])) == (decision.TARGETS, decision.MODES)
