# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""AMD GPUs from sysfs: the PCI devices bound to amdgpu, their KFD nodes, partitions, links and driver.

Public: `AMD_DRIVER`, `COMPUTE_PARTITIONS`, `MEMORY_PARTITIONS`, `bound_driver`, `amd_details`, `uuid_of`.

A GPU is a PCI device bound to ``amdgpu`` whatever its class (Instinct MI300 parts are class
0x1200, processing accelerators). Each AMD GPU entry gets an ``amd`` dict (KFD node, unique_id,
hive, partition mode and partitions, CPU and GPU links, driver) and a ``findings`` list: where two
sysfs sources disagree both are kept and the disagreement is a finding, never resolved silently.
The driver version is ``sys/module/amdgpu/version``, which only AMD's DKMS driver writes; without
it the driver is the in-kernel one, version unknown (a tool's "driver version" is then the kernel's).
"""

from __future__ import annotations

import os

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._amd import kfd as amd_kfd
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts import links
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts import sysfs

AMD_DRIVER = "amdgpu"
_VERSION_FILE = "sys/module/amdgpu/version"
# current_compute_partition values and the number of partitions each makes (CPX: one per XCD, which varies by part).
COMPUTE_PARTITIONS = {"SPX": 1, "DPX": 2, "TPX": 3, "QPX": 4, "CPX": None}
MEMORY_PARTITIONS = ("NPS1", "NPS2", "NPS4", "NPS8")


def bound_driver(root, directory):
    """The name of the driver a PCI device is bound to (the ``driver`` link's own text), or None."""
    name, _warning = links.link_basename(root.path, root.relative(os.path.join(directory, "driver")))
    return name


def uuid_of(unique_id, device_id):
    """The UUID amd-smi prints for a GPU, from its 64-bit unique_id (the ASIC serial) and PCI device id.

    amd-smi builds it as serial byte 0, "ff", the device id, "-0000-1000-80", serial byte 1, "-",
    serial bytes 2..7 (ASIC_SERIAL 0x7E8F7E20764E2714, device 0x74a0: 7eff74a0-0000-1000-808f-7e20764e2714).
    """
    if unique_id is None or device_id is None:
        return None
    serial = "%016x" % int(unique_id)
    return "%sff%s-0000-1000-80%s-%s" % (serial[0:2], device_id[2:].rjust(4, "0"), serial[2:4], serial[4:])


def _driver(root, notes):
    text, warning = root.read_text(root.join(_VERSION_FILE))
    if text:
        return {"name": AMD_DRIVER, "version": text, "in_kernel": False, "source": _VERSION_FILE}
    if sysfs.is_missing(warning):
        return {"name": AMD_DRIVER, "version": None, "in_kernel": True, "source": _VERSION_FILE + " absent (the in-kernel amdgpu)"}
    notes.add("%s; amdgpu driver version unknown" % (warning or "%s: empty" % root.join(_VERSION_FILE)))
    return {"name": AMD_DRIVER, "version": None, "in_kernel": None, "source": None}


def _partition_mode(root, notes, label, directory, name, known):
    path = os.path.join(directory, name)
    text, warning = root.read_text(path)
    if text is None:
        if not sysfs.is_missing(warning):
            notes.add("%s: %s; %s unknown" % (label, warning, name))
        return None
    if text.upper() not in known:
        notes.add("%s: %s %r is not one of %s; taken as unknown" % (label, path, sysfs.excerpt(text), ", ".join(known)))
        return None
    return text.upper()


def _owner(address, amd_addresses):
    """The AMD GPU (PCI address) a KFD node's address belongs to: itself, else the one GPU of the same slot."""
    if address in amd_addresses:
        return address
    same_slot = [gpu for gpu in amd_addresses if gpu[:-1] == address[:-1]]
    return same_slot[0] if len(same_slot) == 1 else None


def _nodes_by_gpu(notes, kfd, amd_addresses):
    by_gpu, node_owner = {}, {}
    for node in kfd["gpu_nodes"]:
        owner = _owner(node["address"], amd_addresses)
        if owner is None:
            notes.add("KFD node %d names PCI %s, which is no GPU bound to amdgpu in sysfs; left out" % (node["id"], node["address"]))
            continue
        by_gpu.setdefault(owner, []).append(node)
        node_owner[node["id"]] = owner
    return by_gpu, node_owner


def _links(nodes, kfd, node_owner, address, findings):
    cpu, gpu = {}, {}
    for node in nodes:
        for link in node["links"]:
            target = link["node_to"]
            if target in kfd["cpu_nodes"]:
                key = (target, link["type"])
                cpu[key] = min(cpu.get(key, link["weight"]), link["weight"])
            elif node_owner.get(target) not in (None, address):
                key = (node_owner[target], link["type"])
                gpu[key] = min(gpu.get(key, link["weight"]), link["weight"])
    found = [{"to": "cpu", "node": node, "type": kind, "weight": weight} for (node, kind), weight in sorted(cpu.items())]
    found += [{"to": "gpu", "pci_address": pci, "type": kind, "weight": weight} for (pci, kind), weight in sorted(gpu.items())]
    cpu_nodes = sorted(set(node for node, _kind in cpu))
    if len(cpu_nodes) > 1:
        findings.append("KFD links its partitions to CPU nodes %s, not one; KFD CPU node unknown" % ", ".join(str(n) for n in cpu_nodes))
    return found, cpu_nodes[0] if len(cpu_nodes) == 1 else None


def _kfd_part(gpu, nodes, kfd, node_owner, findings):
    amd = gpu["amd"]
    nodes = sorted(nodes, key=lambda node: node["id"])
    first = nodes[0]
    unique_ids = sorted(set(node["unique_id"] for node in nodes))
    if len(unique_ids) > 1:
        findings.append("KFD nodes %s all name PCI %s but have different unique_ids (%s); unique_id unknown (a copied or edited KFD node?)"
                        % (", ".join(str(node["id"]) for node in nodes), gpu["pci_address"], ", ".join(unique_ids)))
    amd["kfd_node"] = first["id"]
    amd["unique_id"] = unique_ids[0] if len(unique_ids) == 1 else None
    amd["hive_id"] = first["hive_id"]
    amd["device_id"] = first["device_id"]
    amd["partitions"] = [{"id": int(node["address"][-1]), "kfd_node": node["id"], "render_minor": node["render_minor"],
                          "gpu_id": node["gpu_id"]} for node in nodes]
    amd["links"], amd["kfd_cpu_node"] = _links(nodes, kfd, node_owner, gpu["pci_address"], findings)
    if gpu["uuid"] is None:
        gpu["uuid"] = uuid_of(amd["unique_id"], amd["device_id"])
    sysfs_node = gpu["sysfs_numa_node"]
    if amd["kfd_cpu_node"] is not None and sysfs_node is not None and amd["kfd_cpu_node"] != sysfs_node:
        findings.append("sysfs numa_node is %d, KFD links the GPU to CPU node %d; kept sysfs" % (sysfs_node, amd["kfd_cpu_node"]))


def _count_findings(gpus):
    """A partitioned GPU whose KFD nodes are fewer than its mode makes, or than its peers' in the same mode."""
    peers = {}
    for gpu in gpus:
        amd = gpu["amd"]
        if amd["compute_partition"] is not None and amd["kfd_node"] is not None:
            peers.setdefault((amd["device_id"], amd["compute_partition"]), []).append(len(amd["partitions"]))
    for gpu in gpus:
        amd = gpu["amd"]
        mode, count = amd["compute_partition"], len(amd["partitions"])
        if mode is None or amd["kfd_node"] is None:
            continue
        expected = COMPUTE_PARTITIONS[mode] or max(peers[(amd["device_id"], mode)])
        if count != expected:
            gpu["findings"].append("compute partition %s makes %d partitions%s, KFD lists %d" % (
                mode, expected, "" if COMPUTE_PARTITIONS[mode] else " (as on the other %s GPUs of this node)" % amd["device_id"], count))


def amd_details(root, notes, gpus, directories):
    """Fill ``amd`` and ``findings`` of each AMD GPU entry; ``directories`` maps their PCI addresses to device dirs."""
    if not gpus:
        return
    driver = _driver(root, notes)
    kfd = amd_kfd.read_kfd(root, notes)
    addresses = [gpu["pci_address"] for gpu in gpus]
    by_gpu, node_owner = _nodes_by_gpu(notes, kfd, addresses) if kfd else ({}, {})
    for gpu in gpus:
        label = "gpu %s" % gpu["pci_address"]
        directory = directories[gpu["pci_address"]]
        pci_class, _warning = root.read_text(os.path.join(directory, "class"))
        gpu["amd"] = {
            "pci_class": pci_class.lower() if pci_class else None,
            "driver": dict(driver),
            "kfd_node": None, "unique_id": None, "hive_id": None, "device_id": None, "kfd_cpu_node": None,
            "compute_partition": _partition_mode(root, notes, label, directory, "current_compute_partition", tuple(COMPUTE_PARTITIONS)),
            "memory_partition": _partition_mode(root, notes, label, directory, "current_memory_partition", MEMORY_PARTITIONS),
            "partitions": [], "links": [], "tool": None,
        }
        gpu["findings"] = []
        if gpu["pci_address"] in by_gpu:
            _kfd_part(gpu, by_gpu[gpu["pci_address"]], kfd, node_owner, gpu["findings"])
        elif kfd is not None:
            notes.add("%s: bound to amdgpu but no KFD node names it; its KFD node, partitions and links are unknown" % label)
    _count_findings(gpus)
    for gpu in gpus:
        for finding in gpu["findings"]:
            notes.add("gpu %s: %s" % (gpu["pci_address"], finding))
