# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The transition_resume filter adapts _transition.resume.plan (controller code: it needs ansible.errors)."""

import pytest

from ansible.errors import AnsibleFilterError

from ansible_collections.gpusmith.numa_gate.plugins.filter import transition as transition_filter


def test_the_filter_adapts_it():
    assert transition_filter.FilterModule().filters() == {"transition_resume": transition_filter.transition_resume}
    assert transition_filter.transition_resume({"steps": {}}, False, False, False)["cordons"] is True
    with pytest.raises(AnsibleFilterError) as caught:
        transition_filter.transition_resume({}, "no", False, False)
    assert str(caught.value) == "transition_resume: resumed must be true or false, not 'no'"
