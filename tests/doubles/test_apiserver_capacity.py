# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Seeded nodes carry ``status.capacity`` and ``status.allocatable`` computed as the kubelet computes
them (node_resources.py), read back with the real kubectl (``get -o jsonpath``, ``describe node``)."""

import json

import pytest

from apiserver import objects, quantity
from apiserver import store as api_store


def _section(text, title):
    """The indented lines under ``title:`` in kubectl describe output."""
    lines = text.split("\n")
    start = lines.index(title + ":") + 1
    body = []
    for line in lines[start:]:
        if not line.startswith("  "):
            break
        body.append(line.strip())
    return body


def test_apiserver_capacity_defaults(api, kubectl):
    api.add_node("node-1")
    capacity = kubectl("get", "node", "node-1", "-o", "jsonpath={.status.capacity}")
    allocatable = kubectl("get", "node", "node-1", "-o", "jsonpath={.status.allocatable}")
    assert (capacity.returncode, allocatable.returncode) == (0, 0), capacity.stderr + allocatable.stderr
    assert json.loads(capacity.stdout) == {"cpu": "64", "ephemeral-storage": "459850824Ki", "hugepages-1Gi": "0", "hugepages-2Mi": "0",
                                           "memory": "263853344Ki", "pods": "110"}
    # memory less the default memory.available<100Mi; ephemeral-storage less nodefs.available<10% of 470887243776 bytes,
    # the percentage a float32 as the kubelet parses it: 470887243776 - int(470887243776 * float32(0.1)) = 423798518697.
    assert json.loads(allocatable.stdout) == {"cpu": "64", "ephemeral-storage": "423798518697", "hugepages-1Gi": "0", "hugepages-2Mi": "0",
                                              "memory": "263750944Ki", "pods": "110"}


def test_apiserver_capacity_reserved_and_hugepages_in_describe_node(api, kubectl):
    api.add_node("node-1", capacity={"cpu": "32", "hugepages-1Gi": "16Gi"}, reserved={"cpu": "500m", "memory": "4Gi"})
    pod = objects.pod("web-1", "default", api_store.timestamp(), node_name="node-1")
    pod["spec"]["containers"][0]["resources"] = {"requests": {"cpu": "2", "memory": "1Gi"}, "limits": {"memory": "2Gi"}}
    api.store.create("pods", pod)
    result = kubectl("describe", "node", "node-1")
    assert (result.returncode, result.stderr) == (0, "")
    assert _section(result.stdout, "Capacity") == [
        "cpu:                32", "ephemeral-storage:  459850824Ki", "hugepages-1Gi:      16Gi", "hugepages-2Mi:      0",
        "memory:             263853344Ki", "pods:               110"]
    # cpu 32 - 500m; memory 263853344Ki - 4Gi - 100Mi (eviction) - 16Gi (hugepages) = 242779424Ki.
    assert _section(result.stdout, "Allocatable") == [
        "cpu:                31500m", "ephemeral-storage:  423798518697", "hugepages-1Gi:      16Gi", "hugepages-2Mi:      0",
        "memory:             242779424Ki", "pods:               110"]
    allocated = _section(result.stdout, "Allocated resources")
    # kubectl's percentages of allocatable: 2000m of 31500m is 6%, 1Gi of 242779424Ki under 1%.
    assert "cpu                2 (6%)    0 (0%)" in allocated and "memory             1Gi (0%)  2Gi (0%)" in allocated


def test_apiserver_capacity_given_outright_and_eviction_thresholds(api, kubectl):
    api.add_node("node-1", capacity={"cpu": "8", "memory": "32Gi", "ephemeral-storage": "100Gi"},
                 eviction_hard={"memory.available": "500Mi", "nodefs.available": "5%"})
    api.add_node("node-2", allocatable={"cpu": "7", "memory": "30Gi", "pods": "110"})
    first = kubectl("get", "node", "node-1", "-o", "jsonpath={.status.allocatable}")
    # 32Gi - 500Mi = 32268Mi; float32(0.05) = 13421773 * 2**-28, so 5% of 100 * 2**30 bytes is 5368709200 bytes.
    assert json.loads(first.stdout) == {"cpu": "8", "ephemeral-storage": "102005473200", "hugepages-1Gi": "0", "hugepages-2Mi": "0",
                                        "memory": "32268Mi", "pods": "110"}
    second = kubectl("get", "node", "node-2", "-o", "jsonpath={.status.allocatable}")
    assert json.loads(second.stdout) == {"cpu": "7", "memory": "30Gi", "pods": "110"}


def test_apiserver_capacity_quantities_written_as_the_api_writes_them():
    assert [quantity.canonical(text) for text in ("1000", "1500", "0.5", "1024", "1048576", "1.5Gi", "100Mi", "0")] == [
        "1k", "1500", "500m", "1024", "1048576", "1536Mi", "100Mi", "0"]
    with pytest.raises(ValueError, match="'12 cores'"):
        quantity.canonical("12 cores")
