"""Unit tests for the locality_oracle filter (plugins/filter/locality.py)."""

import pytest

from ansible.errors import AnsibleFilterError

from ansible_collections.gpusmith.numa_gate.plugins.filter.locality import FilterModule

FILTERS = FilterModule().filters()


def facts(**keys):
    return dict({"schema_version": 1, "cpus": {"online": "0-3", "isolated": ""},
                 "numa_nodes": [{"id": 0, "cpus": "0-3", "memory_bytes": 1 << 30}], "gpus": [], "nics": []}, **keys)


def test_filter_names():
    assert sorted(FILTERS) == ["locality_oracle"]


def test_locality_oracle_filter():
    oracle = FILTERS["locality_oracle"](facts(nics=[{"name": "ens1", "pci_address": "0000:1a:00.0", "numa_node": 0,
                                                     "numa_source": "sysfs", "local_cpus": "0-3"}]))
    assert oracle["by_numa_node"] == {"0": {"cpus": "0-3", "gpus": [], "nics": ["ens1"]}}
    assert oracle["unknown_locality"] == [] and oracle["warnings"] == []


@pytest.mark.parametrize("topology, message", [
    ({"schema_version": 2}, "locality_oracle: topology schema_version 2 is not supported; the locality oracle reads schema_version 1"),
    (facts(gpus=[{"pci_address": "0000:18:00.0", "numa_node": 0, "vendor_affinity": "nvml"}]),
     "locality_oracle: topology gpus entry 0000:18:00.0: vendor_affinity 'nvml' is a str, expected a dict with source, numa_node and cpus, "
     "or null"),
])
def test_locality_oracle_filter_errors(topology, message):
    with pytest.raises(AnsibleFilterError) as err:
        FILTERS["locality_oracle"](topology)
    assert str(err.value) == message
