# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Parsers for what rocm-smi prints: ``--showhw``, its ``GPU[n] : <field>: <value>`` lines and ``--showtopo``'s NUMA section.

Public: `RocmSmiFormatError`, `parse_showhw`, `parse_fields`, `parse_showbus`, `parse_numa`, `parse_showproduct`.

rocm-smi names logical GPUs ``GPU[n]``: with a partitioned GPU there is one per partition. Before
6.1.1 ``--showbus`` printed the partition number in the PCI function digit (and dropped the PCI
domain), and ``--showtopo``'s "Numa Node" (the KFD CPU link) and "Numa Affinity" (sysfs
``numa_node``) could disagree: these parsers keep what was printed; ``_facts.amd_tools`` checks it against sysfs.
"""

from __future__ import annotations

import re

_GPU_LINE = re.compile(r"^GPU\[(\d+)\]\s*:\s*(.*?)\s*$")
_BUS = re.compile(r"^PCI Bus:\s*(\S+)$")
_NUMA = re.compile(r"^\(Topology\) Numa (Node|Affinity):\s*(-?\d+)$")
_HW_COLUMNS = {"GPU": "gpu", "NODE": "kfd_node", "DID": "device_id", "GUID": "guid", "BUS": "bus", "PARTITION ID": "partition_id"}


class RocmSmiFormatError(ValueError):
    """rocm-smi output without the lines a parser reads; the message names what was expected."""


def _int(text):
    return int(text) if text.isdigit() else None


def parse_showhw(text):
    """Rows of ``rocm-smi --showhw``: {gpu, kfd_node, device_id, guid, bus, partition_id} (None where the build has no column)."""
    lines = (text or "").splitlines()
    header = next((i for i, line in enumerate(lines) if line.startswith("GPU ") and " BUS " in line + " "), None)
    if header is None:
        raise RocmSmiFormatError("no 'GPU ... BUS' header line of the Concise Hardware Info table")
    columns = re.split(r"\s{2,}", lines[header].strip())
    rows = []
    for line in lines[header + 1:]:
        cells = line.split()
        if not cells or not cells[0].isdigit():
            if line.startswith("="):
                break
            continue
        if len(cells) != len(columns):
            raise RocmSmiFormatError("row %r has %d cells for the %d columns %s" % (line.strip()[:60], len(cells), len(columns), ", ".join(columns)))
        row = dict((_HW_COLUMNS[name], cell) for name, cell in zip(columns, cells) if name in _HW_COLUMNS)
        rows.append({"gpu": int(row["gpu"]), "kfd_node": _int(row.get("kfd_node", "")), "device_id": row.get("device_id"),
                     "guid": _int(row.get("guid", "")), "bus": row.get("bus"), "partition_id": _int(row.get("partition_id", ""))})
    if not rows:
        raise RocmSmiFormatError("the Concise Hardware Info table has no GPU rows")
    return rows


def parse_fields(text):
    """{gpu: {field: value}} of the ``GPU[n] : <field>: <value>`` lines (``-i``, ``--showproduct``, ``--showbus``, ...)."""
    found = {}
    for line in (text or "").splitlines():
        match = _GPU_LINE.match(line.strip())
        field, colon, value = match.group(2).partition(":") if match else ("", "", "")
        if colon and field.strip():
            found.setdefault(int(match.group(1)), {})[field.strip()] = value.strip()
    if not found:
        raise RocmSmiFormatError("no 'GPU[n] : <field>: <value>' line")
    return found


def parse_showproduct(text):
    """{gpu: {"name", "kfd_node", "guid"}} of ``rocm-smi --showproduct`` ("Card Series", "Node ID", "GUID"; None where absent)."""
    products = {}
    for gpu, fields in parse_fields(text).items():
        if "Card Series" not in fields:
            continue
        products[gpu] = {"name": fields["Card Series"] if fields["Card Series"] not in ("N/A", "") else None,
                         "kfd_node": _int(fields.get("Node ID", "")), "guid": _int(fields.get("GUID", ""))}
    if not products:
        raise RocmSmiFormatError("no 'GPU[n] : Card Series: <name>' line")
    return products


def parse_showbus(text):
    """{gpu: the PCI bus id printed} of ``rocm-smi --showbus``."""
    found = {}
    for line in (text or "").splitlines():
        match = _GPU_LINE.match(line.strip())
        bus = _BUS.match(match.group(2)) if match else None
        if bus:
            found[int(match.group(1))] = bus.group(1).lower()
    if not found:
        raise RocmSmiFormatError("no 'GPU[n] : PCI Bus: <address>' line")
    return found


def parse_numa(text):
    """{gpu: {"numa_node": n, "numa_affinity": n}} from the "Numa Nodes" section (``--showtopo``, ``--showtoponuma``)."""
    found = {}
    for line in (text or "").splitlines():
        match = _GPU_LINE.match(line.strip())
        numa = _NUMA.match(match.group(2)) if match else None
        if numa:
            key = "numa_node" if numa.group(1) == "Node" else "numa_affinity"
            found.setdefault(int(match.group(1)), {"numa_node": None, "numa_affinity": None})[key] = int(numa.group(2))
    if not found:
        raise RocmSmiFormatError("no 'GPU[n] : (Topology) Numa Node: <n>' line")
    return found
