# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""GPUs: identities from a vendor reader (NVML, nvidia-smi) or sysfs, with their NUMA locality.

Public: `GPU_SOURCES`, `GPU_VENDORS`, `read_gpus`.

A vendor tool runs at most once, through the injected ``nvidia`` function and ``runner``; with a
root other than "/" and no runner, vendor tools are not consulted (they would describe this
machine, not the snapshot). Any failure of the vendor reader is a warning, then sysfs.
PCI devices bound to amdgpu are GPUs whatever their class, with or without NVIDIA's reader; their
details are `amd`'s, and with ``gpu_source`` auto amd-smi (else rocm-smi) is asked too (`amd_tools`).
An NVIDIA reader's GPUs get their MIG devices from ``nvidia-smi -L`` (`mig`).
"""

from __future__ import annotations

import os

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import cpulist as _cpulist
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import pci as _pci
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts import amd
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts import amd_tools
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts import mig
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts import pci_devices
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts import runner as _runner
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts import sysfs

GPU_SOURCES = ("auto", "nvml", "nvidia-smi", "sysfs", "none")
GPU_VENDORS = {"0x10de": "nvidia", "0x1002": "amd"}
# PCI base class 0x03 (display controller); sub-class 0x02 is a 3D controller (no VGA), which
# only compute GPUs are (NVIDIA data-center GPUs, Intel data-center GPUs, ...).
_DISPLAY_CLASS = "0x03"
_3D_CONTROLLER_CLASS = "0x0302"


def default_nvidia():
    """The real gather_nvidia, or None when the NVIDIA reader cannot be imported."""
    try:
        from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts.nvidia import gather_nvidia  # pylint: disable=import-outside-toplevel
    except ImportError:
        return None
    return gather_nvidia


def read_gpus(root, notes, gpu_source, runner, nvidia, numa_nodes):
    """The GPU facts (sorted by index), as ``gpu_source`` says; [] for "none"."""
    if gpu_source == "none":
        return []
    vendor_gpus = None
    if gpu_source != "sysfs":
        vendor_gpus = _vendor_gpus(root, notes, gpu_source, runner, nvidia)
    single = pci_devices.single_node(numa_nodes)
    known = {node["id"] for node in numa_nodes}
    pci = pci_devices.read_pci_devices(root, notes)
    if vendor_gpus is None:
        gpus, amd_dirs = _sysfs_gpus(root, notes, pci)
    else:
        gpus = [_vendor_gpu(root, notes, item, pci, single, known) for item in vendor_gpus]
        mig.attach_mig_devices(notes, gpus, runner if runner is not None else _runner.NoCommandsRunner())
        listed = set(gpu["pci_address"] for gpu in gpus)
        amd_gpus, amd_dirs = _sysfs_gpus(root, notes, pci, amd_only=True)
        for gpu in amd_gpus:
            if gpu["pci_address"] not in listed:
                gpu["index"] = None
                gpus.append(gpu)
    amd_gpus = [gpu for gpu in gpus if gpu["source"] == "sysfs" and gpu["pci_address"] in amd_dirs]
    amd.amd_details(root, notes, amd_gpus, amd_dirs)
    if amd_gpus and gpu_source == "auto" and (root.is_host or runner is not None):
        amd_tools.apply_tools(root, notes, amd_gpus, pci, runner if runner is not None else _runner.NoCommandsRunner())
    for gpu in gpus:
        if gpu["numa_source"] == "unresolved":
            gpu["numa_node"], gpu["numa_source"] = pci_devices.resolve_numa(
                notes, "gpu %s" % gpu["pci_address"], gpu["sysfs_numa_node"], gpu["vendor_affinity"], single, known)
    return sorted(gpus, key=lambda g: (g["index"] is None, g["index"], g["pci_address"] or ""))


def _vendor_gpus(root, notes, gpu_source, runner, nvidia):
    if not root.is_host and runner is None:
        notes.add("gpu_source %s: vendor tools not consulted for root %s (they describe this machine, not the snapshot); used sysfs"
                  % (gpu_source, root.path))
        return None
    function = nvidia if nvidia is not None else default_nvidia()
    if function is None:
        notes.add("gpu_source %s: the NVIDIA reader (_facts.nvidia) is not available; used sysfs" % gpu_source)
        return None
    try:
        gpus, warnings = function(gpu_source, runner if runner is not None else _runner.NoCommandsRunner())
    except (OSError, ValueError, KeyError, TypeError) as exc:
        notes.add("gpu_source %s: reading NVIDIA GPUs failed (%s); used sysfs" % (gpu_source, exc))
        return None
    except Exception as exc:  # pylint: disable=broad-exception-caught
        # Last resort: a vendor binding that misbehaves (an old pynvml raising AttributeError, ...)
        # must not cost the user the rest of the facts.
        notes.add("gpu_source %s: reading NVIDIA GPUs failed with an unexpected %s (%s); used sysfs" % (gpu_source, type(exc).__name__, exc))
        return None
    for warning in warnings or ():
        notes.add(warning)
    if gpus is None:
        if gpu_source != "auto":
            notes.add("gpu_source %s: not available on this node; used sysfs" % gpu_source)
        return None
    return gpus


def _vendor_gpu(root, notes, item, pci, single, known):
    source = item.get("source")
    try:
        address = _pci.normalize(item.get("pci_address"))
    except _pci.PciAddressError as exc:
        notes.add("gpu %s: %s" % (item.get("index"), exc))
        address = None
    label = "gpu %s" % (address or item.get("index"))
    vendor_cpus = item.get("cpu_affinity")
    if vendor_cpus is not None:
        try:
            vendor_cpus = _cpulist.canonical(vendor_cpus)
        except _cpulist.CpuListError as exc:
            notes.add("%s: %s CPU affinity: %s" % (label, source, exc))
            vendor_cpus = None
    vendor = {"source": source, "numa_node": item.get("numa_node"), "cpus": vendor_cpus, "gpu_numa_id": item.get("gpu_numa_id")}
    sysfs_node, local_cpus = None, None
    if address is not None and address in pci:
        sysfs_node, local_cpus = pci_devices.pci_locality(root, notes, "gpu", address, pci[address])
    elif address is not None:
        notes.add("%s: reported by %s but not found under %s; sysfs locality unknown" % (label, source, root.join(pci_devices.PCI_DIR)))
    if local_cpus is not None and vendor_cpus is not None and local_cpus != vendor_cpus:
        notes.add("%s: sysfs local_cpulist is %s, %s CPU affinity is %s; kept both (local_cpus is sysfs)" % (label, local_cpus, source, vendor_cpus))
    numa_node, numa_source = pci_devices.resolve_numa(notes, label, sysfs_node, vendor, single, known)
    return {
        "index": item.get("index"),
        "uuid": item.get("uuid"),
        "pci_address": address,
        "name": item.get("name"),
        "vendor": "nvidia",
        "source": source,
        "numa_node": numa_node,
        "numa_source": numa_source,
        "sysfs_numa_node": sysfs_node,
        "local_cpus": local_cpus,
        "vendor_affinity": vendor,
        "topo_links": item.get("topo_links"),
    }


def _sysfs_gpus(root, notes, pci, amd_only=False):
    """PCI devices that are GPUs, and {address: directory} of those bound to amdgpu.

    Kept: every device bound to amdgpu (any class: MI300 parts are 0x1200),
    display devices (class 0x03) of a GPU vendor (GPU_VENDORS) and
    3D controllers (class 0x0302) of any vendor. Left out, with one
    warning: the other display devices, such as the BMC's VGA (ASPEED,
    Matrox) on servers. A device whose vendor file cannot be read is kept,
    with a warning: it cannot be told apart from a BMC's. A device whose
    class file cannot be read is left out with a warning naming it.
    The NUMA node is resolved by the caller (``numa_source`` "unresolved").
    """
    gpus = []
    skipped = []
    amd_dirs = {}
    for address, directory in sorted(pci.items()):
        if amd.bound_driver(root, directory) == amd.AMD_DRIVER:
            amd_dirs[address] = directory
        elif amd_only:
            continue
        pci_class, warning = root.read_text(os.path.join(directory, "class"))
        if pci_class is None and address not in amd_dirs:
            notes.add("pci %s: %s; PCI class unknown, so not counted as a GPU" % (address, warning))
        pci_class = (pci_class or "").lower()
        if not pci_class.startswith(_DISPLAY_CLASS) and address not in amd_dirs:
            continue
        vendor_id, warning = root.read_text(os.path.join(directory, "vendor"))
        if address in amd_dirs:
            vendor_id = vendor_id.lower() if vendor_id else "0x1002"
        elif vendor_id is None:
            notes.add("gpu %s: %s; vendor unknown, kept as a GPU (without its vendor it cannot be told apart from a BMC display)" % (address, warning))
        else:
            vendor_id = vendor_id.lower()
            if vendor_id not in GPU_VENDORS and not pci_class.startswith(_3D_CONTROLLER_CLASS):
                skipped.append("%s (vendor %s, class %s)" % (address, sysfs.excerpt(vendor_id), sysfs.excerpt(pci_class)))
                continue
        sysfs_node, local_cpus = pci_devices.pci_locality(root, notes, "gpu", address, directory)
        gpus.append({
            "index": len(gpus),
            "uuid": None,
            "pci_address": address,
            "name": None,
            "vendor": GPU_VENDORS.get(vendor_id, vendor_id),
            "source": "sysfs",
            "numa_node": None,
            "numa_source": "unresolved",
            "sysfs_numa_node": sysfs_node,
            "local_cpus": local_cpus,
            "vendor_affinity": None,
        })
    if skipped:
        notes.add("sysfs GPUs: left out display devices that are neither from a GPU vendor (%s) nor 3D controllers (class %s), "
                  "such as a BMC's VGA: %s"
                  % (", ".join("%s %s" % (vid, name) for vid, name in sorted(GPU_VENDORS.items())), _3D_CONTROLLER_CLASS, "; ".join(skipped)))
    return gpus, amd_dirs
