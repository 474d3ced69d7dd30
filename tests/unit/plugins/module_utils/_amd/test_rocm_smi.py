"""rocm-smi parsers (_amd/rocm_smi.py) on every rocm-smi capture of shared/fixtures/amd that holds GPU values, read in place."""

import pytest

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._amd import rocm_smi
from ansible_collections.gpusmith.numa_gate.tests.unit.plugins.module_utils._facts import amd_trees

SHOWHW = "rocm-smi_showhw_mi300a-4apu-tpx_rocm-smi-lib-6.1.1-changelog.txt"
SHOWHW_LSPCI = "rocm-smi_showhw+lspci_mi300a-4apu-tpx_rocm-smi-lib-6.1.1-changelog.txt"
SHOWBUS_BUGGY = "rocm-smi_showbus_mi300a-BUGGY-partition-in-function_rocm-smi-lib-6.1.0-changelog.txt"
SHOWTOPO_BUGGY = "rocm-smi_showtopo_mi300a-tpx-BUGGY-numa-node-vs-affinity_rocm-smi-lib-6.1.0-changelog.txt"
SHOWTOPONUMA = "rocm-smi_showtoponuma_mi300a-4apu-tpx-4numa_rocm-smi-lib-6.1.1-changelog.txt"
# --showhw on 4x MI300A in TPX: GPU n is KFD node n + 4, APU n // 3 (PCI domain n // 3), partition n % 3.
GUIDS = [3877, 54196, 36891, 28397, 45692, 61907, 52404, 4133, 21386, 10876, 63213, 46402]
SHOWHW_ROWS = [{"gpu": n, "kfd_node": n + 4, "device_id": "0x74a0", "guid": GUIDS[n], "bus": "000%d:01:00.0" % (n // 3),
                "partition_id": n % 3} for n in range(12)]


def test_showhw_tpx():
    (command, text), = amd_trees.outputs(SHOWHW)
    assert command == "rocm-smi --showhw"
    assert rocm_smi.parse_showhw(text) == SHOWHW_ROWS


def test_showhw_of_the_lspci_capture_is_the_same_table():
    text = dict(amd_trees.outputs(SHOWHW_LSPCI))["rocm-smi --showhw"]
    assert rocm_smi.parse_showhw(text) == SHOWHW_ROWS


def test_showbus_buggy_outputs_parsed_as_printed():
    (_command, spx), (_command2, non_spx) = amd_trees.outputs(SHOWBUS_BUGGY)
    assert rocm_smi.parse_showbus(spx) == {0: "0000:01:00.0", 1: "0000:01:00.1", 2: "0000:01:00.2", 3: "0000:01:00.3"}
    parsed = rocm_smi.parse_showbus(non_spx)
    assert parsed == dict([(0, "0000:01:00.0")] + [(n, "0000:01:00.%d" % ((n - 1) // 4 + 1)) for n in range(1, 21)]
                          + [(21, "0001:01:00.0"), (22, "0002:01:00.0"), (23, "0003:01:00.0")])


def test_showtopo_buggy_numa_node_and_affinity():
    parsed = rocm_smi.parse_numa(amd_trees.verbatim(SHOWTOPO_BUGGY))
    nodes = [0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3]
    affinities = [0, 0, 1, 2, 3, 0, 1, 2, 3, 1, 2, 3]
    assert parsed == dict((n, {"numa_node": nodes[n], "numa_affinity": affinities[n]}) for n in range(12))


def test_showtoponuma_fixed():
    (_command, text), = amd_trees.outputs(SHOWTOPONUMA)
    assert rocm_smi.parse_numa(text) == dict((n, {"numa_node": n // 3, "numa_affinity": n // 3}) for n in range(12))


@pytest.mark.parametrize("parse, reason", [
    (rocm_smi.parse_showhw, "no 'GPU ... BUS' header line of the Concise Hardware Info table"),
    (rocm_smi.parse_showbus, "no 'GPU[n] : PCI Bus: <address>' line"),
    (rocm_smi.parse_numa, "no 'GPU[n] : (Topology) Numa Node: <n>' line"),
])
def test_other_outputs_are_an_unknown_format(parse, reason):
    (_command, text), = amd_trees.outputs("rocm-smi_i_mi300a-4apu_rocm-smi-lib-6.1.1-changelog.txt")
    with pytest.raises(rocm_smi.RocmSmiFormatError) as raised:
        parse(text)
    assert str(raised.value) == reason


def test_showhw_row_cut_short_is_named():
    (_command, text), = amd_trees.outputs(SHOWHW)
    cut = text.replace("0003:01:00.0  2", "0003:01:00.0")
    with pytest.raises(rocm_smi.RocmSmiFormatError) as raised:
        rocm_smi.parse_showhw(cut)
    assert str(raised.value) == ("row '11   15    0x74a0  46402  gfx942   ENABLED  ENABLED   DISABL' has 10 cells for the 11 columns "
                                 "GPU, NODE, DID, GUID, GFX VER, GFX RAS, SDMA RAS, UMC RAS, VBIOS, BUS, PARTITION ID")


def test_showproduct_kfd_nodes_and_names():
    (_command, text), = amd_trees.outputs("rocm-smi_showproduct_mi300a-4apu_rocm-smi-lib-6.1.1-changelog.txt")
    assert rocm_smi.parse_showproduct(text) == dict(
        (n, {"name": "Aqua Vanjaram [Instinct MI300A]", "kfd_node": n + 4, "guid": guid}) for n, guid in enumerate((60294, 35406, 10263, 52959)))
    with pytest.raises(rocm_smi.RocmSmiFormatError) as raised:
        rocm_smi.parse_showproduct(amd_trees.outputs(SHOWBUS_BUGGY)[0][1])
    assert str(raised.value) == "no 'GPU[n] : Card Series: <name>' line"


def test_fields_of_rocm_smi_i():
    (_command, text), = amd_trees.outputs("rocm-smi_i_mi300a-4apu_rocm-smi-lib-6.1.1-changelog.txt")
    assert rocm_smi.parse_fields(text) == dict(
        (n, {"Device Name": "Aqua Vanjaram [Instinct MI300A]", "Device ID": "0x74a0", "Device Rev": "0x00", "Subsystem ID": "0x74a0",
             "GUID": guid}) for n, guid in enumerate(("60294", "35406", "10263", "52959")))
