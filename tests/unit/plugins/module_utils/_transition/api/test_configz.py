# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""/configz compared with the expected settings by value."""

import pytest

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._transition.api import configz


@pytest.mark.parametrize("field, expected, actual", [
    ("reservedMemory", [{"numaNode": 0, "limits": {"memory": "1Gi"}}], [{"numaNode": 0, "limits": {"memory": "1024Mi"}}]),
    ("reservedMemory", [{"numaNode": 1, "limits": {"memory": "1Gi", "hugepages-1Gi": "2Gi"}}, {"numaNode": 0, "limits": {"memory": "1Gi"}}],
     [{"numaNode": 0, "limits": {"memory": "1073741824"}}, {"numaNode": 1, "limits": {"hugepages-1Gi": "2048Mi", "memory": "1Gi"}}]),
    ("kubeReserved", {"cpu": "1", "memory": "1G"}, {"cpu": "1000m", "memory": "1000M"}),
    ("evictionHard", {"memory.available": "100Mi", "nodefs.available": "10%"}, {"memory.available": "102400Ki", "nodefs.available": "10%"}),
    ("reservedSystemCPUs", "0,1,2,8", "0-2,8"),
    ("cpuManagerReconcilePeriod", "10s", "10000ms"),
    ("shutdownGracePeriod", "60s", "1m0s"),
    ("maxPods", 110, 110.0),
    ("cpuManagerPolicyOptions", {"full-pcpus-only": "true"}, {"full-pcpus-only": "true"}),
    ("featureGates", {"PodLevelResources": True}, {"PodLevelResources": True, "Other": False}),
])
def test_equal_by_value(field, expected, actual):
    assert configz.compare({field: expected}, {field: actual}) == []


@pytest.mark.parametrize("field, expected, actual", [
    ("reservedMemory", [{"numaNode": 0, "limits": {"memory": "1Gi"}}], [{"numaNode": 1, "limits": {"memory": "1Gi"}}]),
    ("reservedMemory", [{"numaNode": 0, "limits": {"memory": "1Gi"}}], [{"numaNode": 0, "limits": {"memory": "1G"}}]),
    ("kubeReserved", {"memory": "1Gi"}, {"memory": "1Gi", "cpu": "1"}),
    ("evictionHard", {"nodefs.available": "10%"}, {"nodefs.available": "15%"}),
    ("reservedSystemCPUs", "0-1", "0-2"),
    ("cpuManagerPolicy", "static", "none"),
    ("maxPods", 110, "110"),
    ("failSwapOn", True, 1),
])
def test_different_by_value(field, expected, actual):
    assert configz.compare({field: expected}, {field: actual}) == [{"field": field, "expected": expected, "actual": actual}]


def test_a_field_configz_lacks_is_a_mismatch_with_actual_none():
    assert configz.compare({"topologyManagerScope": "pod", "featureGates": {"A": True, "B": False}}, {"featureGates": {"B": False}}) == [
        {"field": "featureGates.A", "expected": True, "actual": None},
        {"field": "topologyManagerScope", "expected": "pod", "actual": None}]


def test_parse_reads_kubeletconfig_and_names_bad_answers():
    assert configz.parse('{"kubeletconfig": {"cpuManagerPolicy": "static"}}', "n1") == {"cpuManagerPolicy": "static"}
    with pytest.raises(configz.ConfigzError) as caught:
        configz.parse("<html>", "n1")
    assert str(caught.value) == "verify n1: /configz did not answer JSON: '<html>'"
    with pytest.raises(configz.ConfigzError) as caught:
        configz.parse('{"kind": "x"}', "n1")
    assert str(caught.value) == "verify n1: /configz answered no 'kubeletconfig' object: '{\"kind\": \"x\"}'"


def test_describe():
    assert configz.describe([{"field": "a", "expected": "x", "actual": None}, {"field": "b", "expected": 1, "actual": 2}]) == (
        'a: expected "x", /configz shows nothing; b: expected 1, /configz shows 2')


def test_configz_of_the_wrong_shape_or_depth_is_named():
    with pytest.raises(configz.ConfigzError) as caught:
        configz.parse("[" * 100000 + "]" * 100000, "n1")
    assert str(caught.value) == "verify n1: /configz did not answer JSON: %r" % ("[" * 200)
    with pytest.raises(configz.ConfigzError) as caught:
        configz.parse('{"kubeletconfig": ' + "[" * 120 + "]" * 120 + "}", "n1")
    assert str(caught.value) == "verify n1: /configz answered lists and objects nested more than 100 levels deep; not read"
    config = configz.parse('{"kubeletconfig": {"reservedMemory": [{"numaNode": 0, "limits": ["1Gi"]}, {"numaNode": 0, "limits": {"memory": {}}},'
                           ' {"numaNode": 0, "limits": {"memory": NaN}}], "kubeReserved": {"memory": []}}}', "n1")
    mismatches = configz.compare({"reservedMemory": [{"numaNode": 0, "limits": {"memory": "1Gi"}}], "kubeReserved": {"memory": "1Gi"},
                                  5: "x"}, config)
    assert [m["field"] for m in mismatches] == ["5", "kubeReserved", "reservedMemory"]
    assert configz.describe(mismatches).startswith('5: expected "x", /configz shows nothing; kubeReserved: expected {"memory": "1Gi"}')
