# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The node drawing (SVG, self-contained): NUMA nodes, their cores and CPUs by role, memory, GPUs and NICs, the canary (pure).

Public: `drawing`, `layout`, `ROLES`.

One element per thing, each with ``data-kind`` so a test (or a browser) can count them:
``numa-node`` (one per NUMA node of the facts, CPU-less ones too), ``core`` (one per physical
core), ``cpu`` (one per logical CPU, ``data-role`` reserved | exclusive | shared | offline |
isolated | canary-exclusive | canary-shared), ``memory`` (one bar per node), ``gpu`` and ``nic``
(one per device, inside the node it is local to, or in the ``numa-unknown`` box when the oracle
does not know it), ``canary`` (a label on each node holding the canary's CPUs) and ``legend``.
Every value is escaped (`escape.html_text` / `escape.html_attr`); there is no script, no link
and no external reference.
"""

from __future__ import annotations

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import cpulist as _cpulist
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import escape

ROLES = ("reserved", "canary-exclusive", "canary-shared", "exclusive", "shared", "isolated", "offline")
_LEGEND = {"reserved": "reserved (system, kubelet)", "canary-exclusive": "canary exclusive", "exclusive": "exclusive (other pods)",
           "canary-shared": "canary shared pool", "shared": "shared", "isolated": "isolated (isolcpus)", "offline": "offline"}
CPU_W, CPU_H, GAP, PAD, HEADER, MEM_H, DEV_W, DEV_H = 14, 18, 4, 10, 42, 22, 170, 34
LABEL_CHARS = 27
CORES_PER_ROW = 16
STYLE = ("svg.numa-gate-node{font-family:sans-serif;font-size:11px}"
         ".numa-box{fill:#f7f7f7;stroke:#555}.numa-unknown-box{fill:#fff4e5;stroke:#b36b00;stroke-dasharray:4 2}"
         ".core-box{fill:none;stroke:#999}.cpu{stroke:#333;stroke-width:.5}"
         ".role-reserved{fill:#888}.role-exclusive{fill:#4c72b0}.role-shared{fill:#dde8f3}.role-offline{fill:#fff;stroke-dasharray:2 1}"
         ".role-isolated{fill:#c9b3e6}.role-canary-exclusive{fill:#d62728}.role-canary-shared{fill:#ff9896}"
         ".memory-filled{fill:#8fbc8f}.memory-track{fill:#e8e8e8}.device-box{fill:#fff;stroke:#333}"
         ".gpu .device-box{stroke:#2e7d32;stroke-width:1.5}.nic .device-box{stroke:#1565c0;stroke-width:1.5}"
         ".canary-device .device-box{stroke:#d62728;stroke-width:3}.canary-label{fill:#d62728;font-weight:bold}")


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


def layout(record):
    """Geometry: {"width", "height", "node_width", "boxes": [{"id", "x", "y", "height", "rows", "devices"}], "unknown": box or None}."""
    nodes = record["topology"]["numa_nodes"]
    threads = max([len(_cpulist.parse(core["cpus"])) for node in nodes for core in node["cores"]] or [1])
    core_w = threads * CPU_W + 2 * 2
    widest = max([min(len(node["cores"]), CORES_PER_ROW) for node in nodes] or [1])
    node_w = max(2 * DEV_W + 3 * PAD, widest * (core_w + GAP) + 2 * PAD)
    per_row = 2 if node_w <= 560 else 1
    devices = _devices(record)
    known = set(node["id"] for node in nodes)
    y, x_col, row_h, boxes = 40, 0, 0, []
    dev_per_row = max(1, (node_w - PAD) // (DEV_W + PAD))
    for index, node in enumerate(nodes):
        rows = -(-len(node["cores"]) // CORES_PER_ROW)
        attached = [d for d in devices if d["numa_node"] == node["id"]]
        height = HEADER + rows * (CPU_H + 8) + MEM_H + 8 + (-(-len(attached) // dev_per_row)) * (DEV_H + 6) + PAD
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
        height = HEADER + (-(-len(stray) // dev_per_row)) * (DEV_H + 6) + PAD
        unknown = {"x": PAD, "y": y, "height": height, "devices": stray, "dev_per_row": dev_per_row}
        y += height + PAD
    width = PAD + per_row * (node_w + PAD)
    return {"width": width, "height": y, "node_width": node_w, "boxes": boxes, "unknown": unknown}


def _short(value):
    """What fits in a device box; the whole value is in the box's title and in the page's tables."""
    value = escape.text(value)
    return value if len(value) <= LABEL_CHARS else value[:LABEL_CHARS - 1] + "\u2026"


def _device(entry, x, y):
    device = entry["device"]
    kind = entry["kind"]
    label = device.get("name") or ("index %s" % device.get("index") if kind == "gpu" else "(no name)")
    ident = device.get("uuid") if kind == "gpu" else device.get("driver")
    classes = "%s%s" % (kind, " canary-device" if entry["canary"] else "")
    title = "%s %s %s NUMA node %s (%s)" % (
        kind.upper(), escape.text(device.get("name")), escape.text(device.get("pci_address")), escape.text(device.get("numa_node")),
        escape.text(device.get("numa_source")))
    return ('<g class="%s" data-kind="%s" data-pci="%s" data-numa-node="%s" data-canary="%s"><title>%s</title>'
            '<rect class="device-box" x="%d" y="%d" width="%d" height="%d" rx="3"/>'
            '<text x="%d" y="%d">%s %s</text><text x="%d" y="%d">%s</text></g>') % (
        classes, kind, escape.html_attr(device.get("pci_address")), escape.html_attr(device.get("numa_node")),
        "true" if entry["canary"] else "false", escape.html_text(title), x, y, DEV_W, DEV_H,
        x + 5, y + 14, kind.upper(), escape.html_text(_short(label)), x + 5, y + 28,
        escape.html_text(_short("%s %s" % (escape.text(device.get("pci_address")), escape.text(ident) if ident else ""))))


def _devices_svg(entries, x0, y0, per_row):
    out = []
    for index, entry in enumerate(entries):
        out.append(_device(entry, x0 + (index % per_row) * (DEV_W + PAD), y0 + (index // per_row) * (DEV_H + 6)))
    return out


def _node(node, box, node_w, roles, largest, canary):
    x, y = box["x"], box["y"]
    out = ['<g class="numa-node" data-kind="numa-node" data-numa-node="%s" data-cpus="%s">' % (escape.html_attr(node["id"]), escape.html_attr(node["cpus"])),
           '<rect class="numa-box" x="%d" y="%d" width="%d" height="%d" rx="6"/>' % (x, y, node_w, box["height"]),
           '<text x="%d" y="%d" font-weight="bold">%s</text>' % (x + PAD, y + 18, escape.html_text(
               "NUMA node %s: CPUs %s" % (node["id"], node["cpus"] or "none (memory only)")))]
    for index, core in enumerate(node["cores"]):
        cx = x + PAD + (index % CORES_PER_ROW) * (box["core_w"] + GAP)
        cy = y + HEADER + (index // CORES_PER_ROW) * (CPU_H + 8)
        out.append('<g class="core" data-kind="core" data-core="%s" data-package="%s" data-cpus="%s"><title>%s</title>'
                   '<rect class="core-box" x="%d" y="%d" width="%d" height="%d"/>' % (
                       escape.html_attr(core["core"]), escape.html_attr(core["package"]), escape.html_attr(core["cpus"]),
                       escape.html_text("core %s (package %s): CPUs %s" % (core["core"], core["package"], core["cpus"])),
                       cx, cy, box["core_w"], CPU_H + 4))
        for slot, cpu in enumerate(_cpulist.parse(core["cpus"])):
            role = _role_of(cpu, roles)
            out.append('<rect class="cpu role-%s" data-kind="cpu" data-cpu="%d" data-role="%s" x="%d" y="%d" width="%d" height="%d">'
                       '<title>CPU %d: %s</title></rect>' % (role, cpu, role, cx + 2 + slot * CPU_W, cy + 2, CPU_W - 1, CPU_H, cpu, role))
        out.append("</g>")
    my = y + HEADER + box["rows"] * (CPU_H + 8)
    memory = node.get("memory_bytes")
    filled = 0 if not memory or not largest else max(1, int((node_w - 2 * PAD) * memory / largest))
    huge = ", ".join("%s: %s" % (size, pool.get("total")) for size, pool in sorted((node.get("hugepages") or {}).items()) if pool.get("total"))
    out.append('<g class="memory" data-kind="memory" data-numa-node="%s" data-bytes="%s">'
               '<rect class="memory-track" x="%d" y="%d" width="%d" height="%d"/><rect class="memory-filled" x="%d" y="%d" width="%d" height="%d"/>'
               '<text x="%d" y="%d">%s</text></g>' % (
                   escape.html_attr(node["id"]), escape.html_attr(memory), x + PAD, my, node_w - 2 * PAD, MEM_H - 6, x + PAD, my, filled, MEM_H - 6,
                   x + PAD + 4, my + 12, escape.html_text("memory %s%s" % (escape.size(memory), "; huge pages %s" % huge if huge else ""))))
    here = set(_cpulist.parse(node["cpus"] or ""))
    mine = (roles["canary_exclusive"] | roles["canary_shared"]) & here
    if mine:
        out.append('<text class="canary-label" data-kind="canary" data-pod="%s" data-cpus="%s" x="%d" y="%d" text-anchor="end">%s</text>' % (
            escape.html_attr(canary.get("pod")), escape.html_attr(_cpulist.format(mine)), x + node_w - PAD, y + 18,
            escape.html_text("canary %s: CPUs %s" % (escape.text(canary.get("pod")), _cpulist.format(mine)))))
    out += _devices_svg(box["devices"], x + PAD, my + MEM_H + 8, box["dev_per_row"])
    out.append("</g>")
    return out


def _legend(width):
    out = ['<g class="legend" data-kind="legend">']
    x = PAD
    for role in ROLES:
        out.append('<rect class="cpu role-%s" x="%d" y="12" width="%d" height="%d"/><text x="%d" y="24">%s</text>' % (
            role, x, CPU_W - 1, CPU_H - 4, x + CPU_W + 3, escape.html_text(_LEGEND[role])))
        x += CPU_W + 10 + 6 * len(_LEGEND[role])
    out.append("</g>")
    return out, max(width, x)


def drawing(record):
    """The SVG of one record's node (a string; inline in acceptance.html, valid on its own)."""
    geometry = layout(record)
    roles = _roles(record)
    canary = record.get("canary") or {}
    nodes = record["topology"]["numa_nodes"]
    largest = max([node.get("memory_bytes") or 0 for node in nodes] or [0])
    legend, width = _legend(geometry["width"])
    out = ['<svg xmlns="http://www.w3.org/2000/svg" class="numa-gate-node" data-kind="node-drawing" data-host="%s" '
           'width="%d" height="%d" viewBox="0 0 %d %d" role="img" aria-label="%s">' % (
               escape.html_attr(record.get("host")), width, geometry["height"], width, geometry["height"],
               escape.html_attr("topology of %s" % escape.text(record.get("host")))),
           "<style>%s</style>" % STYLE]
    out += legend
    for node, box in zip(nodes, geometry["boxes"]):
        out += _node(node, box, geometry["node_width"], roles, largest, canary)
    unknown = geometry["unknown"]
    if unknown:
        out.append('<g class="numa-unknown" data-kind="numa-unknown"><rect class="numa-unknown-box" x="%d" y="%d" width="%d" height="%d" rx="6"/>'
                   '<text x="%d" y="%d" font-weight="bold">NUMA node unknown (not agreement with any node)</text>' % (
                       unknown["x"], unknown["y"], geometry["node_width"], unknown["height"], unknown["x"] + PAD, unknown["y"] + 18))
        out += _devices_svg(unknown["devices"], unknown["x"] + PAD, unknown["y"] + HEADER, unknown["dev_per_row"])
        out.append("</g>")
    out.append("</svg>")
    return "".join(out)
