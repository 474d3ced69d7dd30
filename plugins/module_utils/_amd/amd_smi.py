# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Parsers for what amd-smi prints: ``static`` and ``list``, as JSON or as its indented text.

Public: `AmdSmiFormatError`, `parse_gpus`, `gpu_records`, `mask_cpus`, `parse_topology`, `parse_version`.

JSON is read where amd-smi prints it: a list of GPU objects (6.x) or ``{"gpu_data": [...]}``
(6.4 and later). The text form (``GPU: 0`` then indented ``KEY: value`` lines) is read too, for
builds whose ``--json`` is missing. Keys are compared in lower case; "N/A" is unknown. The CPU list
is decoded from ``CPU_AFFINITY``'s 64-bit ``BITMASK`` words, never from ``CPU_CORES_AFFINITY``,
which prints the first-to-last range of a word (every odd CPU prints as "1-63"). ``topology`` is read
as its tables keyed by PCI address (text) or its ``links`` lists (JSON); ``version`` as its fields.
"""

from __future__ import annotations

import json
import re

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import cpulist as _cpulist

_BLOCK = re.compile(r"^(GPU|CPU): (\d+)\s*$")
_LINE = re.compile(r"^( *)([A-Za-z0-9_ ]+?):(?: (.*?))?\s*$")
_UNKNOWN = ("N/A", "", "<redacted>")


class AmdSmiFormatError(ValueError):
    """amd-smi output that is neither its JSON nor its text form; the message names what was expected."""


def _lower(value):
    if isinstance(value, dict):
        return dict((str(key).lower(), _lower(item)) for key, item in value.items())
    if isinstance(value, list):
        return [_lower(item) for item in value]
    return value


def _parse_json(text):
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise AmdSmiFormatError("output starts as JSON but does not parse (%s)" % exc) from exc
    if isinstance(data, dict) and isinstance(data.get("gpu_data"), list):
        data = data["gpu_data"]
    if not isinstance(data, list) or not all(isinstance(item, dict) and "gpu" in item for item in data):
        raise AmdSmiFormatError("JSON is neither a list of GPU objects nor {\"gpu_data\": [...]}")
    return _lower(data)


def _parse_text(text):
    gpus, stack = [], None
    for line in text.splitlines():
        block = _BLOCK.match(line)
        if block:
            stack = None
            if block.group(1) == "GPU":
                gpu = {"gpu": int(block.group(2))}
                gpus.append(gpu)
                stack = [(-1, gpu)]
            continue
        match = _LINE.match(line) if stack else None
        if not match:
            continue
        indent, key, value = len(match.group(1)), match.group(2).strip().lower(), match.group(3)
        while stack[-1][0] >= indent:
            stack.pop()
        parent = stack[-1][1]
        if value is None:
            child = {}
            parent[key] = child
            stack.append((indent, child))
        else:
            parent[key] = value
    if not gpus:
        raise AmdSmiFormatError("no JSON and no 'GPU: <n>' block")
    return gpus


def parse_gpus(text):
    """The GPU objects amd-smi printed (keys in lower case), JSON or text; AmdSmiFormatError otherwise."""
    stripped = (text or "").strip()
    if not stripped:
        raise AmdSmiFormatError("no output")
    if stripped[0] in "[{":
        return _parse_json(stripped)
    return _parse_text(stripped)


def _known(value):
    if value is None or (isinstance(value, str) and value.strip() in _UNKNOWN):
        return None
    return value.strip() if isinstance(value, str) else value


def _int(value):
    value = _known(value)
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    return int(value) if isinstance(value, str) and value.lstrip("-").isdigit() else None


def mask_cpus(cpu_affinity):
    """The cpulist of amd-smi's CPU_AFFINITY: word CPU_LIST_i covers CPUs 64*i..64*i+63; None without a bitmask."""
    if not isinstance(cpu_affinity, dict):
        return None
    cpus, seen = [], False
    for key, word in cpu_affinity.items():
        if not key.startswith("cpu_list_") or not key[len("cpu_list_"):].isdigit() or not isinstance(word, dict):
            continue
        bitmask = _known(word.get("bitmask"))
        if bitmask is None or not re.match(r"^[0-9A-Fa-f]{1,16}$", bitmask):
            return None
        seen = True
        base, value = 64 * int(key[len("cpu_list_"):]), int(bitmask, 16)
        cpus.extend(base + bit for bit in range(64) if value >> bit & 1)
    return _cpulist.format(cpus) if seen else None


def gpu_records(static, listing):
    """One record per GPU index from parsed ``static`` and ``list`` output (either may be empty).

    ``{index, bdf, uuid, kfd_node, partition_id, numa_node, numa_affinity, cpus, name,
    compute_partition, memory_partition, driver_version}``, None where amd-smi did not say.
    """
    records = {}
    for item in listing:
        index = _int(item.get("gpu"))
        records[index] = {"index": index, "bdf": _known(item.get("bdf")), "uuid": _known(item.get("uuid")),
                          "kfd_node": _int(item.get("node_id")), "partition_id": _int(item.get("partition_id"))}
    for item in static:
        index = _int(item.get("gpu"))
        record = records.setdefault(index, {"index": index, "bdf": None, "uuid": None, "kfd_node": None, "partition_id": None})
        bus, numa = item.get("bus") or {}, item.get("numa") or {}
        partition, asic, driver = item.get("partition") or {}, item.get("asic") or {}, item.get("driver") or {}
        record["bdf"] = record["bdf"] or _known(bus.get("bdf") if isinstance(bus, dict) else None)
        if record["partition_id"] is None and isinstance(partition, dict):
            record["partition_id"] = _int(partition.get("partition_id"))
        record.update({
            "numa_node": _int(numa.get("node")) if isinstance(numa, dict) else None,
            "numa_affinity": _int(numa.get("affinity")) if isinstance(numa, dict) else None,
            "cpus": mask_cpus(numa.get("cpu_affinity")) if isinstance(numa, dict) else None,
            "name": _known(asic.get("market_name")) if isinstance(asic, dict) else None,
            "compute_partition": _known(partition.get("compute_partition")) if isinstance(partition, dict) else None,
            "memory_partition": _known(partition.get("memory_partition")) if isinstance(partition, dict) else None,
            "driver_version": _known(driver.get("version")) if isinstance(driver, dict) else None,
        })
    for record in records.values():
        for key in ("numa_node", "numa_affinity", "cpus", "name", "compute_partition", "memory_partition", "driver_version"):
            record.setdefault(key, None)
    return [records[index] for index in sorted(records, key=lambda i: (i is None, i))]


def _topology_json(data):
    tables = {}
    for gpu in data:
        source = _known(gpu.get("bdf"))
        for link in gpu.get("links") or []:
            target = _known(link.get("bdf")) if isinstance(link, dict) else None
            if source is None or target is None:
                raise AmdSmiFormatError("a topology link without a bdf")
            for key in ("link_type", "link_status", "weight", "hops"):
                if key in link:
                    tables.setdefault(key.replace("_", " ").upper(), {})[(source.lower(), target.lower())] = str(link[key])
    return tables


def parse_topology(text):
    """{table name: {(from bdf, to bdf): cell}} of ``amd-smi topology`` (``LINK TYPE``, ``WEIGHT``, ``HOPS``, ...)."""
    stripped = (text or "").strip()
    if stripped[:1] == "[":
        return _topology_json(_parse_json(stripped))
    tables, name, columns = {}, None, None
    for line in stripped.splitlines():
        title = re.match(r"^([A-Z][A-Z -]*?) TABLE:\s*$", line)
        if title:
            name, columns = title.group(1), None
            continue
        cells = line.split()
        if not cells:
            name = None  # a blank line ends a table (the legend after the last one is no table)
            continue
        if name is None:
            continue
        if columns is None:
            columns = [cell.lower() for cell in cells]
            continue
        if len(cells) != len(columns) + 1:
            raise AmdSmiFormatError("%s TABLE row %r has %d cells for %d columns" % (name, line.strip()[:40], len(cells) - 1, len(columns)))
        for column, cell in zip(columns, cells[1:]):
            tables.setdefault(name, {})[(cells[0].lower(), column)] = cell
    if not tables:
        raise AmdSmiFormatError("no '<NAME> TABLE:' section and no JSON list of GPU links")
    return tables


def parse_version(text):
    """{field: value} of ``amd-smi version`` ("AMDSMI Tool: ... | ROCm version: ..."), field names in lower case."""
    fields = {}
    for part in (text or "").strip().split("|"):
        name, colon, value = part.partition(":")
        if colon and name.strip() and value.strip():
            fields[name.strip().lower()] = value.strip()
    if not fields:
        raise AmdSmiFormatError("no '<name>: <value>' fields")
    return fields
