"""The config diff from the baseline (_record/configdiff.py): by key, lists whole, secrets masked."""

import pytest

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._record import configdiff
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._record.errors import RecordError


def test_diff_by_key_lists_whole():
    baseline = {"apiVersion": "kubelet.config.k8s.io/v1beta1", "cpuManagerPolicy": "none", "featureGates": {"PodLevelResources": True},
                "reservedMemory": [{"numaNode": 0, "limits": {"memory": "100Mi"}}], "maxPods": 110}
    target = {"apiVersion": "kubelet.config.k8s.io/v1beta1", "cpuManagerPolicy": "static",
              "featureGates": {"PodLevelResources": True, "PodLevelResourceManagers": True},
              "reservedMemory": [{"numaNode": 0, "limits": {"memory": "50Mi"}}, {"numaNode": 1, "limits": {"memory": "50Mi"}}]}
    assert configdiff.diff(baseline, target) == [
        {"key": "cpuManagerPolicy", "change": "changed", "before": "none", "after": "static"},
        {"key": "featureGates.PodLevelResourceManagers", "change": "added", "before": None, "after": True},
        {"key": "maxPods", "change": "removed", "before": 110, "after": None},
        {"key": "reservedMemory", "change": "changed", "before": [{"numaNode": 0, "limits": {"memory": "100Mi"}}],
         "after": [{"numaNode": 0, "limits": {"memory": "50Mi"}}, {"numaNode": 1, "limits": {"memory": "50Mi"}}]}]
    assert configdiff.diff(target, target) == []


def test_credentials_are_masked():
    before = {"staticPodURLHeader": {"Authorization": ["Bearer old-token"]}}
    after = {"staticPodURLHeader": {"Authorization": ["Bearer new-token"]}}
    found = configdiff.diff(before, after)
    assert "old-token" not in repr(found) and "new-token" not in repr(found)


def test_not_a_mapping():
    with pytest.raises(RecordError, match="^config diff: the baseline configuration must be a mapping, got str$"):
        configdiff.diff("cpuManagerPolicy: none", {})
