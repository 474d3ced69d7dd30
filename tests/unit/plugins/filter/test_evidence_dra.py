# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The pod_allocations filter with the API's ResourceClaims and ResourceSlices: each DRA device joined to its claim and slice, and
a claim or node of the wrong shape refused naming it (issue 27, item 1)."""

import pytest

from ansible.errors import AnsibleFilterError

from ansible_collections.gpusmith.numa_gate.plugins.filter import evidence
from ansible_collections.gpusmith.numa_gate.tests.unit.plugins.module_utils._device_path.test_dra_claims import FACTS, NODE, SLICE, claim, pod


def test_dra_devices_joined_through_the_filter():
    result = evidence.pod_allocations([pod("10-11", claimed=[("gpu-claim", "gpu-0")], memory_nodes=(1,))], "pod", FACTS,
                                      resource_claims=[claim("gpu-claim", "gpu-0")], resource_slices=[SLICE], node=NODE)
    assert [(f["check"], f["result"], f["expected"], f["observed"]) for f in result["pods"][0]["findings"]] == [
        ("dra_device_numa", "disagree", [0], [1]), ("dra_device_memory_numa", "disagree", [0], [1])]
    assert result["pods"][0]["devices"]["main"][0]["slice"] == "gpu-1-gpu.nvidia.com-x7k2p"


def test_without_claims_a_dra_device_is_matched_by_name_and_unknown():
    result = evidence.pod_allocations([pod("10-11", claimed=[("gpu-claim", "gpu-0")])], "pod", FACTS)
    (device,) = result["pods"][0]["devices"]["main"]
    assert (device["id"], device["kind"], device["numa_node"]) == ("gpu-0", None, None)
    assert [(f["check"], f["result"], f["observed"]) for f in result["pods"][0]["findings"]] == [("dra_claim", "unknown", "gpu-0")]


@pytest.mark.parametrize("claims, node, message", [
    ([claim("gpu-claim", "gpu-0")], None,
     "the node's name must be a non-empty string to join DRA devices to its ResourceSlices, got None"),
    ("gpu-claim", NODE, "ResourceClaims must be a list (the items of a ResourceClaimList), got str"),
])
def test_wrong_shapes_are_refused_naming_them(claims, node, message):
    with pytest.raises(AnsibleFilterError) as err:
        evidence.pod_allocations([pod("10-11")], "pod", FACTS, resource_claims=claims, resource_slices=[SLICE], node=node)
    assert message in str(err.value)
