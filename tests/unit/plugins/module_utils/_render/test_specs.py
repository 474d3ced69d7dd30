# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""kubelet_render's argument spec (kubelet_config's options, and reading), declared once in specs.py.

tests/unit/test_action_specs.py checks that the action file and its module file hold these dicts and that the module's
documentation matches them.
"""

import json

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kubelet.config import layout
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._render import specs
from ansible_collections.gpusmith.numa_gate.tests.unit.plugins.module_utils import light_imports


def test_each_spec_is_plain_data_option_by_option():
    for spec in (specs.KUBELET_CONFIG, specs.KUBELET_RENDER):
        assert json.loads(json.dumps(spec)) == spec
        assert all(isinstance(option, dict) and "type" in option for option in spec.values())


def test_the_spec_module_loads_no_api_client_and_no_third_party_library():
    # The layout's defaults come with the kubelet's model, which loads PyYAML where there is one (an optional import).
    assert light_imports.heavy_imports("_render.specs", allowed=("yaml",)) == []


def test_kubelet_render_takes_kubelet_config_s_options_and_its_reading():
    assert specs.KUBELET_RENDER == dict(specs.KUBELET_CONFIG, reading={"type": "dict"})
    assert {name: specs.KUBELET_CONFIG[name]["default"] for name in layout.DEFAULTS} == layout.DEFAULTS
