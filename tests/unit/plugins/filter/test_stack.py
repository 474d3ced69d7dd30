# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The stack filters: bad input is one AnsibleFilterError naming the filter and the rule."""

from __future__ import annotations

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.gpusmith.numa_gate.plugins.filter import stack

SEEN = {"versions": {"kubelet": "v1.37.1"}, "control_plane_gates": None, "labels": {}, "node_error": None}


def test_refusals_and_notes():
    assert stack.stack_refusals(SEEN, {}) == []
    assert stack.stack_refusals(SEEN, {"pool": "a"}, node="gpu-1")[0].startswith('node gpu-1 is not in the pool: it lacks {"pool": "a"}')
    assert stack.stack_notes(SEEN)[0].startswith("kube-apiserver's feature gates could not be read (not read)")
    assert sorted(stack.FilterModule().filters()) == ["stack_notes", "stack_refusals"]


def test_a_bad_selector_is_a_filter_error():
    with pytest.raises(AnsibleFilterError) as caught:
        stack.stack_refusals(SEEN, "canary")
    assert "numa_gate_pool_selector must map label names to values (strings; {} for every node on purpose), got 'canary'" in str(caught.value)
