"""amd-smi parsers (_amd/amd_smi.py) on every amd-smi capture of shared/fixtures/amd that holds GPU values, read in place."""

import pytest

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._amd import amd_smi
from ansible_collections.gpusmith.numa_gate.tests.unit.plugins.module_utils._facts import amd_trees

STATIC_MI300A = "amd-smi_static_4x-mi300a-4numa-inkernel-6.9rc5_amdsmi-cli-readme.txt"
STATIC_JSON_MI210 = "amd-smi_static-json_mi210-inkernel-6.14_device-metrics-exporter-test.txt"
STATIC_CPULISTS = "amd-smi_default+static-numa-cpulists_4x-mi300a_amdsmi-27.0-rocm7.14-docs.txt"
LIST_2GPU = "amd-smi_list_2gpu-kfd-node-partition_amdsmi-6.3.0-changelog.txt"
PARTITION = "amd-smi_static-partition_cpx-nps4_amdsmi-6.3.0-changelog.txt"
ASIC = "amd-smi_static-asic_mi308x_amdsmi-6.3.0-changelog.txt"
EMPTY = {"index": None, "bdf": None, "uuid": None, "kfd_node": None, "partition_id": None, "numa_node": None, "numa_affinity": None,
         "cpus": None, "name": None, "compute_partition": None, "memory_partition": None, "driver_version": None}


def _output(name, command):
    return dict(amd_trees.outputs(name))[command]


def _record(**values):
    record = dict(EMPTY)
    record.update(values)
    return record


def test_static_text_4x_mi300a_in_kernel():
    records = amd_smi.gpu_records(amd_smi.parse_gpus(_output(STATIC_MI300A, "amd-smi static")), [])
    assert records == [
        _record(index=n, bdf="000%d:01:00.0" % n, numa_node=n, numa_affinity=n, name="MI300A", compute_partition="SPX",
                memory_partition="NPS1", driver_version="6.9.0-rc5+")
        for n in range(4)]


def test_static_json_mi210_cpus_from_the_bitmask_not_the_range():
    (record,) = amd_smi.gpu_records(amd_smi.parse_gpus(amd_trees.verbatim(STATIC_JSON_MI210)), [])
    odd = ",".join(str(cpu) for cpu in range(1, 64, 2)) + "," + ",".join(str(cpu) for cpu in range(65, 112, 2))
    assert record["cpus"] == odd  # CPU_CORES_AFFINITY says "1-63" and "65-111": first to last, not the mask
    assert record["driver_version"].startswith("Linuxversion6.14.0-24-generic(buildd@")
    assert record == _record(index=0, numa_node=1, numa_affinity=1, cpus=odd, name="AMD Instinct MI210",
                             driver_version=record["driver_version"])


def test_static_text_newer_format_with_cpu_lists():
    (record,) = amd_smi.gpu_records(amd_smi.parse_gpus(_output(STATIC_CPULISTS, "amd-smi static")), [])
    assert record == _record(index=0, bdf="0000:01:00.0", numa_node=0, numa_affinity=0, cpus="0-23,96-119", name="AMD Instinct MI300A",
                             driver_version="6.19.4")


def test_list_kfd_node_and_partition():
    records = amd_smi.gpu_records([], amd_smi.parse_gpus(_output(LIST_2GPU, "amd-smi list")))
    assert records == [_record(index=0, bdf="0000:23:00.0", kfd_node=1, partition_id=0),
                       _record(index=1, bdf="0000:26:00.0", kfd_node=2, partition_id=0)]


def test_static_partition_and_asic():
    assert amd_smi.gpu_records(amd_smi.parse_gpus(_output(PARTITION, "amd-smi static --partition")), []) == [
        _record(index=0, partition_id=0, compute_partition="CPX", memory_partition="NPS4")]
    assert amd_smi.gpu_records(amd_smi.parse_gpus(_output(ASIC, "amd-smi static --asic")), []) == [_record(index=0, name="MI308X")]


def test_list_and_static_join_by_index():
    listing = amd_smi.parse_gpus(_output(LIST_2GPU, "amd-smi list"))
    static = amd_smi.parse_gpus(_output(PARTITION, "amd-smi static --partition"))
    assert amd_smi.gpu_records(static, listing)[0] == _record(index=0, bdf="0000:23:00.0", kfd_node=1, partition_id=0,
                                                              compute_partition="CPX", memory_partition="NPS4")


@pytest.mark.parametrize("name, command, reason", [
    (STATIC_CPULISTS, "amd-smi", "no JSON and no 'GPU: <n>' block"),
    ("amd-smi_version_amdsmi-6.1.0-changelog.txt", "amd-smi version", "no JSON and no 'GPU: <n>' block"),
    ("rocm-smi_showhw_mi300a-4apu-tpx_rocm-smi-lib-6.1.1-changelog.txt", "rocm-smi --showhw", "no JSON and no 'GPU: <n>' block"),
])
def test_other_outputs_are_an_unknown_format(name, command, reason):
    text = _output(name, command)
    with pytest.raises(amd_smi.AmdSmiFormatError) as raised:
        amd_smi.parse_gpus(text)
    assert str(raised.value) == reason


def test_broken_json_and_empty_output():
    with pytest.raises(amd_smi.AmdSmiFormatError) as raised:
        amd_smi.parse_gpus(amd_trees.verbatim(STATIC_JSON_MI210)[:500])
    assert str(raised.value).startswith("output starts as JSON but does not parse (")
    with pytest.raises(amd_smi.AmdSmiFormatError) as raised:
        amd_smi.parse_gpus('{"cpu_data": []}')
    assert str(raised.value) == 'JSON is neither a list of GPU objects nor {"gpu_data": [...]}'
    with pytest.raises(amd_smi.AmdSmiFormatError) as raised:
        amd_smi.parse_gpus("  \n")
    assert str(raised.value) == "no output"


def test_mask_cpus():
    assert amd_smi.mask_cpus({"cpu_list_0": {"bitmask": "0000000000000001"}, "cpu_list_1": {"bitmask": "8000000000000000"}}) == "0,127"
    assert amd_smi.mask_cpus({"cpu_list_0": {"bitmask": "N/A"}}) is None
    assert amd_smi.mask_cpus({"cpu_list_0": {"bitmask": "zz"}}) is None
    assert amd_smi.mask_cpus("0-3") is None


BDFS = ["0000:0c:00.0", "0000:22:00.0", "0000:38:00.0", "0000:5c:00.0", "0000:9f:00.0", "0000:af:00.0", "0000:bf:00.0", "0000:df:00.0"]


def test_topology_text_8x_mi300x():
    tables = amd_smi.parse_topology(_output("amd-smi_topology_8x-mi300x_amdsmi-6.1.0-changelog.txt", "amd-smi topology"))
    assert sorted(tables) == ["ACCESS", "HOPS", "LINK TYPE", "NUMA BW", "WEIGHT"]
    for a in BDFS:
        for b in BDFS:
            same = a == b
            assert (tables["LINK TYPE"][(a, b)], tables["WEIGHT"][(a, b)], tables["HOPS"][(a, b)], tables["ACCESS"][(a, b)],
                    tables["NUMA BW"][(a, b)]) == (("SELF", "0", "0", "ENABLED", "N/A") if same else ("XGMI", "15", "1", "ENABLED", "50000-50000"))


def test_topology_cndz_tables_as_printed():
    tables = amd_smi.parse_topology(_output("amd-smi_topology-cndz_8x-mi300x_amdsmi-6.3.0-changelog.txt", "amd-smi topology -cndz"))
    assert sorted(tables) == ["ATOMICS", "BI-DIRECTIONAL", "CACHE COHERANCY", "DMA"]
    assert [tables["CACHE COHERANCY"][("0000:0c:00.0", b)] for b in BDFS] == ["SELF", "C", "NC", "NC", "C", "C", "C", "NC"]
    assert [tables["ATOMICS"][("0000:af:00.0", b)] for b in BDFS] == ["32", "N/A", "64,32", "64,32", "64,32", "SELF", "32", "N/A"]
    assert [tables["DMA"][("0000:df:00.0", b)] for b in BDFS] == ["T", "T", "T", "F", "F", "T", "F", "SELF"]
    assert all(len(table) == 64 for table in tables.values())


def test_topology_json_2gpu_pcie():
    text = _output("amd-smi_topology-a-t-json_2gpu-pcie_amdsmi-6.1.1-changelog.txt", "/opt/rocm/bin/amd-smi topology -a -t --json")
    a, b = "0000:08:00.0", "0000:44:00.0"
    assert amd_smi.parse_topology(text) == {
        "LINK TYPE": {(a, a): "SELF", (a, b): "PCIE", (b, a): "PCIE", (b, b): "SELF"},
        "LINK STATUS": {(a, a): "ENABLED", (a, b): "DISABLED", (b, a): "DISABLED", (b, b): "ENABLED"},
    }


def test_topology_and_version_unknown_formats():
    with pytest.raises(amd_smi.AmdSmiFormatError) as raised:
        amd_smi.parse_topology(_output(LIST_2GPU, "amd-smi list"))
    assert str(raised.value) == "no '<NAME> TABLE:' section and no JSON list of GPU links"
    with pytest.raises(amd_smi.AmdSmiFormatError) as raised:
        amd_smi.parse_topology("LINK TYPE TABLE:\n             0000:0c:00.0 0000:22:00.0\n0000:0c:00.0 SELF\n")
    assert str(raised.value) == "LINK TYPE TABLE row '0000:0c:00.0 SELF' has 1 cells for 2 columns"
    with pytest.raises(amd_smi.AmdSmiFormatError) as raised:
        amd_smi.parse_version("AMDSMI Tool 23.4.2+505b858")
    assert str(raised.value) == "no '<name>: <value>' fields"


def test_version():
    assert amd_smi.parse_version(_output("amd-smi_version_amdsmi-6.1.0-changelog.txt", "amd-smi version")) == {
        "amdsmi tool": "23.4.2+505b858", "amdsmi library version": "24.2.0.0", "rocm version": "6.1.0"}
