"""Unit tests for the locality oracle (_plan/locality.py), which reads the facts through _facts/schema.py."""

import pytest

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._plan import locality as _locality


def _facts(gpus=(), nics=(), nodes=None):
    return {
        "schema_version": 1,
        "cpus": {"online": "0-31", "isolated": ""},
        "numa_nodes": nodes or [{"id": 0, "cpus": "0-7,16-23"}, {"id": 1, "cpus": "8-15,24-31"}],
        "gpus": list(gpus),
        "nics": list(nics),
    }


H200_GPU = {
    "index": 0,
    "uuid": "GPU-f2c38e61-1c95-2e97-c47e-1090719df202",
    "pci_address": "0000:00:06.0",
    "name": "NVIDIA H200",
    "sysfs_numa_node": None,
    "numa_node": 0,
    "numa_source": "nvidia-smi",
    "local_cpus": "0-15",
    "vendor_affinity": {"source": "nvidia-smi", "numa_node": 0, "cpus": "0-15"},
}


def test_vendor_value_is_kept_with_its_source_and_sysfs_unknown_is_not_a_disagreement():
    oracle = _locality.build(_facts(gpus=[H200_GPU], nodes=[{"id": 0, "cpus": "0-15"}]))
    (device,) = oracle["devices"]
    assert device["numa_node"] == 0
    assert device["numa_source"] == "nvidia-smi"
    assert device["node_cpus"] == "0-15"
    assert device["observations"] == [
        {"source": "sysfs", "numa_node": None, "cpus": "0-15"},
        {"source": "nvidia-smi", "numa_node": 0, "cpus": "0-15"},
    ]
    assert device["disagreements"] == []
    assert oracle["by_numa_node"] == {"0": {"cpus": "0-15", "gpus": ["GPU-f2c38e61-1c95-2e97-c47e-1090719df202"], "nics": []}}
    assert oracle["unknown_locality"] == []


def test_sources_that_disagree_are_reported_not_resolved():
    gpu = dict(H200_GPU, sysfs_numa_node=1, numa_node=1, numa_source="sysfs", local_cpus="8-15,24-31",
               vendor_affinity={"source": "nvml", "numa_node": 0, "cpus": "0-7,16-23"})
    oracle = _locality.build(_facts(gpus=[gpu]))
    (device,) = oracle["devices"]
    assert device["numa_node"] == 1
    assert device["disagreements"] == [
        "numa_node: sysfs says 1, nvml says 0",
        "cpus: sysfs says 8-15,24-31, nvml says 0-7,16-23",
    ]
    assert oracle["disagreements"] == ["0000:00:06.0"]


def test_nic_with_unknown_node_is_listed_and_placed_nowhere():
    nic = {"name": "ens5", "pci_address": "0000:00:05.0", "numa_node": None, "numa_source": None, "local_cpus": ""}
    oracle = _locality.build(_facts(nics=[nic]))
    (device,) = oracle["devices"]
    assert device["kind"] == "nic"
    assert device["node_cpus"] is None
    assert device["observations"] == [{"source": "sysfs", "numa_node": None, "cpus": None}]
    assert oracle["unknown_locality"] == ["0000:00:05.0"]
    assert oracle["by_numa_node"]["0"]["nics"] == [] and oracle["by_numa_node"]["1"]["nics"] == []


def test_devices_sorted_gpus_first_then_by_pci_address():
    gpus = [dict(H200_GPU, pci_address="0000:9a:00.0", uuid="GPU-b"), dict(H200_GPU, pci_address="0000:18:00.0", uuid="GPU-a")]
    nic = {"name": "ib0", "pci_address": "0000:1a:00.0", "numa_node": 0, "numa_source": "sysfs", "sysfs_numa_node": 0, "local_cpus": "0-7,16-23"}
    oracle = _locality.build(_facts(gpus=gpus, nics=[nic]))
    assert [d["pci_address"] for d in oracle["devices"]] == ["0000:18:00.0", "0000:9a:00.0", "0000:1a:00.0"]
    assert oracle["by_numa_node"]["0"] == {"cpus": "0-7,16-23", "gpus": ["GPU-a", "GPU-b"], "nics": ["ib0"]}


@pytest.mark.parametrize("facts", [None, {}, {"schema_version": 2}, "text"])
def test_rejects_facts_that_are_not_schema_v1(facts):
    with pytest.raises(_locality.LocalityError, match="schema_version 1"):
        _locality.build(facts)


@pytest.mark.parametrize(
    "facts, fragment",
    [
        # The one schema reader's words (they were the oracle's own: "has no integer id", "must be a list of mappings",
        # "is not an integer or null"); each still names the field and the value.
        (dict(_facts(), numa_nodes=[{"cpus": "0-3"}]), "topology numa_nodes entry {'cpus': '0-3'} has no id"),
        (dict(_facts(), gpus="GPU0"), "topology gpus 'GPU0' is a str, expected a list"),
        (dict(_facts(), nics=[None]), "topology nics entry None is a NoneType, expected a dict"),
        (_facts(gpus=[dict(H200_GPU, numa_node=[0])]), "numa_node [0] is not a NUMA node id (an integer, or null when unknown)"),
        (_facts(gpus=[dict(H200_GPU, numa_node="0")]), "numa_node '0' is not a NUMA node id (an integer, or null when unknown)"),
    ],
)
def test_malformed_facts_are_refused_by_name(facts, fragment):
    with pytest.raises(_locality.LocalityError) as err:
        _locality.build(facts)
    assert fragment in str(err.value)


def test_null_device_lists_are_empty():
    oracle = _locality.build(dict(_facts(), gpus=None, nics=None))
    assert oracle["devices"] == [] and oracle["unknown_locality"] == []


def test_device_on_a_numa_node_the_facts_do_not_list_is_unknown_with_a_warning():
    # Issue 7 rule 9: it used to be in the device list but in neither by_numa_node nor unknown_locality.
    gpu = dict(H200_GPU, numa_node=3, sysfs_numa_node=3, numa_source="sysfs", vendor_affinity=None)
    oracle = _locality.build(_facts(gpus=[gpu]))
    assert oracle["unknown_locality"] == ["0000:00:06.0"]
    assert oracle["devices"][0]["numa_node"] == 3 and oracle["devices"][0]["node_cpus"] is None
    assert oracle["by_numa_node"]["0"]["gpus"] == [] and oracle["by_numa_node"]["1"]["gpus"] == []
    assert oracle["warnings"] == ["gpu 0000:00:06.0: numa_node 3 is not a NUMA node of the facts (nodes: 0, 1); its locality is taken as unknown"]


def test_mistyped_vendor_affinity_names_the_field():
    # Issue 7 rule 9: a string where a dict belongs used to end in AttributeError.
    with pytest.raises(_locality.LocalityError) as err:
        _locality.build(_facts(gpus=[dict(H200_GPU, vendor_affinity="nvidia-smi")]))
    assert str(err.value) == ("topology gpus entry 0000:00:06.0: vendor_affinity 'nvidia-smi' is a str, expected a dict with source, "
                              "numa_node and cpus, or null")
    with pytest.raises(_locality.LocalityError) as err:
        _locality.build(_facts(gpus=[dict(H200_GPU, vendor_affinity={"source": "nvml", "numa_node": "0"})]))
    assert str(err.value).endswith("numa_node '0' is not a NUMA node id (an integer, or null when unknown)")


def test_unparsable_local_cpus_is_unknown_with_a_warning():
    nic = {"name": "ens5", "pci_address": "0000:00:05.0", "numa_node": 0, "numa_source": "sysfs", "local_cpus": "0-3,x"}
    oracle = _locality.build(_facts(nics=[nic]))
    assert oracle["devices"][0]["observations"] == [{"source": "sysfs", "numa_node": 0, "cpus": None}]
    assert oracle["warnings"] == ["nic 0000:00:05.0: local_cpus: cpulist '0-3,x': 'x' is not a CPU id or a range 'a-b'; taken as unknown"]


def test_locality_error_is_a_numa_gate_error_and_a_value_error():
    from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base.errors import NumaGateError
    assert issubclass(_locality.LocalityError, NumaGateError) and issubclass(_locality.LocalityError, ValueError)
