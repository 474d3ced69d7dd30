"""Unit tests for the nvidia-smi parsers (_facts/nvidia_smi.py) on real outputs (../shared/fixtures, read in place) and published layouts."""

from pathlib import Path

import pytest

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts import nvidia_smi as nv
from ansible_collections.gpusmith.numa_gate.tests.unit import shared_paths

FIXTURES = Path(shared_paths.FIXTURES)
SMI = FIXTURES / "nvidia-smi"
H200 = FIXTURES / "real" / "h200-vm"
H200_UUID = "GPU-f2c38e61-1c95-2e97-c47e-1090719df202"


def read(path):
    with open(str(path), encoding="utf-8") as handle:
        return handle.read()


# ---------------------------------------------------------------------------
# parse_topo_m on the real files

H100_NIC_LINKS = {
    # row: (links to NIC0..NIC9) copied by eye from h100-8gpu-10nic-topo-m.txt
    "GPU0": ["NODE", "NODE", "NODE", "PIX", "NODE", "NODE", "SYS", "SYS", "SYS", "SYS"],
    "GPU1": ["NODE", "NODE", "NODE", "NODE", "NODE", "PIX", "SYS", "SYS", "SYS", "SYS"],
    "GPU2": ["NODE", "NODE", "NODE", "NODE", "PIX", "NODE", "SYS", "SYS", "SYS", "SYS"],
    "GPU3": ["PIX", "PIX", "PIX", "NODE", "NODE", "NODE", "SYS", "SYS", "SYS", "SYS"],
    "GPU4": ["SYS", "SYS", "SYS", "SYS", "SYS", "SYS", "NODE", "PIX", "NODE", "NODE"],
    "GPU5": ["SYS", "SYS", "SYS", "SYS", "SYS", "SYS", "NODE", "NODE", "NODE", "PIX"],
    "GPU6": ["SYS", "SYS", "SYS", "SYS", "SYS", "SYS", "NODE", "NODE", "PIX", "NODE"],
    "GPU7": ["SYS", "SYS", "SYS", "SYS", "SYS", "SYS", "PIX", "NODE", "NODE", "NODE"],
}


def test_topo_h100_10nic_gpus():
    topo = nv.parse_topo_m(read(SMI / "h100-8gpu-10nic-topo-m.txt"))
    assert topo["gpus"] == [
        {"index": i, "name": "GPU%d" % i, "cpu_affinity": cpus, "numa_affinity": node, "gpu_numa_id": None}
        for i, cpus, node in [
            (0, "0-63,128-191", "0"),
            (1, "0-63,128-191", "0"),
            (2, "0-63,128-191", "0"),
            (3, "0-63,128-191", "0"),
            (4, "64-127,192-255", "1"),
            (5, "64-127,192-255", "1"),
            (6, "64-127,192-255", "1"),
            (7, "64-127,192-255", "1"),
        ]
    ]


def test_topo_h100_10nic_nics_and_legend():
    topo = nv.parse_topo_m(read(SMI / "h100-8gpu-10nic-topo-m.txt"))
    assert topo["nics"] == [{"name": "NIC%d" % i, "device": "mlx5_%d" % i} for i in range(10)]


def test_topo_h100_10nic_links():
    links = nv.parse_topo_m(read(SMI / "h100-8gpu-10nic-topo-m.txt"))["links"]
    assert sorted(links) == ["GPU%d" % i for i in range(8)] + ["NIC%d" % i for i in range(10)]
    for row, nic_cells in H100_NIC_LINKS.items():
        expected = dict(("GPU%d" % i, "NV18") for i in range(8) if "GPU%d" % i != row)
        expected.update(("NIC%d" % i, cell) for i, cell in enumerate(nic_cells))
        assert links[row] == expected
    assert links["NIC0"] == {
        "GPU0": "NODE", "GPU1": "NODE", "GPU2": "NODE", "GPU3": "PIX", "GPU4": "SYS", "GPU5": "SYS", "GPU6": "SYS", "GPU7": "SYS",
        "NIC1": "PIX", "NIC2": "PIX", "NIC3": "NODE", "NIC4": "NODE", "NIC5": "NODE", "NIC6": "SYS", "NIC7": "SYS", "NIC8": "SYS", "NIC9": "SYS",
    }
    assert links["NIC9"]["GPU5"] == "PIX"
    assert links["NIC9"]["NIC8"] == "NODE"
    assert "NIC9" not in links["NIC9"]


def test_topo_h100_spaces():
    topo = nv.parse_topo_m(read(SMI / "h100-8gpu-spaces-topo-m.txt"))
    assert topo["gpus"] == [
        {"index": i, "name": "GPU%d" % i, "cpu_affinity": cpus, "numa_affinity": node, "gpu_numa_id": None}
        for i, cpus, node in [
            (0, "0-51,104-155", "0"),
            (1, "0-51,104-155", "0"),
            (2, "0-51,104-155", "0"),
            (3, "0-51,104-155", "0"),
            (4, "52-103,156-207", "1"),
            (5, "52-103,156-207", "1"),
            (6, "52-103,156-207", "1"),
            (7, "52-103,156-207", "1"),
        ]
    ]
    assert topo["nics"] == []
    assert topo["links"]["GPU0"] == dict(("GPU%d" % i, "NV18") for i in range(1, 8))
    assert topo["links"]["GPU7"] == dict(("GPU%d" % i, "NV18") for i in range(7))


@pytest.mark.parametrize("path", [SMI / "h200-vm-1gpu-topo-m.txt", H200 / "cmd" / "nvidia-smi-topo-m.txt", H200 / "cmd" / "nvidia-smi-topo-mp.txt"])
def test_topo_h200(path):
    assert nv.parse_topo_m(read(path)) == {
        "gpus": [{"index": 0, "name": "GPU0", "cpu_affinity": "0-15", "numa_affinity": "0", "gpu_numa_id": None}],
        "nics": [],
        "links": {"GPU0": {}},
    }


def _strip_ansi_expand(text):
    return "\n".join(nv._ANSI.sub("", line).expandtabs(8) for line in text.splitlines())


def test_topo_10nic_with_tabs_turned_into_spaces_parses_the_same():
    """The newer-driver layout (empty cell before GPU NUMA ID, empty NIC cells) pasted with spaces."""
    text = read(SMI / "h100-8gpu-10nic-topo-m.txt")
    assert "\t" not in _strip_ansi_expand(text)
    assert nv.parse_topo_m(_strip_ansi_expand(text)) == nv.parse_topo_m(text)


def test_topo_crlf_line_endings():
    text = read(SMI / "h100-8gpu-10nic-topo-m.txt")
    assert nv.parse_topo_m(text.replace("\n", "\r\n")) == nv.parse_topo_m(text)


# ---------------------------------------------------------------------------
# parse_topo_m on the other layouts seen in the wild (synthetic, from published outputs)

OLDER_MLX = (
    "     GPU0\tGPU1\tGPU2\tGPU3\tmlx5_0\tCPU Affinity\tNUMA Affinity\n"
    "GPU0\t X \tNODE\tSYS\tSYS\tNODE\t0,2,4,6,8,10\t0\n"
    "GPU1\tNODE\t X \tSYS\tSYS\tNODE\t0,2,4,6,8,10\t0\n"
    "GPU2\tSYS\tSYS\t X \tNODE\tSYS\t1,3,5,7,9,11\t1\n"
    "GPU3\tSYS\tSYS\tNODE\t X \tSYS\t1,3,5,7,9,11\t1\n"
    "mlx5_0\tNODE\tNODE\tSYS\tSYS\t X \t\t\n"
    "\n"
    "Legend:\n"
    "\n"
    "  X    = Self\n"
)


def test_topo_older_driver_mlx_columns_no_gpu_numa_id():
    topo = nv.parse_topo_m(OLDER_MLX)
    assert topo["gpus"] == [
        {"index": 0, "name": "GPU0", "cpu_affinity": "0,2,4,6,8,10", "numa_affinity": "0", "gpu_numa_id": None},
        {"index": 1, "name": "GPU1", "cpu_affinity": "0,2,4,6,8,10", "numa_affinity": "0", "gpu_numa_id": None},
        {"index": 2, "name": "GPU2", "cpu_affinity": "1,3,5,7,9,11", "numa_affinity": "1", "gpu_numa_id": None},
        {"index": 3, "name": "GPU3", "cpu_affinity": "1,3,5,7,9,11", "numa_affinity": "1", "gpu_numa_id": None},
    ]
    assert topo["nics"] == [{"name": "mlx5_0", "device": "mlx5_0"}]
    assert topo["links"]["mlx5_0"] == {"GPU0": "NODE", "GPU1": "NODE", "GPU2": "SYS", "GPU3": "SYS"}
    assert topo["links"]["GPU2"] == {"GPU0": "SYS", "GPU1": "SYS", "GPU3": "NODE", "mlx5_0": "SYS"}


OLDEST_CPU_ONLY = (
    "\tGPU0\tGPU1\tmlx5_0\tCPU Affinity\n"
    "GPU0\t X \tPIX\tSOC\t0-13\n"
    "GPU1\tPIX\t X \tSOC\t0-13\n"
    "mlx5_0\tSOC\tSOC\t X\n"
    "\n"
    "Legend:\n"
)


def test_topo_oldest_driver_cpu_affinity_only_and_trailing_cells_missing():
    topo = nv.parse_topo_m(OLDEST_CPU_ONLY)
    assert topo["gpus"] == [
        {"index": 0, "name": "GPU0", "cpu_affinity": "0-13", "numa_affinity": None, "gpu_numa_id": None},
        {"index": 1, "name": "GPU1", "cpu_affinity": "0-13", "numa_affinity": None, "gpu_numa_id": None},
    ]
    assert topo["links"]["mlx5_0"] == {"GPU0": "SOC", "GPU1": "SOC"}


def test_topo_numa_range_na_and_gpu_numa_id_number():
    text = (
        "\tGPU0\tGPU1\tGPU2\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID\n"
        "GPU0\t X \tSYS\tSYS\t0-47,96-143\t0-1\t\tN/A\n"
        "GPU1\tSYS\t X \tSYS\tN/A\tN/A\t\tN/A\n"
        "GPU2\tSYS\tSYS\t X \t0-71\t0\t\t1\n"
    )
    assert nv.parse_topo_m(text)["gpus"] == [
        {"index": 0, "name": "GPU0", "cpu_affinity": "0-47,96-143", "numa_affinity": "0-1", "gpu_numa_id": None},
        {"index": 1, "name": "GPU1", "cpu_affinity": None, "numa_affinity": None, "gpu_numa_id": None},
        {"index": 2, "name": "GPU2", "cpu_affinity": "0-71", "numa_affinity": "0", "gpu_numa_id": 1},
    ]


def test_topo_without_the_empty_cell_and_bare_x():
    """Some builds print no empty cell before GPU NUMA ID and 'X' without padding."""
    text = "GPU0\tGPU1\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID\nGPU0\tX\tNV18\t0-191\t0\tN/A\nGPU1\tNV18\tX\t192-383\t1\t3\n"
    topo = nv.parse_topo_m(text)
    assert [(g["cpu_affinity"], g["numa_affinity"], g["gpu_numa_id"]) for g in topo["gpus"]] == [("0-191", "0", None), ("192-383", "1", 3)]
    assert topo["links"] == {"GPU0": {"GPU1": "NV18"}, "GPU1": {"GPU0": "NV18"}}


def test_topo_numa_ids_need_not_ascend_with_index():
    """AMD NPS4-style layout: node ids out of order, canonicalised CPU lists."""
    text = (
        "\tGPU0\tGPU1\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID\n"
        "GPU0\t X \tSYS\t48-63,112-127\t3\t\tN/A\n"
        "GPU1\tSYS\t X \t112-127,48-63\t3,2\t\tN/A\n"
    )
    gpus = nv.parse_topo_m(text)["gpus"]
    assert [(g["cpu_affinity"], g["numa_affinity"]) for g in gpus] == [("48-63,112-127", "3"), ("48-63,112-127", "2-3")]


def test_topo_spaces_with_missing_values_uses_header_positions():
    text = (
        "        GPU0    GPU1    CPU Affinity    NUMA Affinity   GPU NUMA ID\n"
        "GPU0     X      SYS     0-7                             N/A\n"
        "GPU1    SYS      X                      1\n"
    )
    assert nv.parse_topo_m(text)["gpus"] == [
        {"index": 0, "name": "GPU0", "cpu_affinity": "0-7", "numa_affinity": None, "gpu_numa_id": None},
        {"index": 1, "name": "GPU1", "cpu_affinity": None, "numa_affinity": "1", "gpu_numa_id": None},
    ]


def test_topo_text_before_the_matrix_is_skipped():
    text = "Some warning printed first\n\n" + read(SMI / "h200-vm-1gpu-topo-m.txt")
    assert nv.parse_topo_m(text)["gpus"][0]["cpu_affinity"] == "0-15"


@pytest.mark.parametrize(
    "text, fragment",
    [
        ("", "has no matrix header: expected a line of column names starting with GPU0"),
        ("No devices were found\n", "'No devices were found' has no matrix header"),
        (read(H200 / "cmd" / "nvidia-smi-topo-help.txt"), "has no matrix header"),
        ("\tGPU0\tGPU1\tCPU Affinity\nGPU0\t X \tNV4\t0-3\n", "no row for column(s) GPU1 (output truncated?)"),
        ("\tGPU0\tGPU1\tCPU Affinity\nGPU0\t X \nGPU1\tNV4\t X \t0-3\n", "row 'GPU0' has 1 link cells, expected 2 (one per column GPU0, GPU1)"),
        ("\tGPU0\tCPU Affinity\nGPU0\t X \t0-3\t0\t1\n", "row 'GPU0' has 3 cells after the links, more than the 1 columns CPU Affinity"),
        ("\tGPU0\tCPU Affinity\nGPU0\t X \tlots\n", "row 'GPU0' column 'CPU Affinity': 'lots' is not a list such as '0-3,8' or N/A"),
        ("\tGPU0\tCPU Affinity\tGPU NUMA ID\nGPU0\t X \t0-3\tone\n", "row 'GPU0' column 'GPU NUMA ID': 'one' is not a NUMA id"),
        ("\tGPU0\tCPU Affinity\tGPU1\nGPU0\t X \t0-3\tNV4\n", "device column 'GPU1' comes after the attribute columns CPU Affinity"),
        ("\tGPU0\tGPU0\nGPU0\t X \tNV4\n", "a device column is named twice"),
        ("\tGPU0\tCPU Affinity\nGPU0\t X \t0-3\nGPU0\t X \t0-3\n", "row 'GPU0' appears twice"),
    ],
)
def test_topo_rejects(text, fragment):
    with pytest.raises(nv.TopoParseError) as err:
        nv.parse_topo_m(text)
    assert fragment in str(err.value)


def test_topo_rejects_non_text():
    with pytest.raises(nv.TopoParseError, match="is a bytes, expected text"):
        nv.parse_topo_m(b"GPU0")


def test_topo_errors_are_value_errors():
    assert issubclass(nv.TopoParseError, ValueError)
    assert issubclass(nv.NvidiaError, ValueError)
    assert issubclass(nv.QueryParseError, ValueError)


# ---------------------------------------------------------------------------
# parse_query_gpu_csv


def test_query_h200_with_header():
    assert nv.parse_query_gpu_csv(read(H200 / "cmd" / "nvidia-smi-query-gpu.txt")) == [
        {
            "index": 0,
            "uuid": H200_UUID,
            "pci.bus_id": "0000:00:06.0",
            "name": "NVIDIA H200",
            "memory.total": 143771,
            "driver_version": "580.159.04",
        }
    ]


def test_query_h200_noheader():
    text = read(H200 / "cmd" / "nvidia-smi-query-gpu-noheader.txt")
    assert nv.parse_query_gpu_csv(text, header=False, fields=("index", "uuid", "pci.bus_id")) == [
        {"index": 0, "uuid": H200_UUID, "pci.bus_id": "0000:00:06.0"}
    ]


def test_query_noheader_default_fields_and_many_gpus():
    text = (
        "0, GPU-aaaaaaaa-0000-0000-0000-000000000000, 00000000:18:00.0, NVIDIA H100 80GB HBM3\n"
        "1, GPU-bbbbbbbb-0000-0000-0000-000000000000, 00000000:2A:00.0, NVIDIA H100 80GB HBM3\n\n"
    )
    assert nv.parse_query_gpu_csv(text, header=False) == [
        {"index": 0, "uuid": "GPU-aaaaaaaa-0000-0000-0000-000000000000", "pci.bus_id": "0000:18:00.0", "name": "NVIDIA H100 80GB HBM3"},
        {"index": 1, "uuid": "GPU-bbbbbbbb-0000-0000-0000-000000000000", "pci.bus_id": "0000:2a:00.0", "name": "NVIDIA H100 80GB HBM3"},
    ]


def test_query_units_and_na():
    text = "index, memory.total [MiB], mig.mode.current, power.limit [W]\n3, 16376 MiB, [N/A], 700.00 W\n"
    assert nv.parse_query_gpu_csv(text) == [{"index": 3, "memory.total": 16376, "mig.mode.current": None, "power.limit": "700.00"}]


def test_query_header_only_is_no_gpus():
    assert nv.parse_query_gpu_csv("index, uuid, pci.bus_id, name\n") == []


@pytest.mark.parametrize(
    "text, header, fragment",
    [
        ("", True, "output is empty, expected a CSV header line"),
        ("No devices were found\n", True, "header 'No devices were found' names none of index, uuid, pci.bus_id"),
        ("index, uuid\n0\n", True, "line 2 '0' has 1 values, expected 2 (index, uuid)"),
        ("index, uuid\nzero, GPU-1\n", True, "line 2: index 'zero' is not a number >= 0"),
        ("0, GPU-1, 00000000:00:06.0\n", False, "line 1 '0, GPU-1, 00000000:00:06.0' has 3 values, expected 4"),
        ("0, GPU-1, bus six, H200\n", False, "line 1: pci.bus_id: PCI address 'bus six' is not of the form"),
    ],
)
def test_query_rejects(text, header, fragment):
    with pytest.raises(nv.QueryParseError) as err:
        nv.parse_query_gpu_csv(text, header=header)
    assert fragment in str(err.value)
