"""Unit tests for device IDs mapped to the host (_device_path/devices.py): MIG devices to their parent GPU, through facts whose
``mig_devices`` come from a recorded ``nvidia-smi -L`` (the 2x A100-SXM4-80GB capture of test_nvidia_smi_list) and the
locality oracle; legacy MIG UUIDs and shared replicas."""

import pytest

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._device_path.devices import map_device
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts import schema
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts.nvidia_smi_list import parse_list
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._plan import locality
from ansible_collections.gpusmith.numa_gate.tests.unit.plugins.module_utils._facts.test_nvidia_smi_list import LEGACY, LEGACY_PARENT, MODERN

LISTED = parse_list(MODERN)


def facts():
    gpus = [{"index": g["index"], "uuid": g["uuid"], "pci_address": address, "name": g["name"], "numa_node": node, "numa_source": "nvidia-smi",
             "local_cpus": cpus, "mig_devices": g["mig_devices"]}
            for g, address, node, cpus in zip(LISTED, ("0000:07:00.0", "0000:87:00.0"), (0, 1), ("0-7,16-23", "8-15,24-31"))]
    legacy = parse_list(LEGACY)[0]
    gpus.append({"index": 2, "uuid": legacy["uuid"], "pci_address": "0000:90:00.0", "numa_node": 1, "numa_source": "sysfs", "local_cpus": "8-15,24-31",
                 "mig_devices": legacy["mig_devices"]})
    return {"schema_version": 1, "cpus": {"online": "0-31", "isolated": ""},
            "numa_nodes": [{"id": 0, "cpus": "0-7,16-23"}, {"id": 1, "cpus": "8-15,24-31"}], "gpus": gpus, "nics": []}


ORACLE = locality.build(facts())


def test_the_oracle_keeps_each_gpus_mig_devices():
    assert [d.get("mig_devices") for d in ORACLE["devices"]] == [
        ["MIG-a686709d-6dc2-542a-8851-0d2508448c10", "MIG-53864714-0a66-5df2-9007-9268e30d9a72"],
        ["MIG-d5a46a2e-1d77-575d-99e3-1f96c8555a2e", "MIG-b8479d6e-d08f-5a92-9a24-0946db72b2a0"],
        ["MIG-%s/%d/0" % (LEGACY_PARENT, gi) for gi in (7, 8, 9, 11, 12, 13, 14)]]


def test_a_mig_uuid_maps_to_its_parent_gpus_numa_node():
    entry = map_device("nvidia.com/mig-1g.10gb", "MIG-b8479d6e-d08f-5a92-9a24-0946db72b2a0", ORACLE, [1])
    assert entry == {"resource_name": "nvidia.com/mig-1g.10gb", "id": "MIG-b8479d6e-d08f-5a92-9a24-0946db72b2a0", "kind": "gpu",
                     "uuid": "GPU-c92e2d5d-4a69-f1cd-4df0-305f8606705a", "pci_address": "0000:87:00.0", "name": "NVIDIA A100-SXM4-80GB",
                     "numa_node": 1, "numa_source": "nvidia-smi", "reported_numa_nodes": [1], "mig_uuid": "MIG-b8479d6e-d08f-5a92-9a24-0946db72b2a0"}
    assert map_device("nvidia.com/mig-1g.10gb", "mig-a686709d-6dc2-542a-8851-0d2508448c10", ORACLE)["numa_node"] == 0


def test_a_legacy_mig_uuid_names_its_parent():
    entry = map_device("nvidia.com/mig-1g.5gb", "MIG-%s/11/0" % LEGACY_PARENT, ORACLE)
    assert (entry["kind"], entry["uuid"], entry["pci_address"], entry["numa_node"], entry["mig_uuid"]) == (
        "gpu", LEGACY_PARENT, "0000:90:00.0", 1, "MIG-%s/11/0" % LEGACY_PARENT)


def test_an_unlisted_mig_device_and_a_replica():
    unknown = map_device("nvidia.com/mig-1g.10gb", "MIG-00000000-0000-0000-0000-000000000000", ORACLE)
    assert (unknown["kind"], unknown["uuid"], unknown["numa_node"], unknown["mig_uuid"]) == (None, None, None, "MIG-00000000-0000-0000-0000-000000000000")
    replica = map_device("nvidia.com/gpu.shared", "GPU-9c73eb7b-8d6d-6c0e-dc13-97873e2ede40::3", ORACLE)
    assert (replica["kind"], replica["uuid"], replica["numa_node"], replica["mig_uuid"]) == ("gpu", "GPU-9c73eb7b-8d6d-6c0e-dc13-97873e2ede40", 0, None)


def test_a_vf_by_pci_address():
    nic = {"name": "ens1f0v3", "pci_address": "0000:3b:02.3", "numa_node": 0, "numa_source": "sysfs", "local_cpus": "0-7,16-23"}
    oracle = locality.build(dict(facts(), nics=[nic]))
    entry = map_device("intel.com/sriov_net_A", "0000:3b:02.3", oracle, [0])
    assert (entry["kind"], entry["name"], entry["numa_node"]) == ("nic", "ens1f0v3", 0)


def test_mig_devices_of_the_wrong_shape_are_refused():
    bad = facts()
    bad["gpus"][0]["mig_devices"] = ["MIG-a686709d-6dc2-542a-8851-0d2508448c10"]
    with pytest.raises(schema.SchemaError) as err:
        schema.read(bad)
    assert str(err.value) == ("topology gpus entry gpu 0000:07:00.0: mig_devices ['MIG-a686709d-6dc2-542a-8851-0d2508448c10'] is not a list of "
                              "mappings each with a uuid string")
