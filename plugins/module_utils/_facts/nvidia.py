# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""NVIDIA GPU identities and locality, from NVML (nvidia-ml-py) or nvidia-smi.

* `parse_topo_m` reads the matrix printed by ``nvidia-smi topo -m`` in every
  layout seen on real machines (tabs or tabs turned into spaces, ANSI escapes in
  the header, NICn columns with a "NIC Legend" or mlx5_n columns, with or without
  "NUMA Affinity" and "GPU NUMA ID", the empty cell newer drivers print before
  "GPU NUMA ID").
* `parse_query_gpu_csv` reads ``nvidia-smi --query-gpu=... --format=csv``.
* `gather_nvidia` asks NVML, else nvidia-smi (through an injectable runner), and
  returns one dict per GPU plus warnings.

NUMA terms: "NUMA Affinity" (NVML memory affinity) is the node(s) closest to the
GPU, which is what ``numa_node`` reports; "GPU NUMA ID" (nvmlDeviceGetNumaNodeId)
is the node that is the GPU's own memory on coherent platforms (Grace Hopper),
a different property, reported as ``gpu_numa_id``.
"""

from __future__ import annotations

import csv
import ctypes
import re

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._cpulist import CpuListError, canonical, format as format_cpus, parse as parse_cpus
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._pci import PciAddressError, normalize as normalize_pci

SOURCES = ("auto", "nvml", "nvidia-smi")
QUERY_FIELDS = ("index", "uuid", "pci.bus_id", "name", "memory.total", "driver_version")
# The argvs recorded on the h200 host (fixtures/real/h200-vm/capture.json), so recordings replay.
QUERY_ARGV = ("nvidia-smi", "--query-gpu=" + ",".join(QUERY_FIELDS), "--format=csv")
TOPO_ARGV = ("nvidia-smi", "topo", "-m")
# nvmlDeviceGetCpuAffinity takes the set size in unsigned longs: 128 x 64 bits
# covers the kernel's largest NR_CPUS (8192); 16 x 64 bits covers MAX_NUMNODES (1024).
CPU_SET_WORDS = 128
NODE_SET_WORDS = 16
# pynvml constants, used when an injected module does not define them.
_NVML_ERROR_NOT_SUPPORTED = 3
_NVML_AFFINITY_SCOPE_NODE = 0

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


class NvidiaError(ValueError):
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


# ---------------------------------------------------------------------------
# gather


def _numa_node(affinity):
    """The single NUMA id of an affinity cpulist-style string, else None."""
    if affinity is None:
        return None
    ids = parse_cpus(affinity)
    if len(ids) == 1:
        return ids[0]
    return None


def _gpu_label(gpu):
    return "gpu %s (%s)" % (gpu.get("index"), gpu.get("pci_address") or gpu.get("uuid") or "unknown address")


def _locality_warnings(gpu, origin, warnings):
    affinity = gpu["numa_affinity"]
    if affinity is not None and gpu["numa_node"] is None:
        warnings.append(
            "%s: %s NUMA affinity is %r (%s), so numa_node is left unknown"
            % (_gpu_label(gpu), origin, affinity, "no node" if affinity == "" else "more than one node")
        )


def _run(runner, argv):
    rc, out, err = runner.run(list(argv))
    if rc != 0:
        reason = (err or "").strip() or (out or "").strip() or "no output"
        raise NvidiaError("%s failed with rc %s: %s" % (" ".join(argv), rc, reason.splitlines()[0][:300]))
    return out or ""


def _gather_smi(runner, warnings):
    if runner.find("nvidia-smi") is None:
        raise NvidiaError("nvidia-smi is not installed (not found on PATH)")
    try:
        rows = parse_query_gpu_csv(_run(runner, QUERY_ARGV), header=True)
    except QueryParseError as err:
        raise NvidiaError("%s printed output that could not be read: %s" % (" ".join(QUERY_ARGV), err)) from err
    gpus = []
    for row in rows:
        missing = [f for f in ("index", "uuid", "pci.bus_id") if row.get(f) is None]
        if missing:
            raise NvidiaError("%s: a GPU line lacks %s: %r" % (" ".join(QUERY_ARGV), ", ".join(missing), row))
        gpus.append(
            {
                "index": row["index"],
                "uuid": row["uuid"],
                "pci_address": row["pci.bus_id"],
                "name": row.get("name"),
                "numa_node": None,
                "numa_affinity": None,
                "gpu_numa_id": None,
                "cpu_affinity": None,
                "source": "nvidia-smi",
            }
        )
    gpus.sort(key=lambda g: g["index"])
    if not gpus:
        return gpus
    try:
        topo = parse_topo_m(_run(runner, TOPO_ARGV))
    except NvidiaError as err:
        warnings.append("nvidia-smi topo -m gave no locality, numa_node and cpu_affinity of every GPU are unknown: %s" % err)
        return gpus
    by_index = dict((row["index"], row) for row in topo["gpus"])
    for gpu in gpus:
        row = by_index.pop(gpu["index"], None)
        if row is None:
            warnings.append("%s: nvidia-smi topo -m has no GPU%d row, numa_node and cpu_affinity unknown" % (_gpu_label(gpu), gpu["index"]))
            continue
        gpu["cpu_affinity"] = row["cpu_affinity"]
        gpu["numa_affinity"] = row["numa_affinity"]
        gpu["gpu_numa_id"] = row["gpu_numa_id"]
        gpu["numa_node"] = _numa_node(row["numa_affinity"])
        _locality_warnings(gpu, "nvidia-smi topo -m", warnings)
    for index in sorted(by_index):
        warnings.append("nvidia-smi topo -m lists GPU%d, which --query-gpu did not report" % index)
    return gpus


def _import_pynvml():
    """The pynvml module (from nvidia-ml-py), or raise NvidiaError saying why not."""
    try:
        import pynvml
    except ImportError as err:
        raise NvidiaError("the Python module pynvml (package nvidia-ml-py) cannot be imported: %s" % err) from err
    return pynvml


def _text(value):
    """pynvml returns str (nvidia-ml-py >= 11.515) or bytes (older bindings)."""
    if isinstance(value, bytes):
        value = value.decode("utf-8", "replace")
    return value.replace("\x00", "").strip()


def _words_to_ids(words):
    """Bit ids set in an NVML affinity array (unsigned longs, least significant word first)."""
    bits = 8 * ctypes.sizeof(words._type_) if hasattr(words, "_type_") else 64
    ids = []
    for position, word in enumerate(words):
        value = int(word)
        bit = 0
        while value:
            if value & 1:
                ids.append(position * bits + bit)
            value >>= 1
            bit += 1
    return ids


class _NvmlFailure(Exception):
    """An NVML call failed in a way that makes the whole NVML answer unusable."""


def _gather_nvml(nvml, warnings):
    nvml_error = getattr(nvml, "NVMLError", None)
    if nvml_error is None:
        raise _NvmlFailure("the pynvml module %r has no NVMLError class, it is not nvidia-ml-py" % (getattr(nvml, "__name__", nvml),))
    errors = (nvml_error,)
    mismatch = getattr(nvml, "NVMLLibraryMismatchError", None)
    if isinstance(mismatch, type) and issubclass(mismatch, Exception):
        errors = errors + (mismatch,)
    not_supported = getattr(nvml, "NVML_ERROR_NOT_SUPPORTED", _NVML_ERROR_NOT_SUPPORTED)
    scope_node = getattr(nvml, "NVML_AFFINITY_SCOPE_NODE", _NVML_AFFINITY_SCOPE_NODE)

    def call(what, function, *args):
        try:
            return getattr(nvml, function)(*args)
        except errors as err:
            raise _NvmlFailure("%s: %s failed: %s" % (what, function, err)) from err

    call("NVML", "nvmlInit")
    try:
        gpus = []
        count = call("NVML", "nvmlDeviceGetCount")
        for index in range(int(count)):
            what = "gpu %d" % index
            handle = call(what, "nvmlDeviceGetHandleByIndex", index)
            uuid = _text(call(what, "nvmlDeviceGetUUID", handle))
            pci = call(what, "nvmlDeviceGetPciInfo", handle)
            bus_id = _text(getattr(pci, "busId", b"") or getattr(pci, "busIdLegacy", b""))
            try:
                address = normalize_pci(bus_id)
            except PciAddressError as err:
                raise _NvmlFailure("%s: nvmlDeviceGetPciInfo returned an unusable busId: %s" % (what, err)) from err
            gpu = {
                "index": index,
                "uuid": uuid,
                "pci_address": address,
                "name": _text(call(what, "nvmlDeviceGetName", handle)),
                "numa_node": None,
                "numa_affinity": None,
                "gpu_numa_id": None,
                "cpu_affinity": None,
                "source": "nvml",
            }
            label = _gpu_label(gpu)
            try:
                node = int(nvml.nvmlDeviceGetNumaNodeId(handle))
                gpu["gpu_numa_id"] = node if node >= 0 else None
            except errors as err:
                if getattr(err, "value", None) != not_supported:
                    warnings.append("%s: nvmlDeviceGetNumaNodeId failed, gpu_numa_id unknown: %s" % (label, err))
            except AttributeError:
                pass  # bindings older than the call
            try:
                cpus = format_cpus(_words_to_ids(nvml.nvmlDeviceGetCpuAffinity(handle, CPU_SET_WORDS)))
                if cpus:
                    gpu["cpu_affinity"] = cpus
                else:
                    warnings.append("%s: nvmlDeviceGetCpuAffinity returned no CPUs, cpu_affinity unknown" % label)
            except errors as err:
                warnings.append("%s: nvmlDeviceGetCpuAffinity failed, cpu_affinity unknown: %s" % (label, err))
            memory_affinity = getattr(nvml, "nvmlDeviceGetMemoryAffinity", None)
            if memory_affinity is None:
                warnings.append("%s: these NVML bindings lack nvmlDeviceGetMemoryAffinity, numa_node unknown" % label)
            else:
                try:
                    gpu["numa_affinity"] = format_cpus(_words_to_ids(memory_affinity(handle, NODE_SET_WORDS, scope_node)))
                    gpu["numa_node"] = _numa_node(gpu["numa_affinity"])
                    _locality_warnings(gpu, "NVML memory", warnings)
                except errors as err:
                    warnings.append("%s: nvmlDeviceGetMemoryAffinity failed, numa_node unknown: %s" % (label, err))
            gpus.append(gpu)
        return gpus
    finally:
        try:
            nvml.nvmlShutdown()
        except errors as err:
            warnings.append("NVML: nvmlShutdown failed: %s" % err)


def gather_nvidia(source, runner, nvml=None):
    """GPU identities and locality from NVML or nvidia-smi.

    ``source`` is "auto" (NVML when pynvml imports and nvmlInit works, else
    nvidia-smi when ``runner.find`` finds it, else nothing), "nvml" or
    "nvidia-smi" (that tool only; missing or failing raises NvidiaError).
    ``nvml`` replaces the pynvml module (tests pass a fake). Returns
    ``(gpus, warnings)``: gpus is None when no source was usable (auto only),
    else a list sorted by index of ``{index, uuid, pci_address, name,
    numa_node, numa_affinity, gpu_numa_id, cpu_affinity, source}``.
    """
    if source not in SOURCES:
        raise NvidiaError("GPU source %r is not one of %s" % (source, ", ".join(SOURCES)))
    warnings = []
    if source in ("auto", "nvml"):
        module = nvml
        if module is None:
            try:
                module = _import_pynvml()
            except NvidiaError as err:
                if source == "nvml":
                    raise NvidiaError("GPU source 'nvml': %s" % err) from err
        if module is not None:
            try:
                return _gather_nvml(module, warnings), warnings
            except _NvmlFailure as err:
                if source == "nvml":
                    raise NvidiaError("GPU source 'nvml': %s" % err) from err
                warnings.append("%s; falling back to nvidia-smi" % err)
    if source == "auto" and runner.find("nvidia-smi") is None:
        return None, warnings
    try:
        return _gather_smi(runner, warnings), warnings
    except NvidiaError as err:
        if source == "nvidia-smi":
            raise NvidiaError("GPU source 'nvidia-smi': %s" % err) from err
        warnings.append("nvidia-smi gave no GPUs: %s" % err)
        return None, warnings
