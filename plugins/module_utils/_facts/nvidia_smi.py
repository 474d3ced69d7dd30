# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Parsers for the text nvidia-smi prints, and the errors of the NVIDIA readers.

Public: `parse_topo_m`, `parse_query_gpu_csv`, `NvidiaError`, `TopoParseError`, `QueryParseError`,
`QUERY_FIELDS`, `QUERY_ARGV`, `TOPO_ARGV`.

* `parse_topo_m` reads the matrix printed by ``nvidia-smi topo -m`` in every
  layout seen on real machines (tabs or tabs turned into spaces, ANSI escapes in
  the header, NICn columns with a "NIC Legend" or mlx5_n columns, with or without
  "NUMA Affinity" and "GPU NUMA ID", the empty cell newer drivers print before
  "GPU NUMA ID").
* `parse_query_gpu_csv` reads ``nvidia-smi --query-gpu=... --format=csv``.
"""

from __future__ import annotations

import csv
import re

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base.cpulist import CpuListError, canonical
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base.errors import NumaGateError
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base.pci import PciAddressError, normalize as normalize_pci

QUERY_FIELDS = ("index", "uuid", "pci.bus_id", "name", "memory.total", "driver_version")
# The argvs recorded on the h200 host (fixtures/real/h200-vm/capture.json), so recordings replay.
QUERY_ARGV = ("nvidia-smi", "--query-gpu=" + ",".join(QUERY_FIELDS), "--format=csv")
TOPO_ARGV = ("nvidia-smi", "topo", "-m")

_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
_GPU_LABEL = re.compile(r"^GPU(\d+)$")
_NIC_LABEL = re.compile(r"^NIC\d+$")
_LEGEND_ENTRY = re.compile(r"^\s*(NIC\d+)\s*:\s*(\S+)\s*$")
_UNIT = re.compile(r"^(?P<name>.*?)\s*\[(?P<unit>[^\]]*)\]$")
_INT = re.compile(r"^-?\d+$")
# Attribute columns of the matrix; anything else before them is a device column.
CPU_AFFINITY = "CPU Affinity"
NUMA_AFFINITY = "NUMA Affinity"
GPU_NUMA_ID = "GPU NUMA ID"
_ATTRIBUTES = (CPU_AFFINITY, NUMA_AFFINITY, GPU_NUMA_ID)
_UNKNOWN = ("", "N/A", "[N/A]", "n/a")


class NvidiaError(NumaGateError, ValueError):
    """A GPU source that is missing, failed, or printed something unreadable."""


class TopoParseError(NvidiaError):
    """Text that is not an ``nvidia-smi topo -m`` matrix."""


class QueryParseError(NvidiaError):
    """Text that is not ``nvidia-smi --query-gpu`` CSV output."""


# ---------------------------------------------------------------------------
# nvidia-smi topo -m


def _clean_line(line):
    return _ANSI.sub("", line).rstrip("\r\n")


def _is_header(line):
    tokens = line.split()
    return bool(tokens) and tokens[0] == "GPU0" and "X" not in tokens


def _header_columns(line):
    """Column names and their start offsets (after tab expansion) of the header line."""
    columns = []
    if "\t" in line:
        cells = line.split("\t")
        offset = 0
        for cell in cells:
            name = cell.strip()
            if name:
                columns.append((name, offset + len(cell) - len(cell.lstrip())))
            # a tab moves to the next multiple of 8, as expandtabs(8) does
            offset = ((offset + len(cell)) // 8 + 1) * 8
        return columns
    tokens = [(m.group(0), m.start()) for m in re.finditer(r"\S+", line)]
    i = 0
    while i < len(tokens):
        for phrase in _ATTRIBUTES:
            words = phrase.split()
            if [t[0] for t in tokens[i:i + len(words)]] == words:
                columns.append((phrase, tokens[i][1]))
                i += len(words)
                break
        else:
            columns.append(tokens[i])
            i += 1
    return columns


def _fit_tab_attributes(label, cells, names):
    """Map the tab-separated cells after the links to the attribute column names."""
    cells = list(cells)
    if len(cells) > len(names) and GPU_NUMA_ID in names:
        # Newer drivers print an empty cell between "NUMA Affinity" and "GPU NUMA ID".
        where = names.index(GPU_NUMA_ID)
        while len(cells) > len(names) and where < len(cells) and cells[where] == "":
            del cells[where]
    while len(cells) > len(names) and cells[-1] == "":
        cells.pop()
    if len(cells) > len(names):
        raise TopoParseError(
            "nvidia-smi topo -m: row %r has %d cells after the links, more than the %d columns %s" % (label, len(cells), len(names), ", ".join(names))
        )
    cells.extend([""] * (len(names) - len(cells)))
    return dict(zip(names, cells))


def _fit_space_attributes(label, tokens, columns):
    """Map whitespace-separated tokens (text, offset) to attribute columns by header position."""
    names = [name for name, _start in columns]
    if len(tokens) == len(names):
        return dict(zip(names, [t[0] for t in tokens]))
    if len(tokens) > len(names):
        raise TopoParseError(
            "nvidia-smi topo -m: row %r has %d values after the links, more than the %d columns %s" % (label, len(tokens), len(names), ", ".join(names))
        )
    values = dict((name, "") for name in names)
    for text, start in tokens:
        chosen = None
        for name, col_start in columns:
            if col_start <= start + 1:
                chosen = name
        if chosen is None or values[chosen]:
            raise TopoParseError(
                "nvidia-smi topo -m: row %r: value %r at offset %d does not line up with one of the columns %s" % (label, text, start, ", ".join(names))
            )
        values[chosen] = text
    return values


def _split_row(line, devices, attributes):
    """(label, link cells, attribute dict) for one matrix row."""
    if "\t" in line:
        cells = [c.strip() for c in line.split("\t")]
        label, links, rest = cells[0], cells[1:1 + len(devices)], cells[1 + len(devices):]
        if len(links) < len(devices):
            raise TopoParseError(
                "nvidia-smi topo -m: row %r has %d link cells, expected %d (one per column %s)" % (label, len(links), len(devices), ", ".join(devices))
            )
        return label, links, _fit_tab_attributes(label, rest, [name for name, _start in attributes])
    expanded = line.expandtabs(8)
    tokens = [(m.group(0), m.start()) for m in re.finditer(r"\S+", expanded)]
    label = tokens[0][0]
    links = [t[0] for t in tokens[1:1 + len(devices)]]
    if len(links) < len(devices):
        raise TopoParseError(
            "nvidia-smi topo -m: row %r has %d link cells, expected %d (one per column %s)" % (label, len(links), len(devices), ", ".join(devices))
        )
    return label, links, _fit_space_attributes(label, tokens[1 + len(devices):], attributes)


def _optional_cpulist(label, column, value):
    if value in _UNKNOWN:
        return None
    try:
        return canonical(value)
    except CpuListError as err:
        raise TopoParseError("nvidia-smi topo -m: row %r column %r: %r is not a list such as '0-3,8' or N/A (%s)" % (label, column, value, err)) from err


def _optional_int(label, column, value):
    if value in _UNKNOWN:
        return None
    if not _INT.match(value) or int(value) < 0:
        raise TopoParseError("nvidia-smi topo -m: row %r column %r: %r is not a NUMA id (a number >= 0) or N/A" % (label, column, value))
    return int(value)


def _nic_legend(lines):
    legend = {}
    in_legend = False
    for line in lines:
        stripped = line.strip()
        if stripped.rstrip(":").strip().lower() == "nic legend":
            in_legend = True
            continue
        if in_legend:
            match = _LEGEND_ENTRY.match(line)
            if match:
                legend[match.group(1)] = match.group(2)
            elif stripped:
                in_legend = False
    return legend


def parse_topo_m(text):
    """Parse ``nvidia-smi topo -m`` output.

    Returns ``{"gpus": [{"index", "name", "cpu_affinity", "numa_affinity", "gpu_numa_id"}],
    "nics": [{"name", "device"}], "links": {row: {column: cell}}}`` where
    cpu_affinity and numa_affinity are canonical cpulist-style strings or None
    (N/A, empty or no such column), gpu_numa_id an int or None, and links leave
    out each device's "X" cell to itself. Raises TopoParseError when there is
    no matrix, or a row does not fit the header.
    """
    if not isinstance(text, str):
        raise TopoParseError("nvidia-smi topo -m output %r is a %s, expected text" % (text, type(text).__name__))
    lines = [_clean_line(line) for line in text.splitlines()]
    start = None
    for number, line in enumerate(lines):
        if _is_header(line):
            start = number
            break
    if start is None:
        excerpt = text.strip()[:80]
        raise TopoParseError(
            "nvidia-smi topo -m output %r has no matrix header: expected a line of column names starting with GPU0"
            " (GPU0 GPU1 ... CPU Affinity NUMA Affinity)" % (excerpt,)
        )
    columns = _header_columns(lines[start])
    devices = []
    attributes = []
    for name, offset in columns:
        if name in _ATTRIBUTES:
            attributes.append((name, offset))
        elif attributes:
            raise TopoParseError(
                "nvidia-smi topo -m header: device column %r comes after the attribute columns %s" % (name, ", ".join(a[0] for a in attributes))
            )
        else:
            devices.append(name)
    if len(set(devices)) != len(devices):
        raise TopoParseError("nvidia-smi topo -m header: a device column is named twice in %s" % ", ".join(devices))

    rows = {}
    order = []
    for line in lines[start + 1:]:
        if not line.strip():
            break
        first = line.split()[0]
        if first not in devices:
            break
        label, links, values = _split_row(line, devices, attributes)
        if label in rows:
            raise TopoParseError("nvidia-smi topo -m: row %r appears twice" % (label,))
        rows[label] = (links, values)
        order.append(label)
    missing = [d for d in devices if d not in rows]
    if missing:
        raise TopoParseError("nvidia-smi topo -m: no row for column(s) %s (output truncated?)" % ", ".join(missing))

    legend = _nic_legend(lines[start + 1:])
    result = {"gpus": [], "nics": [], "links": {}}
    for label in order:
        links, values = rows[label]
        result["links"][label] = dict(
            (column, cell) for column, cell in zip(devices, links) if not (column == label and cell == "X")
        )
        match = _GPU_LABEL.match(label)
        if match:
            result["gpus"].append(
                {
                    "index": int(match.group(1)),
                    "name": label,
                    "cpu_affinity": _optional_cpulist(label, CPU_AFFINITY, values.get(CPU_AFFINITY, "")),
                    "numa_affinity": _optional_cpulist(label, NUMA_AFFINITY, values.get(NUMA_AFFINITY, "")),
                    "gpu_numa_id": _optional_int(label, GPU_NUMA_ID, values.get(GPU_NUMA_ID, "")),
                }
            )
        else:
            device = legend.get(label)
            if device is None and not _NIC_LABEL.match(label):
                device = label
            result["nics"].append({"name": label, "device": device})
    return result


# ---------------------------------------------------------------------------
# nvidia-smi --query-gpu


def _query_value(field, unit, value, line_number):
    if value in _UNKNOWN:
        return None
    if unit and value.endswith(" " + unit):
        value = value[: -len(unit) - 1].strip()
    if field == "index":
        if not _INT.match(value) or int(value) < 0:
            raise QueryParseError("nvidia-smi --query-gpu line %d: index %r is not a number >= 0" % (line_number, value))
        return int(value)
    if field == "pci.bus_id":
        try:
            return normalize_pci(value)
        except PciAddressError as err:
            raise QueryParseError("nvidia-smi --query-gpu line %d: pci.bus_id: %s" % (line_number, err)) from err
    if unit and _INT.match(value):
        return int(value)
    return value


def parse_query_gpu_csv(text, header=True, fields=None):
    """Parse ``nvidia-smi --query-gpu=... --format=csv[,noheader]`` output.

    Returns one dict per line keyed by the query field names ("index", "uuid",
    "pci.bus_id", ...; a unit such as " [MiB]" is dropped from the name and from
    the values, which then become ints). "index" is an int, "pci.bus_id" is
    normalised to dddd:bb:dd.f, "N/A" is None. Without a header, ``fields``
    names the columns (default: index, uuid, pci.bus_id, name).
    """
    if not isinstance(text, str):
        raise QueryParseError("nvidia-smi --query-gpu output %r is a %s, expected text" % (text, type(text).__name__))
    rows = [(n, row) for n, row in enumerate(csv.reader(text.splitlines(), skipinitialspace=True), start=1) if row and any(c.strip() for c in row)]
    units = []
    if header:
        if not rows:
            raise QueryParseError("nvidia-smi --query-gpu output is empty, expected a CSV header line such as 'index, uuid, pci.bus_id, name'")
        names = []
        for cell in rows[0][1]:
            cell = cell.strip()
            match = _UNIT.match(cell)
            names.append(match.group("name") if match else cell)
            units.append(match.group("unit") if match else "")
        rows = rows[1:]
        if "index" not in names and "uuid" not in names and "pci.bus_id" not in names:
            raise QueryParseError(
                "nvidia-smi --query-gpu header %r names none of index, uuid, pci.bus_id: not --query-gpu CSV output" % (", ".join(names),)
            )
    else:
        names = list(fields or QUERY_FIELDS[:4])
        units = [""] * len(names)
    gpus = []
    for line_number, row in rows:
        if len(row) != len(names):
            raise QueryParseError(
                "nvidia-smi --query-gpu line %d %r has %d values, expected %d (%s)" % (line_number, ", ".join(row), len(row), len(names), ", ".join(names))
            )
        gpus.append(
            dict((name, _query_value(name, unit, cell.strip(), line_number)) for name, unit, cell in zip(names, units, row))
        )
    return gpus
