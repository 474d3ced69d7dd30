# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The transition filters adapt _transition.resume.plan and _transition.decision.decide (controller code: they need ansible.errors)."""

import pytest

from ansible.errors import AnsibleFilterError

from ansible_collections.gpusmith.numa_gate.plugins.filter import transition as transition_filter


def test_the_filter_adapts_it():
    assert transition_filter.FilterModule().filters() == {"transition_resume": transition_filter.transition_resume,
                                                          "transition_decision": transition_filter.transition_decision}
    assert transition_filter.transition_resume({"steps": {}}, False, False, False)["cordons"] is True
    with pytest.raises(AnsibleFilterError) as caught:
        transition_filter.transition_resume({}, "no", False, False)
    assert str(caught.value) == "transition_resume: resumed must be true or false, not 'no'"


def test_the_decision_filter_adapts_it():
    kept = {"intact": True, "problems": [], "open_transition": None, "drift": [{"path": "/var/lib/kubelet/config.yaml", "differs": "absent now"}]}
    found = transition_filter.transition_decision({"changed": False}, "rollback", {"would_refuse": False, "refusals": {}}, kept,
                                                  now={"ready": True, "mismatches": []}, allow_disruption=True, host="gpu-7")
    assert found == {"converged": False, "target_in_place": True, "ask_api": False, "refusal": None, "notes": [],
                     "reasons": ["the node's files differ from the baseline (/var/lib/kubelet/config.yaml: absent now)"]}
    with pytest.raises(AnsibleFilterError) as caught:
        transition_filter.transition_decision({"changed": False}, "sideways", {"would_refuse": False}, kept)
    assert str(caught.value) == "transition_decision: target must be one of enable, rollback, not 'sideways'"
