"""The rehearsal filters (plugins/filter/rehearsal.py): thin adapters, errors as AnsibleFilterError."""

import pytest

from ansible.errors import AnsibleFilterError

from ansible_collections.gpusmith.numa_gate.plugins.filter import rehearsal


def test_filters_are_registered():
    assert sorted(rehearsal.FilterModule().filters()) == ["rehearsal_restarts"]


def test_rehearsal_restarts():
    item = {"pod": "ml/t-0", "main": {"container": "main"}}
    stops = {"results": [{"item": item, "failed": True, "msg": "cgroup /x has no process of those given"}]}
    assert rehearsal.rehearsal_restarts(stops, {}, {}, None, None) == [
        {"pod": "ml/t-0", "container": "main", "restart_count": None, "changes": [], "error": "cgroup /x has no process of those given",
         "restarted": False}]
    with pytest.raises(AnsibleFilterError, match=r"^rehearsal_restarts: stops.results\[0\] is 'x', not a task result of the restart loop"):
        rehearsal.rehearsal_restarts({"results": ["x"]}, {}, {}, None, None)
