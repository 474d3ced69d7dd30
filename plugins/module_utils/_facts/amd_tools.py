# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""AMD vendor tools against sysfs: amd-smi, else rocm-smi, each value kept with its source.

Public: `AMD_SMI_STATIC`, `AMD_SMI_LIST`, `AMD_SMI_TOPOLOGY`, `AMD_SMI_VERSION`, `ROCM_SMI_HW`, `ROCM_SMI_BUS`, `ROCM_SMI_TOPO`,
`ROCM_SMI_PRODUCT`, `tool_records`, `apply_tools`.

The tools run once each through the injected runner (amd-smi with ``--json``, then without it where
that is not answered in a known format). A tool's logical GPU is joined to a sysfs GPU
by its KFD node when it prints one, else by its PCI address; an address that is no amdgpu device
in sysfs (rocm-smi before 6.1.1 printed the partition number in the function digit) is a finding
on the GPU of that slot, and its values are not used. Where a tool and sysfs disagree, sysfs is
kept and the disagreement is a finding; a tool whose output does not parse is a warning, and the
facts come from sysfs alone. A "driver version" a tool prints is never the driver's version: that
is ``sys/module/amdgpu/version`` (see `amd`).
"""

from __future__ import annotations

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts import amd as _amd
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._amd import amd_smi
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._amd import rocm_smi

AMD_SMI_STATIC = ("amd-smi", "static", "--json")
AMD_SMI_LIST = ("amd-smi", "list", "--json")
ROCM_SMI_HW = ("rocm-smi", "--showhw")
ROCM_SMI_BUS = ("rocm-smi", "--showbus")
ROCM_SMI_TOPO = ("rocm-smi", "--showtopo")
ROCM_SMI_PRODUCT = ("rocm-smi", "--showproduct")
AMD_SMI_TOPOLOGY = ("amd-smi", "topology", "-t", "--json")
AMD_SMI_VERSION = ("amd-smi", "version")


def _run(runner, argv, parse):
    """(``parse(stdout)``, None), or (None, why not) naming the command (failed, or printed an unknown format)."""
    rc, out, err = runner.run(list(argv))
    command = " ".join(argv)
    if rc != 0:
        reason = ((err or "").strip() or (out or "").strip() or "no output").splitlines()[0][:200]
        return None, "%s failed with rc %s: %s" % (command, rc, reason)
    try:
        return parse(out or ""), None
    except (amd_smi.AmdSmiFormatError, rocm_smi.RocmSmiFormatError) as exc:
        return None, "%s printed output in an unknown format (%s)" % (command, exc)


def _ask(runner, notes, commands, parse):
    """The first of ``commands`` that answers in a known format; else None, with one warning naming each try."""
    failures = []
    for argv in commands:
        value, failure = _run(runner, argv, parse)
        if failure is None:
            return value
        failures.append(failure)
    notes.add("%s; its values are not used, AMD GPU facts from sysfs without it" % "; ".join(failures))
    return None


def _amd_smi_records(runner, notes):
    # JSON first; the text form where this amd-smi has no --json (or answers it with text).
    static = _ask(runner, notes, (AMD_SMI_STATIC, AMD_SMI_STATIC[:-1]), amd_smi.parse_gpus)
    listing = _ask(runner, notes, (AMD_SMI_LIST, AMD_SMI_LIST[:-1]), amd_smi.parse_gpus)
    topology = _ask(runner, notes, (AMD_SMI_TOPOLOGY, AMD_SMI_TOPOLOGY[:-1]), amd_smi.parse_topology) or {}
    versions = _ask(runner, notes, (AMD_SMI_VERSION,), amd_smi.parse_version)
    if static is None and listing is None:
        return [], {}
    links = dict((pair, kind.lower()) for pair, kind in topology.get("LINK TYPE", {}).items() if kind not in ("SELF", "N/A"))
    return amd_smi.gpu_records(static or [], listing or []), {"links": links, "versions": versions}


def _rocm_smi_records(runner, notes):
    hardware = _ask(runner, notes, (ROCM_SMI_HW,), rocm_smi.parse_showhw) or []
    bus = _ask(runner, notes, (ROCM_SMI_BUS,), rocm_smi.parse_showbus) or {}
    numa = _ask(runner, notes, (ROCM_SMI_TOPO,), rocm_smi.parse_numa) or {}
    products = _ask(runner, notes, (ROCM_SMI_PRODUCT,), rocm_smi.parse_showproduct) or {}
    rows = dict((row["gpu"], row) for row in hardware)
    records = []
    for index in sorted(set(rows) | set(bus) | set(numa) | set(products)):
        row, topo, product = rows.get(index, {}), numa.get(index, {}), products.get(index, {})
        kfd_node = row.get("kfd_node") if row.get("kfd_node") is not None else product.get("kfd_node")
        records.append({
            "index": index, "kfd_node": kfd_node, "partition_id": row.get("partition_id"),
            # --showbus is the address rocm-smi reports; --showhw's BUS stands in where --showbus did not answer.
            "bdf": bus.get(index, row.get("bus")), "uuid": None, "name": product.get("name"),
            "numa_node": topo.get("numa_node"), "numa_affinity": topo.get("numa_affinity"), "cpus": None,
            "compute_partition": None, "memory_partition": None, "driver_version": None,
        })
    return records, {}


def tool_records(runner, notes):
    """(tool name, records, {"links", "versions"}) from amd-smi when installed, else rocm-smi, else (None, [], {})."""
    if runner.find("amd-smi") is not None:
        return ("amd-smi",) + _amd_smi_records(runner, notes)
    if runner.find("rocm-smi") is not None:
        return ("rocm-smi",) + _rocm_smi_records(runner, notes)
    return None, [], {}


def _join(tool, records, gpus, root, pci):
    """{gpu address: [records]} and [(gpu or None, finding)] for records naming no amdgpu device."""
    by_address = dict((gpu["pci_address"], gpu) for gpu in gpus)
    by_kfd = dict((part["kfd_node"], gpu) for gpu in gpus for part in gpu["amd"]["partitions"])
    joined, stray = {}, []
    for record in records:
        label = "%s GPU[%s]" % (tool, record["index"])
        bdf = (record["bdf"] or "").lower() or None
        gpu = by_kfd.get(record["kfd_node"]) if record["kfd_node"] is not None else None
        if gpu is not None:
            if bdf is not None and bdf != gpu["pci_address"]:
                gpu["findings"].append("%s (KFD node %d) is at PCI %s, which %s prints as %s" % (label, record["kfd_node"], gpu["pci_address"], tool, bdf))
            joined.setdefault(gpu["pci_address"], []).append(record)
        elif bdf in by_address:
            joined.setdefault(bdf, []).append(record)
        elif bdf is None:
            stray.append((None, "%s: printed with no PCI address and no KFD node; its values are not used" % label))
        else:
            owner = next((gpu for gpu in gpus if bdf and gpu["pci_address"][:-1] == bdf[:-1]), None)
            what = "no PCI device" if bdf not in pci else "a PCI device bound to %s" % (_amd.bound_driver(root, pci[bdf]) or "no driver")
            stray.append((owner, "%s is printed at PCI %s, %s in sysfs, not a GPU bound to amdgpu; its values are not used"
                                 " (rocm-smi before 6.1.1 printed the partition number in the PCI function digit)" % (label, bdf, what)))
    return joined, stray


def _shown(value):
    return "unknown" if value is None else value


def _driver_note(notes, tool, gpus):
    """One warning for the driver version a tool prints: never the driver's, which is sys/module/amdgpu/version's."""
    printed = set(gpu["amd"]["tool"]["driver_version"] for gpu in gpus if gpu["amd"]["tool"] is not None)
    printed.update((gpu["amd"]["tool"]["versions"] or {}).get("amdgpu version") for gpu in gpus if gpu["amd"]["tool"] is not None)
    printed = sorted(version for version in printed if version is not None)
    if not printed:
        return
    driver = gpus[0]["amd"]["driver"]
    shown = ", ".join(repr(version[:60]) for version in printed)
    if driver["in_kernel"]:
        notes.add("%s prints driver version %s; without sys/module/amdgpu/version the driver is the in-kernel amdgpu, version unknown "
                  "(what the tool prints is the kernel's)" % (tool, shown))
    elif driver["version"] is not None and printed != [driver["version"]]:
        notes.add("sys/module/amdgpu/version is %s, %s prints driver version %s; kept sysfs" % (driver["version"], tool, shown))


def _one(values):
    known = set(value for value in values if value is not None)
    return known.pop() if len(known) == 1 else None


def _apply(tool, gpu, records):
    amd, findings = gpu["amd"], gpu["findings"]
    labels = ", ".join("GPU[%s]" % record["index"] for record in records)
    for record in records:
        if None not in (record["numa_node"], record["numa_affinity"]) and record["numa_node"] != record["numa_affinity"]:
            findings.append("%s GPU[%s] prints NUMA node %d and NUMA affinity %d, which disagree (sysfs numa_node: %s)"
                            % (tool, record["index"], record["numa_node"], record["numa_affinity"], _shown(gpu["sysfs_numa_node"])))
    numa_values = set(v for record in records for v in (record["numa_node"], record["numa_affinity"]) if v is not None)
    if len(numa_values) > 1:
        findings.append("%s prints NUMA nodes %s for %s; its NUMA node is taken as unknown (sysfs numa_node: %s)"
                        % (tool, ", ".join(str(v) for v in sorted(numa_values)), labels, _shown(gpu["sysfs_numa_node"])))
    numa_node = numa_values.pop() if len(numa_values) == 1 else None
    cpus = _one(record["cpus"] for record in records)
    tool_view = {"source": tool, "gpus": [record["index"] for record in records], "numa_node": numa_node, "cpus": cpus}
    for key in ("uuid", "name", "compute_partition", "memory_partition", "driver_version"):
        tool_view[key] = _one(record[key] for record in records)
    amd["tool"] = tool_view
    gpu["vendor_affinity"] = {"source": tool, "numa_node": numa_node, "cpus": cpus, "gpu_numa_id": None}
    if gpu["name"] is None:
        gpu["name"] = tool_view["name"]
    for key in ("compute_partition", "memory_partition"):
        if tool_view[key] is not None and amd[key] is not None and tool_view[key].upper() != amd[key]:
            findings.append("sysfs current_%s is %s, %s prints %s; kept sysfs" % (key, amd[key], tool, tool_view[key]))
    if tool_view["uuid"] is not None and gpu["uuid"] is not None and tool_view["uuid"].lower() != gpu["uuid"]:
        findings.append("the UUID from KFD unique_id is %s, %s prints %s; kept KFD's" % (gpu["uuid"], tool, tool_view["uuid"]))
    elif gpu["uuid"] is None:
        gpu["uuid"] = tool_view["uuid"].lower() if tool_view["uuid"] else None
    if gpu["local_cpus"] is not None and cpus is not None and gpu["local_cpus"] != cpus:
        findings.append("sysfs local_cpulist is %s, %s CPU affinity is %s; kept sysfs" % (gpu["local_cpus"], tool, cpus))


def _links(tool, gpu, links, addresses):
    """The tool's GPU links of ``gpu`` (to other AMD GPUs), and a finding where KFD's link type differs."""
    found = []
    kfd = dict((link["pci_address"], link["type"]) for link in gpu["amd"]["links"] if link["to"] == "gpu")
    for (source, target), kind in sorted(links.items()):
        if source != gpu["pci_address"] or target not in addresses:
            continue
        found.append({"pci_address": target, "type": kind})
        if target in kfd and kfd[target] != kind:
            gpu["findings"].append("KFD links it to %s over %s, %s prints %s; kept KFD's" % (target, kfd[target], tool, kind))
    return found


def apply_tools(root, notes, gpus, pci, runner):
    """Ask amd-smi (else rocm-smi) about the AMD GPU entries ``gpus`` and keep what it says beside sysfs."""
    tool, records, extra = tool_records(runner, notes)
    if not records:
        return
    joined, stray = _join(tool, records, gpus, root, pci)
    for owner, finding in stray:
        if owner is None:
            notes.add(finding)
        else:
            owner["findings"].append(finding)
    for gpu in gpus:
        before = len(gpu["findings"])
        if gpu["pci_address"] in joined:
            _apply(tool, gpu, joined[gpu["pci_address"]])
            gpu["amd"]["tool"]["links"] = _links(tool, gpu, extra.get("links") or {}, set(g["pci_address"] for g in gpus))
            gpu["amd"]["tool"]["versions"] = extra.get("versions")
        for finding in gpu["findings"][before:]:
            notes.add("gpu %s: %s" % (gpu["pci_address"], finding))
    for owner, finding in stray:
        if owner is not None:
            notes.add("gpu %s: %s" % (owner["pci_address"], finding))
    _driver_note(notes, tool, gpus)
