"""Unit tests for the NVIDIA parsers and gather_nvidia.

The nvidia-smi outputs are real (../shared/fixtures, read in place). NVML is a
test double: `FakePynvml` mimics nvidia-ml-py 13.x (pynvml.py) call for call:
the same function names and arguments, NVMLError subclasses chosen by error
code with the same messages, ctypes c_ulonglong arrays of the requested size
from the affinity calls, and str (current bindings) or bytes (bindings before
11.515) from the string calls. Its data is the NVML capture recorded on the
h200 host (fixtures/real/h200-vm/capture.json, key "nvml").
"""

import ctypes
import json
import sys
import types
from pathlib import Path

import pytest

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts import nvidia as nv
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts.runner import NoCommandsRunner, RecordedRunner
from ansible_collections.gpusmith.numa_gate.tests.unit import shared_paths

FIXTURES = Path(shared_paths.FIXTURES)
SMI = FIXTURES / "nvidia-smi"
H200 = FIXTURES / "real" / "h200-vm"
H200_UUID = "GPU-f2c38e61-1c95-2e97-c47e-1090719df202"


def read(path):
    with open(str(path), encoding="utf-8") as handle:
        return handle.read()


@pytest.fixture(scope="module")
def h200_capture():
    return json.loads(read(H200 / "capture.json"))


def h200_runner(override=None):
    """Replays the outputs recorded on the h200 host; ``override`` maps argv to (rc, out, err)."""
    outputs = {
        nv.QUERY_ARGV: (0, read(H200 / "cmd" / "nvidia-smi-query-gpu.txt"), ""),
        nv.TOPO_ARGV: (0, read(H200 / "cmd" / "nvidia-smi-topo-m.txt"), ""),
    }
    outputs.update(override or {})
    return RecordedRunner(outputs)


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


# ---------------------------------------------------------------------------
# gather_nvidia through nvidia-smi (recorded on the h200 host)

H200_SMI_GPU = {
    "index": 0,
    "uuid": H200_UUID,
    "pci_address": "0000:00:06.0",
    "name": "NVIDIA H200",
    "numa_node": 0,
    "numa_affinity": "0",
    "gpu_numa_id": None,
    "cpu_affinity": "0-15",
    "source": "nvidia-smi",
}


def test_argvs_are_the_recorded_ones(h200_capture):
    commands = h200_capture["commands"]
    assert list(nv.QUERY_ARGV) == commands["nvidia-smi-query-gpu"]["argv"]
    assert list(nv.TOPO_ARGV) == commands["nvidia-smi-topo-m"]["argv"]


@pytest.mark.parametrize("source", ["nvidia-smi", "auto"])
def test_gather_h200_nvidia_smi(source, monkeypatch):
    monkeypatch.setitem(sys.modules, "pynvml", None)  # "auto" must not find a real pynvml
    runner = h200_runner()
    gpus, warnings = nv.gather_nvidia(source, runner)
    assert gpus == [H200_SMI_GPU]
    assert warnings == []
    assert runner.calls == [nv.QUERY_ARGV, nv.TOPO_ARGV]


def test_gather_h100_topo_correlates_by_index():
    query = "index, uuid, pci.bus_id, name, memory.total [MiB], driver_version\n" + "".join(
        "%d, GPU-%d, 00000000:%02X:00.0, NVIDIA H100 80GB HBM3, 81559 MiB, 570.86.15\n" % (i, i, 0x18 + i) for i in (7, 0, 4)
    )
    runner = RecordedRunner({nv.QUERY_ARGV: (0, query, ""), nv.TOPO_ARGV: (0, read(SMI / "h100-8gpu-10nic-topo-m.txt"), "")})
    gpus, warnings = nv.gather_nvidia("nvidia-smi", runner)
    assert [(g["index"], g["pci_address"], g["numa_node"], g["cpu_affinity"]) for g in gpus] == [
        (0, "0000:18:00.0", 0, "0-63,128-191"),
        (4, "0000:1c:00.0", 1, "64-127,192-255"),
        (7, "0000:1f:00.0", 1, "64-127,192-255"),
    ]
    assert warnings == ["nvidia-smi topo -m lists GPU%d, which --query-gpu did not report" % i for i in (1, 2, 3, 5, 6)]


def test_gather_numa_range_is_a_warning_not_a_guess():
    query = (
        "index, uuid, pci.bus_id, name, memory.total [MiB], driver_version\n"
        "0, GPU-0, 00000000:41:00.0, NVIDIA A100, 40960 MiB, 535.1\n"
        "1, GPU-1, 00000000:42:00.0, NVIDIA A100, 40960 MiB, 535.1\n"
    )
    topo = "\tGPU0\tGPU1\tCPU Affinity\tNUMA Affinity\nGPU0\t X \tSYS\t0-63\t0-1\n"
    runner = RecordedRunner({nv.QUERY_ARGV: (0, query, ""), nv.TOPO_ARGV: (0, topo + "GPU1\tSYS\t X \tN/A\tN/A\n", "")})
    gpus, warnings = nv.gather_nvidia("nvidia-smi", runner)
    assert [(g["numa_node"], g["numa_affinity"], g["cpu_affinity"]) for g in gpus] == [(None, "0-1", "0-63"), (None, None, None)]
    assert warnings == ["gpu 0 (0000:41:00.0): nvidia-smi topo -m NUMA affinity is '0-1' (more than one node), so numa_node is left unknown"]


def test_gather_topo_failure_keeps_identities_with_a_warning():
    runner = h200_runner({nv.TOPO_ARGV: (3, "", "topo: not supported in this configuration\n")})
    gpus, warnings = nv.gather_nvidia("nvidia-smi", runner)
    assert gpus == [dict(H200_SMI_GPU, numa_node=None, numa_affinity=None, cpu_affinity=None)]
    assert warnings == [
        "nvidia-smi topo -m gave no locality, numa_node and cpu_affinity of every GPU are unknown:"
        " nvidia-smi topo -m failed with rc 3: topo: not supported in this configuration"
    ]


def test_gather_topo_garbage_is_a_warning():
    runner = h200_runner({nv.TOPO_ARGV: (0, "garbage\n", "")})
    gpus, warnings = nv.gather_nvidia("nvidia-smi", runner)
    assert gpus[0]["cpu_affinity"] is None
    assert len(warnings) == 1
    assert "nvidia-smi topo -m output 'garbage' has no matrix header" in warnings[0]


def test_gather_no_gpus_does_not_run_topo():
    runner = RecordedRunner({nv.QUERY_ARGV: (0, "index, uuid, pci.bus_id, name, memory.total [MiB], driver_version\n", "")})
    assert nv.gather_nvidia("nvidia-smi", runner) == ([], [])
    assert runner.calls == [nv.QUERY_ARGV]


def test_gather_explicit_nvidia_smi_missing():
    with pytest.raises(nv.NvidiaError) as err:
        nv.gather_nvidia("nvidia-smi", NoCommandsRunner())
    assert str(err.value) == "GPU source 'nvidia-smi': nvidia-smi is not installed (not found on PATH)"


def test_gather_explicit_nvidia_smi_rc():
    driver_down = (
        "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. "
        "Make sure that the latest NVIDIA driver is installed and running.\n"
    )
    runner = RecordedRunner({nv.QUERY_ARGV: (9, driver_down, "")})
    with pytest.raises(nv.NvidiaError) as err:
        nv.gather_nvidia("nvidia-smi", runner)
    assert str(err.value) == (
        "GPU source 'nvidia-smi': nvidia-smi --query-gpu=index,uuid,pci.bus_id,name,memory.total,driver_version --format=csv"
        " failed with rc 9: " + driver_down.strip()
    )


def test_gather_explicit_nvidia_smi_garbage():
    runner = RecordedRunner({nv.QUERY_ARGV: (0, "this is not csv output\n", "")})
    with pytest.raises(nv.NvidiaError) as err:
        nv.gather_nvidia("nvidia-smi", runner)
    assert "printed output that could not be read: nvidia-smi --query-gpu header 'this is not csv output'" in str(err.value)


def test_gather_auto_nvidia_smi_failure_is_a_warning(monkeypatch):
    monkeypatch.setitem(sys.modules, "pynvml", None)
    runner = RecordedRunner({nv.QUERY_ARGV: (6, "No devices were found\n", "")})
    assert nv.gather_nvidia("auto", runner) == (
        None,
        ["nvidia-smi gave no GPUs: nvidia-smi --query-gpu=index,uuid,pci.bus_id,name,memory.total,driver_version --format=csv"
         " failed with rc 6: No devices were found"],
    )


def test_gather_auto_nothing_installed(monkeypatch):
    monkeypatch.setitem(sys.modules, "pynvml", None)
    runner = NoCommandsRunner()
    assert nv.gather_nvidia("auto", runner) == (None, [])


def test_gather_rejects_unknown_source():
    with pytest.raises(nv.NvidiaError, match="GPU source 'sysfs' is not one of auto, nvml, nvidia-smi"):
        nv.gather_nvidia("sysfs", NoCommandsRunner())


# ---------------------------------------------------------------------------
# NVML through a faithful fake of nvidia-ml-py

NVML_SUCCESS = 0
NVML_ERROR_UNINITIALIZED = 1
NVML_ERROR_NOT_SUPPORTED = 3
NVML_ERROR_DRIVER_NOT_LOADED = 9
NVML_ERROR_LIBRARY_NOT_FOUND = 12
NVML_ERROR_GPU_IS_LOST = 15
_ERROR_STRINGS = {
    NVML_ERROR_UNINITIALIZED: "Uninitialized",
    NVML_ERROR_NOT_SUPPORTED: "Not Supported",
    NVML_ERROR_DRIVER_NOT_LOADED: "Driver Not Loaded",
    NVML_ERROR_LIBRARY_NOT_FOUND: "NVML Shared Library Not Found",
    NVML_ERROR_GPU_IS_LOST: "GPU is lost",
}


class NVMLError(Exception):
    """Like pynvml.NVMLError: NVMLError(code) builds the subclass for that code."""

    _valClassMapping = {}

    def __new__(cls, value):
        target = NVMLError._valClassMapping.get(value, cls) if cls is NVMLError else cls
        obj = Exception.__new__(target)
        obj.value = value
        return obj

    def __str__(self):
        return _ERROR_STRINGS.get(self.value, "NVML Error with code %d" % self.value)


def _error_class(name, code):
    """One NVMLError_* subclass, as pynvml._extractNVMLErrorsAsClasses makes them."""

    def new(typ, *_args):
        return NVMLError.__new__(typ, code)

    return type(name, (NVMLError,), {"__new__": new})


for _code, _name in [
    (NVML_ERROR_UNINITIALIZED, "NVMLError_Uninitialized"),
    (NVML_ERROR_NOT_SUPPORTED, "NVMLError_NotSupported"),
    (NVML_ERROR_DRIVER_NOT_LOADED, "NVMLError_DriverNotLoaded"),
    (NVML_ERROR_LIBRARY_NOT_FOUND, "NVMLError_LibraryNotFound"),
    (NVML_ERROR_GPU_IS_LOST, "NVMLError_GpuIsLost"),
]:
    NVMLError._valClassMapping[_code] = _error_class(_name, _code)


class FakePynvml(types.ModuleType):
    """pynvml's API over recorded per-GPU data; ``fail`` maps a function name to an NVML error code."""

    NVMLError = NVMLError
    NVML_ERROR_NOT_SUPPORTED = NVML_ERROR_NOT_SUPPORTED
    NVML_AFFINITY_SCOPE_NODE = 0
    NVML_AFFINITY_SCOPE_SOCKET = 1

    def __init__(self, gpus, as_bytes=False, fail=None):
        super().__init__("pynvml")
        self.gpus = gpus
        self.as_bytes = as_bytes
        self.fail = dict(fail or {})
        self.refcount = 0
        self.calls = []

    def _enter(self, name, *args):
        self.calls.append((name,) + args)
        if name in self.fail:
            raise NVMLError(self.fail[name])
        if name != "nvmlInit" and self.refcount == 0:
            raise NVMLError(NVML_ERROR_UNINITIALIZED)

    def _str(self, text):
        return text.encode() if self.as_bytes else text

    def _gpu(self, handle):
        if handle not in self.gpus:
            raise AssertionError("unknown handle %r" % (handle,))
        return self.gpus[handle]

    def nvmlInit(self):
        self._enter("nvmlInit")
        self.refcount += 1

    def nvmlShutdown(self):
        self._enter("nvmlShutdown")
        self.refcount -= 1

    def nvmlDeviceGetCount(self):
        self._enter("nvmlDeviceGetCount")
        return len(self.gpus)

    def nvmlDeviceGetHandleByIndex(self, index):
        self._enter("nvmlDeviceGetHandleByIndex", index)
        return "handle-%d" % index

    def nvmlDeviceGetUUID(self, handle):
        self._enter("nvmlDeviceGetUUID", handle)
        return self._str(self._gpu(handle)["uuid"])

    def nvmlDeviceGetName(self, handle):
        self._enter("nvmlDeviceGetName", handle)
        return self._str(self._gpu(handle)["name"])

    def nvmlDeviceGetPciInfo(self, handle):
        self._enter("nvmlDeviceGetPciInfo", handle)
        bus_id = self._gpu(handle)["pci_bus_id"]
        return types.SimpleNamespace(busId=self._str(bus_id), busIdLegacy=self._str(bus_id[4:]))

    def nvmlDeviceGetNumaNodeId(self, handle):
        self._enter("nvmlDeviceGetNumaNodeId", handle)
        value = self._gpu(handle)["numa_node_id"]
        if isinstance(value, str):  # the capture records "error: Not Supported"
            raise NVMLError(NVML_ERROR_NOT_SUPPORTED)
        return value

    @staticmethod
    def _words(words, size):
        array = (ctypes.c_ulonglong * size)()
        for position, word in enumerate(words[:size]):
            array[position] = word
        return array

    def nvmlDeviceGetCpuAffinity(self, handle, cpuSetSize):
        self._enter("nvmlDeviceGetCpuAffinity", handle, cpuSetSize)
        return self._words(self._gpu(handle)["cpu_affinity_words"], cpuSetSize)

    def nvmlDeviceGetMemoryAffinity(self, handle, nodeSetSize, scope):
        self._enter("nvmlDeviceGetMemoryAffinity", handle, nodeSetSize, scope)
        assert scope == self.NVML_AFFINITY_SCOPE_NODE
        return self._words(self._gpu(handle)["memory_affinity_words"], nodeSetSize)


def fake_from_capture(capture, **kwargs):
    gpus = dict(("handle-%d" % g["index"], g) for g in capture["nvml"]["gpus"])
    return FakePynvml(gpus, **kwargs)


H200_NVML_GPU = dict(H200_SMI_GPU, source="nvml")


@pytest.mark.parametrize("as_bytes", [False, True])
@pytest.mark.parametrize("source", ["nvml", "auto"])
def test_gather_nvml_h200_capture(h200_capture, source, as_bytes):
    fake = fake_from_capture(h200_capture, as_bytes=as_bytes)
    runner = h200_runner()
    gpus, warnings = nv.gather_nvidia(source, runner, nvml=fake)
    assert gpus == [H200_NVML_GPU]
    assert warnings == []
    assert runner.calls == []
    assert fake.refcount == 0
    assert fake.calls[-1] == ("nvmlShutdown",)
    assert ("nvmlDeviceGetCpuAffinity", "handle-0", nv.CPU_SET_WORDS) in fake.calls
    assert ("nvmlDeviceGetMemoryAffinity", "handle-0", nv.NODE_SET_WORDS, 0) in fake.calls


def _two_socket_gpus():
    full = (1 << 64) - 1
    return {
        # GPU on node 1 of a 2x96-thread box: CPUs 48-95 and 144-191, GPU memory node 2 (coherent).
        "handle-0": {"uuid": "GPU-a", "name": "NVIDIA GH200", "pci_bus_id": "00000009:01:00.0", "numa_node_id": 2,
                     "cpu_affinity_words": [full ^ ((1 << 48) - 1), full >> 32, (full >> 16) << 16], "memory_affinity_words": [2]},
        # Affinity spanning both nodes: numa_node unknown, with a warning.
        "handle-1": {"uuid": "GPU-b", "name": "NVIDIA A100", "pci_bus_id": "00000000:C1:00.0", "numa_node_id": -1,
                     "cpu_affinity_words": [full, full, full], "memory_affinity_words": [3]},
    }


def test_gather_nvml_multi_word_affinity_and_gpu_numa_id():
    fake = FakePynvml(_two_socket_gpus())
    gpus, warnings = nv.gather_nvidia("nvml", NoCommandsRunner(), nvml=fake)
    assert gpus == [
        {"index": 0, "uuid": "GPU-a", "pci_address": "0009:01:00.0", "name": "NVIDIA GH200", "numa_node": 1, "numa_affinity": "1",
         "gpu_numa_id": 2, "cpu_affinity": "48-95,144-191", "source": "nvml"},
        {"index": 1, "uuid": "GPU-b", "pci_address": "0000:c1:00.0", "name": "NVIDIA A100", "numa_node": None, "numa_affinity": "0-1",
         "gpu_numa_id": None, "cpu_affinity": "0-191", "source": "nvml"},
    ]
    assert warnings == ["gpu 1 (0000:c1:00.0): NVML memory NUMA affinity is '0-1' (more than one node), so numa_node is left unknown"]


def test_words_to_ids_uses_the_array_word_size():
    assert nv._words_to_ids([1, 1]) == [0, 64]
    array32 = (ctypes.c_uint32 * 2)(1, 1)
    assert nv._words_to_ids(array32) == [0, 32]


def test_gather_nvml_optional_calls_fail_per_device(h200_capture):
    fake = fake_from_capture(h200_capture, fail={"nvmlDeviceGetCpuAffinity": NVML_ERROR_GPU_IS_LOST, "nvmlDeviceGetMemoryAffinity": NVML_ERROR_NOT_SUPPORTED})
    gpus, warnings = nv.gather_nvidia("nvml", NoCommandsRunner(), nvml=fake)
    assert gpus == [dict(H200_NVML_GPU, numa_node=None, numa_affinity=None, cpu_affinity=None)]
    assert warnings == [
        "gpu 0 (0000:00:06.0): nvmlDeviceGetCpuAffinity failed, cpu_affinity unknown: GPU is lost",
        "gpu 0 (0000:00:06.0): nvmlDeviceGetMemoryAffinity failed, numa_node unknown: Not Supported",
    ]


def test_gather_nvml_numa_node_id_other_error_is_a_warning(h200_capture):
    fake = fake_from_capture(h200_capture, fail={"nvmlDeviceGetNumaNodeId": NVML_ERROR_GPU_IS_LOST})
    gpus, warnings = nv.gather_nvidia("nvml", NoCommandsRunner(), nvml=fake)
    assert gpus == [H200_NVML_GPU]
    assert warnings == ["gpu 0 (0000:00:06.0): nvmlDeviceGetNumaNodeId failed, gpu_numa_id unknown: GPU is lost"]


def test_gather_nvml_empty_cpu_affinity_is_unknown(h200_capture):
    capture = json.loads(json.dumps(h200_capture))
    capture["nvml"]["gpus"][0]["cpu_affinity_words"] = [0] * 64
    gpus, warnings = nv.gather_nvidia("nvml", NoCommandsRunner(), nvml=fake_from_capture(capture))
    assert gpus[0]["cpu_affinity"] is None
    assert warnings == ["gpu 0 (0000:00:06.0): nvmlDeviceGetCpuAffinity returned no CPUs, cpu_affinity unknown"]


def test_gather_nvml_old_bindings_without_memory_affinity(h200_capture):
    """Bindings older than nvmlDeviceGetMemoryAffinity (the attribute is missing)."""

    class OldBindings(FakePynvml):
        def __getattribute__(self, name):
            if name == "nvmlDeviceGetMemoryAffinity":
                raise AttributeError(name)
            return super().__getattribute__(name)

    old = OldBindings(fake_from_capture(h200_capture).gpus)
    gpus, warnings = nv.gather_nvidia("nvml", NoCommandsRunner(), nvml=old)
    assert gpus == [dict(H200_NVML_GPU, numa_node=None, numa_affinity=None)]
    assert warnings == ["gpu 0 (0000:00:06.0): these NVML bindings lack nvmlDeviceGetMemoryAffinity, numa_node unknown"]


def test_gather_nvml_explicit_init_failure(h200_capture):
    fake = fake_from_capture(h200_capture, fail={"nvmlInit": NVML_ERROR_DRIVER_NOT_LOADED})
    with pytest.raises(nv.NvidiaError) as err:
        nv.gather_nvidia("nvml", h200_runner(), nvml=fake)
    assert str(err.value) == "GPU source 'nvml': NVML: nvmlInit failed: Driver Not Loaded"
    assert ("nvmlShutdown",) not in fake.calls


def test_gather_auto_nvml_init_failure_falls_back_to_nvidia_smi(h200_capture):
    fake = fake_from_capture(h200_capture, fail={"nvmlInit": NVML_ERROR_LIBRARY_NOT_FOUND})
    runner = h200_runner()
    gpus, warnings = nv.gather_nvidia("auto", runner, nvml=fake)
    assert gpus == [H200_SMI_GPU]
    assert warnings == ["NVML: nvmlInit failed: NVML Shared Library Not Found; falling back to nvidia-smi"]


def test_gather_auto_nvml_device_failure_falls_back_and_shuts_down(h200_capture):
    fake = fake_from_capture(h200_capture, fail={"nvmlDeviceGetUUID": NVML_ERROR_GPU_IS_LOST})
    gpus, warnings = nv.gather_nvidia("auto", h200_runner(), nvml=fake)
    assert gpus == [H200_SMI_GPU]
    assert warnings == ["gpu 0: nvmlDeviceGetUUID failed: GPU is lost; falling back to nvidia-smi"]
    assert fake.refcount == 0
    assert fake.calls[-1] == ("nvmlShutdown",)


def test_gather_nvml_explicit_device_failure_shuts_down(h200_capture):
    fake = fake_from_capture(h200_capture, fail={"nvmlDeviceGetCount": NVML_ERROR_UNINITIALIZED})
    with pytest.raises(nv.NvidiaError, match="^GPU source 'nvml': NVML: nvmlDeviceGetCount failed: Uninitialized$"):
        nv.gather_nvidia("nvml", NoCommandsRunner(), nvml=fake)
    assert fake.refcount == 0


def test_gather_nvml_shutdown_failure_is_a_warning(h200_capture):
    fake = fake_from_capture(h200_capture, fail={"nvmlShutdown": NVML_ERROR_UNINITIALIZED})
    gpus, warnings = nv.gather_nvidia("nvml", NoCommandsRunner(), nvml=fake)
    assert gpus == [H200_NVML_GPU]
    assert warnings == ["NVML: nvmlShutdown failed: Uninitialized"]


def test_gather_nvml_bad_bus_id(h200_capture):
    capture = json.loads(json.dumps(h200_capture))
    capture["nvml"]["gpus"][0]["pci_bus_id"] = "garbage!"
    with pytest.raises(nv.NvidiaError) as err:
        nv.gather_nvidia("nvml", NoCommandsRunner(), nvml=fake_from_capture(capture))
    assert str(err.value) == (
        "GPU source 'nvml': gpu 0: nvmlDeviceGetPciInfo returned an unusable busId:"
        " PCI address 'garbage!' is not of the form [domain:]bus:device.function"
    )


def test_gather_nvml_zero_gpus():
    fake = FakePynvml({})
    assert nv.gather_nvidia("nvml", NoCommandsRunner(), nvml=fake) == ([], [])
    assert fake.calls == [("nvmlInit",), ("nvmlDeviceGetCount",), ("nvmlShutdown",)]


def test_gather_nvml_module_not_pynvml():
    with pytest.raises(nv.NvidiaError, match="has no NVMLError class, it is not nvidia-ml-py"):
        nv.gather_nvidia("nvml", NoCommandsRunner(), nvml=types.ModuleType("pynvml"))


def test_gather_explicit_nvml_not_importable(monkeypatch):
    monkeypatch.setitem(sys.modules, "pynvml", None)
    with pytest.raises(nv.NvidiaError) as err:
        nv.gather_nvidia("nvml", h200_runner())
    assert str(err.value).startswith("GPU source 'nvml': the Python module pynvml (package nvidia-ml-py) cannot be imported: ")


def test_gather_auto_imports_pynvml_when_not_injected(monkeypatch, h200_capture):
    fake = fake_from_capture(h200_capture)
    monkeypatch.setitem(sys.modules, "pynvml", fake)
    runner = h200_runner()
    assert nv.gather_nvidia("auto", runner) == ([H200_NVML_GPU], [])
    assert runner.calls == []
