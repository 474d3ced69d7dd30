# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The service_load and service_window actions' argument specs, declared once in specs.py.

tests/unit/test_action_specs.py checks that the action file and its module file hold these dicts and that the module's
documentation matches them.
"""

import json

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._service_comparison import query, specs
from ansible_collections.gpusmith.numa_gate.tests.unit.plugins.module_utils import light_imports


def test_each_spec_is_plain_data_option_by_option():
    for spec in (specs.SERVICE_LOAD, specs.SERVICE_WINDOW):
        assert json.loads(json.dumps(spec)) == spec
        assert all(isinstance(option, dict) and "type" in option for option in spec.values())


def test_the_spec_module_loads_no_api_client_and_no_third_party_library():
    assert light_imports.heavy_imports("_service_comparison.specs") == []


def test_the_read_bounds_are_the_query_s_defaults():
    assert (query.DEFAULT_TIMEOUT, query.DEFAULT_MAX_BYTES) == (specs.READ_TIMEOUT, specs.READ_MAX_BYTES)
