# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The node drawing (SVG, self-contained): NUMA nodes, their cores and CPUs by role, memory, GPUs and NICs, the canary (pure).

Public: `drawing`, `layout`, `ROLES`, `fit`.

One element per thing, each with ``data-kind`` so a test (or a browser) can count them:
``numa-node`` (one per NUMA node of the facts, CPU-less ones too), ``core`` (one per physical
core), ``cpu`` (one per logical CPU, ``data-role`` reserved | exclusive | shared | offline |
isolated | canary-exclusive | canary-shared) with its number (``cpu-number``), ``memory`` (one bar
per node) with the plan's reserved memory on it (``reserved-memory``, when the record holds a
plan), ``gpu`` and ``nic`` (one per device, inside the node it is local to, or in the
``numa-unknown`` box when the oracle does not know it), ``gpu-partition`` (one per partition of a
partitioned GPU, an AMD MI300 in CPX mode: inside its GPU's box, numbered by partition), ``canary`` (a line of its own under the
label of each node holding the canary's CPUs) and ``legend``.

The drawing scales: a viewBox and no fixed width (it shrinks with the page, never wider than its
own size), and the legend wraps to the drawing's width, so it is whole at any page width. A label
is cut to the width it has (`fit`), the whole text in its ``<title>``: no text runs into another.
Every value is escaped (`escape.html_text` / `escape.html_attr`); there is no script, no link and
no external reference.
"""

from __future__ import annotations

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import cpulist as _cpulist
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import escape

ROLES = ("reserved", "canary-exclusive", "canary-shared", "exclusive", "shared", "isolated", "offline")
_LEGEND = {"reserved": "reserved (system, kubelet)", "canary-exclusive": "canary exclusive", "exclusive": "exclusive (other pods)",
           "canary-shared": "canary shared pool", "shared": "shared", "isolated": "isolated (isolcpus)", "offline": "offline"}
# The memory swatches of the legend, after the CPU roles: (CSS class, words).
_MEMORY_LEGEND = (("memory-filled", "NUMA node memory"), ("memory-reserved", "reserved memory (plan)"))
CPU_W, CPU_H, GAP, PAD, HEADER, MEM_H, DEV_W, DEV_H = 22, 18, 4, 10, 46, 34, 170, 34
# A partition's square inside its GPU's box (8 to a row in DEV_W), under a third line that names the mode.
PART_W, PART_H, PART_GAP, PART_TOP = 18, 14, 2, 48
PARTS_PER_ROW = (DEV_W - 10 + PART_GAP) // (PART_W + PART_GAP)
LEGEND_ROW = 18
# Wide enough for the legend in two rows, even for a single small node.
MIN_WIDTH = 760
LABEL_CHARS = 25
CORES_PER_ROW = 16
# What one character takes at most at 11px (sans-serif, bold for the node labels): labels are cut to fit, never overflow.
CHAR_PX, BOLD_CHAR_PX = 6.4, 7.0
STYLE = ("svg.numa-gate-node{font-family:sans-serif;font-size:11px}"
         ".numa-box{fill:#f7f7f7;stroke:#555}.numa-unknown-box{fill:#fff4e5;stroke:#b36b00;stroke-dasharray:4 2}"
         ".core-box{fill:none;stroke:#999}.cpu{stroke:#333;stroke-width:.5}"
         ".cpu-number{font-size:8px;fill:#111;pointer-events:none}.cpu-number.on-dark{fill:#fff}"
         ".role-reserved{fill:#888}.role-exclusive{fill:#4c72b0}.role-shared{fill:#dde8f3}.role-offline{fill:#fff;stroke-dasharray:2 1}"
         ".role-isolated{fill:#c9b3e6}.role-canary-exclusive{fill:#d62728}.role-canary-shared{fill:#ff9896}"
         ".memory-filled{fill:#8fbc8f}.memory-track{fill:#e8e8e8}.memory-reserved{fill:#37474f}.device-box{fill:#fff;stroke:#333}"
         ".gpu .device-box{stroke:#2e7d32;stroke-width:1.5}.nic .device-box{stroke:#1565c0;stroke-width:1.5}"
         ".gpu-partition rect{fill:#e8f5e9;stroke:#2e7d32;stroke-width:.75}.partition-number{font-size:8px;fill:#111;pointer-events:none}"
         ".canary-device .device-box{stroke:#d62728;stroke-width:3}.canary-label{fill:#d62728;font-weight:bold}")
_DARK = ("reserved", "exclusive", "canary-exclusive")


def fit(value, width, char_px=CHAR_PX):
    """value cut (with an ellipsis) to what ``width`` pixels hold at ``char_px`` a character."""
    value = escape.text(value)
    room = max(1, int(width / char_px + 1e-9))
    return value if len(value) <= room else value[:room - 1] + "\u2026"


def _role_of(cpu, roles):
    for role, key in (("offline", "offline"), ("reserved", "reserved"), ("canary-exclusive", "canary_exclusive"),
                      ("canary-shared", "canary_shared"), ("exclusive", "exclusive"), ("isolated", "isolated")):
        if cpu in roles[key]:
            return role
    return "shared"


def _roles(record):
    source = record.get("cpu_roles") or {}
    return {key: set(_cpulist.parse(source.get(key) or "")) for key in ("offline", "reserved", "canary_exclusive", "exclusive", "canary_shared", "isolated")}


def _devices(record):
    canary = set((record.get("canary") or {}).get("devices") or [])
    found = []
    for kind, entries in (("gpu", record["devices"]["gpus"]), ("nic", record["devices"]["nics"])):
        for device in entries:
            ident = device.get("uuid") if kind == "gpu" else device.get("name")
            found.append({"kind": kind, "device": device, "numa_node": device.get("numa_node"),
                          "canary": device.get("pci_address") in canary or (ident is not None and ident in canary)})
    return found


def _partitions(entry):
    return (entry["device"].get("partitions") or []) if entry["kind"] == "gpu" else []


def device_height(entry):
    """A device box's height: two lines, and for a partitioned GPU a third (its mode) and its partitions' rows."""
    count = len(_partitions(entry))
    if not count:
        return DEV_H
    return PART_TOP + (-(-count // PARTS_PER_ROW)) * (PART_H + PART_GAP) + 4


def _rows_height(entries, per_row):
    """Rows of device boxes, each as tall as the tallest device of the group (so boxes never overlap)."""
    if not entries:
        return 0
    return (-(-len(entries) // per_row)) * (max(device_height(entry) for entry in entries) + 6)


def _legend_entries():
    return [("cpu role-%s" % role, _LEGEND[role]) for role in ROLES] + list(_MEMORY_LEGEND)


def _legend_rows(width):
    """[(css, words, x, row)]: the legend's entries wrapped to ``width``."""
    placed, x, row = [], PAD, 0
    for css, words in _legend_entries():
        wide = CPU_W - 1 + 4 + int(len(words) * CHAR_PX) + 18
        if x > PAD and x + wide > width - PAD:
            x, row = PAD, row + 1
        placed.append((css, words, x, row))
        x += wide
    return placed


def layout(record):
    """Geometry: {"width", "height", "node_width", "legend", "boxes": [{"id", "x", "y", "height", "rows", "devices"}], "unknown": box or None}."""
    nodes = record["topology"]["numa_nodes"]
    threads = max([len(_cpulist.parse(core["cpus"])) for node in nodes for core in node["cores"]] or [1])
    core_w = threads * CPU_W + 2 * 2
    widest = max([min(len(node["cores"]), CORES_PER_ROW) for node in nodes] or [1])
    node_w = max(2 * DEV_W + 3 * PAD, widest * (core_w + GAP) + 2 * PAD)
    per_row = max(1, min(2 if node_w <= 560 else 1, len(nodes)))
    width = max(MIN_WIDTH, PAD + per_row * (node_w + PAD))
    legend = _legend_rows(width)
    devices = _devices(record)
    known = set(node["id"] for node in nodes)
    y, x_col, row_h, boxes = 8 + (legend[-1][3] + 1) * LEGEND_ROW + PAD, 0, 0, []
    dev_per_row = max(1, (node_w - PAD) // (DEV_W + PAD))
    for index, node in enumerate(nodes):
        rows = -(-len(node["cores"]) // CORES_PER_ROW)
        attached = [d for d in devices if d["numa_node"] == node["id"]]
        height = HEADER + rows * (CPU_H + 8) + MEM_H + 8 + _rows_height(attached, dev_per_row) + PAD
        x_col = index % per_row
        if x_col == 0 and index:
            y += row_h + PAD
            row_h = 0
        boxes.append({"id": node["id"], "x": PAD + x_col * (node_w + PAD), "y": y, "height": height, "rows": rows, "devices": attached,
                      "core_w": core_w, "dev_per_row": dev_per_row})
        row_h = max(row_h, height)
    y += row_h + PAD
    stray = [d for d in devices if d["numa_node"] not in known]
    unknown = None
    if stray:
        height = HEADER + _rows_height(stray, dev_per_row) + PAD
        unknown = {"x": PAD, "y": y, "height": height, "devices": stray, "dev_per_row": dev_per_row}
        y += height + PAD
    return {"width": width, "height": y, "node_width": node_w, "legend": legend, "boxes": boxes, "unknown": unknown}


def _label(x, y, words, width, css="", kind=None, attrs="", bold=False):
    """A text cut to ``width``; when cut, inside a group whose title holds the whole text."""
    shown = fit(words, width, BOLD_CHAR_PX if bold else CHAR_PX)
    text = '<text%s%s%s x="%d" y="%d"%s>%s</text>' % (
        ' class="%s"' % css if css else "", ' data-kind="%s"' % kind if kind else "", attrs, x, y,
        ' font-weight="bold"' if bold else "", escape.html_text(shown))
    return text if shown == escape.text(words) else "<g><title>%s</title>%s</g>" % (escape.html_text(words), text)


def _identities(device):
    """A GPU's vendor identities and partition mode, for its title ('' for a GPU with none, as NVIDIA's UUID is its identity)."""
    found = device.get("identities") or {}
    words = ", ".join("%s %s" % (name, escape.text(found[key])) for key, name in _IDENTITY_WORDS if found.get(key) is not None)
    mode = device.get("partition_mode")
    if mode:
        words += "; partition mode compute %s, memory %s" % (escape.text(mode.get("compute") or "unknown"), escape.text(mode.get("memory") or "unknown"))
    if device.get("partitions"):
        words += "; %d partitions" % len(device["partitions"])
    return ("; %s %s" % (escape.text(device.get("vendor")), words.lstrip("; "))) if words else ""


# The record's GPU identities (_record.record), in the device table's order.
_IDENTITY_WORDS = (("kfd_node", "KFD node"), ("unique_id", "KFD unique_id"), ("device_id", "device"), ("hive_id", "XGMI hive"))


def _partition_boxes(device, x, y):
    """Each partition's square inside its GPU's box, under the line that names the mode."""
    parts = device.get("partitions") or []
    mode = device.get("partition_mode") or {}
    said = " ".join(escape.text(value) for value in (mode.get("compute"), mode.get("memory")) if value) or "partitioned"
    out = ['<text x="%d" y="%d">%s</text>' % (x + 5, y + 42, escape.html_text(fit("%s: %d partitions" % (said, len(parts)), DEV_W - 10)))]
    for slot, part in enumerate(parts):
        px = x + 5 + (slot % PARTS_PER_ROW) * (PART_W + PART_GAP)
        py = y + PART_TOP + (slot // PARTS_PER_ROW) * (PART_H + PART_GAP)
        title = "partition %s of GPU %s (KFD node %s, render minor %s)" % (
            escape.text(part.get("id")), escape.text(device.get("pci_address")), escape.text(part.get("kfd_node")), escape.text(part.get("render_minor")))
        out.append('<g class="gpu-partition" data-kind="gpu-partition" data-partition="%s" data-gpu-pci="%s" data-kfd-node="%s"><title>%s</title>'
                   '<rect x="%d" y="%d" width="%d" height="%d"/>'
                   '<text class="partition-number" x="%d" y="%d" text-anchor="middle">%s</text></g>' % (
                       escape.html_attr(part.get("id")), escape.html_attr(device.get("pci_address")), escape.html_attr(part.get("kfd_node")),
                       escape.html_text(title), px, py, PART_W, PART_H, px + PART_W // 2, py + PART_H - 4, escape.html_text(part.get("id"))))
    return out


def _device(entry, x, y):
    """One device's box: its kind and name, its PCI address and UUID or driver, a GPU's partitions inside it (one call per GPU and NIC)."""
    device = entry["device"]
    kind = entry["kind"]
    label = device.get("name") or ("index %s" % device.get("index") if kind == "gpu" else "(no name)")
    ident = device.get("uuid") if kind == "gpu" else device.get("driver")
    classes = "%s%s" % (kind, " canary-device" if entry["canary"] else "")
    title = "%s %s %s NUMA node %s (%s)%s" % (
        kind.upper(), escape.text(device.get("name")), escape.text(device.get("pci_address")), escape.text(device.get("numa_node")),
        escape.text(device.get("numa_source")), _identities(device) if kind == "gpu" else "")
    head = '<g class="%s" data-kind="%s" data-pci="%s" data-numa-node="%s" data-canary="%s"%s><title>%s</title>' % (
        classes, kind, escape.html_attr(device.get("pci_address")), escape.html_attr(device.get("numa_node")),
        "true" if entry["canary"] else "false",
        ' data-vendor="%s"' % escape.html_attr(device.get("vendor")) if kind == "gpu" and device.get("vendor") else "", escape.html_text(title))
    parts = [head,
             '<rect class="device-box" x="%d" y="%d" width="%d" height="%d" rx="3"/>' % (x, y, DEV_W, device_height(entry)),
             '<text x="%d" y="%d">%s %s</text>' % (x + 5, y + 14, kind.upper(), escape.html_text(fit(label, DEV_W - 10 - 4 * CHAR_PX))),
             '<text x="%d" y="%d">%s</text>' % (x + 5, y + 28, escape.html_text(fit("%s %s" % (
                 escape.text(device.get("pci_address")), escape.text(ident) if ident else ""), DEV_W - 10)))]
    if _partitions(entry):
        parts += _partition_boxes(device, x, y)
    parts.append("</g>")
    return "".join(parts)


def _devices_svg(entries, x0, y0, per_row):
    out = []
    row_h = max([device_height(entry) for entry in entries] or [DEV_H]) + 6
    for index, entry in enumerate(entries):
        out.append(_device(entry, x0 + (index % per_row) * (DEV_W + PAD), y0 + (index // per_row) * row_h))
    return out


def _cpus(core, cx, cy, roles):
    out = []
    for slot, cpu in enumerate(_cpulist.parse(core["cpus"])):
        role = _role_of(cpu, roles)
        x = cx + 2 + slot * CPU_W
        out.append('<rect class="cpu role-%s" data-kind="cpu" data-cpu="%d" data-role="%s" x="%d" y="%d" width="%d" height="%d">'
                   '<title>CPU %d: %s</title></rect>' % (role, cpu, role, x, cy + 2, CPU_W - 1, CPU_H, cpu, role))
        out.append('<text class="cpu-number%s" data-kind="cpu-number" x="%d" y="%d" text-anchor="middle">%d</text>' % (
            " on-dark" if role in _DARK else "", x + (CPU_W - 1) // 2, cy + 2 + CPU_H - 6, cpu))
    return out


def _memory(node, x, my, width, largest, reserved):
    """The node's memory bar, the plan's reserved memory on it, and one line under it that says both."""
    memory = node.get("memory_bytes")
    filled = 0 if not memory or not largest else max(1, int(width * memory / largest))
    huge = ", ".join("%s: %s" % (size, pool.get("total")) for size, pool in sorted((node.get("hugepages") or {}).items()) if pool.get("total"))
    out = ['<g class="memory" data-kind="memory" data-numa-node="%s" data-bytes="%s">' % (escape.html_attr(node["id"]), escape.html_attr(memory)),
           '<rect class="memory-track" x="%d" y="%d" width="%d" height="10"/><rect class="memory-filled" x="%d" y="%d" width="%d" height="10"/>' % (
               x, my, width, x, my, filled)]
    if reserved is None:
        said = "no plan in this record"
    else:
        amount = reserved.get(str(node["id"]), 0)
        wide = 0 if not amount or not memory else max(2, int(filled * amount / memory))
        out.append('<rect class="memory-reserved" data-kind="reserved-memory" data-numa-node="%s" data-bytes="%d" x="%d" y="%d" width="%d" height="10">'
                   '<title>%s</title></rect>' % (escape.html_attr(node["id"]), amount, x, my, wide,
                                                 escape.html_text("reserved memory (plan): %s" % escape.size(amount))))
        said = "reserved %s (plan)" % _short_size(amount)
    words = "memory %s; %s%s" % (_short_size(memory), said, "; huge pages %s" % huge if huge else "")
    out.append(_label(x, my + 24, words, width))
    out.append("</g>")
    return out


def _short_size(value):
    """4.34 GiB; the exact bytes are in the tables and in data-bytes."""
    return escape.size(value).split(" (")[0]


def _node(node, box, node_w, roles, largest, canary, reserved):
    x, y = box["x"], box["y"]
    inner = node_w - 2 * PAD
    out = ['<g class="numa-node" data-kind="numa-node" data-numa-node="%s" data-cpus="%s">' % (escape.html_attr(node["id"]), escape.html_attr(node["cpus"])),
           '<rect class="numa-box" x="%d" y="%d" width="%d" height="%d" rx="6"/>' % (x, y, node_w, box["height"]),
           _label(x + PAD, y + 18, "NUMA node %s: CPUs %s" % (node["id"], node["cpus"] or "none (memory only)"), inner, bold=True)]
    here = set(_cpulist.parse(node["cpus"] or ""))
    mine = (roles["canary_exclusive"] | roles["canary_shared"]) & here
    if mine:
        # On a line of its own under the node's label: the two never share a line.
        out.append(_label(x + PAD, y + 35, "canary %s: CPUs %s" % (escape.text(canary.get("pod")), _cpulist.format(mine)), inner,
                          css="canary-label", kind="canary", bold=True, attrs=' data-pod="%s" data-cpus="%s"' % (
                              escape.html_attr(canary.get("pod")), escape.html_attr(_cpulist.format(mine)))))
    for index, core in enumerate(node["cores"]):
        cx = x + PAD + (index % CORES_PER_ROW) * (box["core_w"] + GAP)
        cy = y + HEADER + (index // CORES_PER_ROW) * (CPU_H + 8)
        out.append('<g class="core" data-kind="core" data-core="%s" data-package="%s" data-cpus="%s"><title>%s</title>'
                   '<rect class="core-box" x="%d" y="%d" width="%d" height="%d"/>' % (
                       escape.html_attr(core["core"]), escape.html_attr(core["package"]), escape.html_attr(core["cpus"]),
                       escape.html_text("core %s (package %s): CPUs %s" % (core["core"], core["package"], core["cpus"])),
                       cx, cy, box["core_w"], CPU_H + 4))
        out += _cpus(core, cx, cy, roles)
        out.append("</g>")
    my = y + HEADER + box["rows"] * (CPU_H + 8)
    out += _memory(node, x + PAD, my, inner, largest, reserved)
    out += _devices_svg(box["devices"], x + PAD, my + MEM_H + 8, box["dev_per_row"])
    out.append("</g>")
    return out


def _legend(placed):
    out = ['<g class="legend" data-kind="legend">']
    for css, words, x, row in placed:
        top = 8 + row * LEGEND_ROW
        out.append('<rect class="%s" x="%d" y="%d" width="%d" height="%d"/><text x="%d" y="%d">%s</text>' % (
            css, x, top, CPU_W - 1, CPU_H - 6, x + CPU_W + 3, top + 10, escape.html_text(words)))
    out.append("</g>")
    return out


def drawing(record):
    """The SVG of one record's node (a string; inline in acceptance.html, valid on its own)."""
    geometry = layout(record)
    roles = _roles(record)
    canary = record.get("canary") or {}
    nodes = record["topology"]["numa_nodes"]
    largest = max([node.get("memory_bytes") or 0 for node in nodes] or [0])
    reserved = ((record.get("reservation") or {}).get("reserved") or {}).get("memory_bytes") if record.get("reservation") else None
    width, height = geometry["width"], geometry["height"]
    # No fixed width: the viewBox scales it down with the page; max-width keeps it at its own size on a wide one.
    out = ['<svg xmlns="http://www.w3.org/2000/svg" class="numa-gate-node" data-kind="node-drawing" data-host="%s" '
           'viewBox="0 0 %d %d" style="width:100%%;max-width:%dpx;height:auto" preserveAspectRatio="xMinYMin meet" role="img" aria-label="%s">' % (
               escape.html_attr(record.get("host")), width, height, width, escape.html_attr("topology of %s" % escape.text(record.get("host")))),
           "<style>%s</style>" % STYLE]
    out += _legend(geometry["legend"])
    for node, box in zip(nodes, geometry["boxes"]):
        out += _node(node, box, geometry["node_width"], roles, largest, canary, reserved)
    unknown = geometry["unknown"]
    if unknown:
        out.append('<g class="numa-unknown" data-kind="numa-unknown"><rect class="numa-unknown-box" x="%d" y="%d" width="%d" height="%d" rx="6"/>' % (
            unknown["x"], unknown["y"], geometry["node_width"], unknown["height"]))
        out.append(_label(unknown["x"] + PAD, unknown["y"] + 18, "NUMA node unknown (not agreement with any node)", geometry["node_width"] - 2 * PAD,
                          bold=True))
        out += _devices_svg(unknown["devices"], unknown["x"] + PAD, unknown["y"] + HEADER, unknown["dev_per_row"])
        out.append("</g>")
    out.append("</svg>")
    return "".join(out)
