# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Each GPU's links to the NICs (and to the other GPUs): from ``nvidia-smi topo -m``, else the PCI tree in sysfs.

Public: `LINK_RANK`, `topo_row`, `pci_link`, `attach`.

The vocabulary is nvidia-smi's (`X`, `PIX`, `PXB`, `PHB`, `NODE`, `SYS`, `NV#`; older drivers print
`SOC` for `SYS`), so both sources read alike. Each NIC entry names its source: the matrix lists only
the NICs nvidia-smi knows (RDMA devices), so the host's other NICs get the sysfs distance:

- different PCI roots: ``NODE`` when both are on the same known NUMA node, ``SYS`` when on two known
  nodes, else unknown (None);
- same root, no common bridge below it: ``PHB``;
- a common upstream bridge: at most one bridge between it and either device (one switch):
  ``PIX``, more: ``PXB``.
"""

from __future__ import annotations

import os
import re

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import pci as _pci
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts import links as _links
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts import pci_devices

# Nearer is smaller (NCCL_NET_GDR_LEVEL's order); SOC is older drivers' SYS.
LINK_RANK = {"PIX": 1, "PXB": 2, "PHB": 3, "NODE": 4, "SYS": 5, "SOC": 5}
TOPO = "nvidia-smi topo -m"
SYSFS = "sysfs pci tree"
_ROOT_BUS = re.compile(r"^pci[0-9a-fA-F]{4}:[0-9a-fA-F]{2}$")


def topo_row(topo, index):
    """The row of GPU ``index`` in a parsed matrix: {"gpus": {label: link}, "nics": [{"device", "column", "link"}]}."""
    label = "GPU%d" % index
    row = topo["links"].get(label, {})
    devices = dict((nic["name"], nic["device"]) for nic in topo["nics"])
    gpus = dict((column, cell) for column, cell in row.items() if column not in devices and column != label)
    nics = [{"column": column, "device": devices[column], "link": row[column]} for column in devices if column in row]
    return {"gpus": gpus, "nics": nics}


def _chain(root, directory):
    """(root bus, [PCI addresses from the root down to the device]) from a resolved device directory, or None."""
    parts = os.path.relpath(directory, root.path).split(os.sep)
    for where, part in enumerate(parts):
        if _ROOT_BUS.match(part):
            return part, [p for p in parts[where + 1:] if _pci.is_address(p)]
    return None


def pci_link(gpu_chain, nic_chain, gpu_node, nic_node):
    """The link word between two devices from their (root bus, address chain), or None when unknown."""
    if not gpu_chain or not nic_chain:
        return None
    (gpu_root, gpu_path), (nic_root, nic_path) = gpu_chain, nic_chain
    if gpu_root != nic_root:
        if gpu_node is None or nic_node is None:
            return None
        return "NODE" if gpu_node == nic_node else "SYS"
    common = 0
    while common < min(len(gpu_path), len(nic_path)) - 1 and gpu_path[common] == nic_path[common]:
        common += 1
    if common == 0:
        return "PHB"
    below = max(len(gpu_path) - 1 - common, len(nic_path) - 1 - common)
    return "PIX" if below <= 1 else "PXB"


def _directory(root, address):
    if address is None:
        return None
    directory, _warning = _links.resolve(root.path, pci_devices.PCI_DIR + "/" + address)
    return directory


def _nic_for(nics, device):
    """The facts NIC with RDMA device (or interface name) ``device``, or None."""
    for nic in nics:
        if device in nic["rdma_devices"] or nic["name"] == device:
            return nic
    return None


def _entry(nic, device, link, source):
    return {"name": nic["name"] if nic else None, "rdma_device": device if device != (nic or {}).get("name") else None,
            "pci_address": nic["pci_address"] if nic else None, "numa_node": nic["numa_node"] if nic else None,
            "link": link, "source": source}


def _gpu_links(root, notes, gpu, nics, topo):
    entries, seen = [], set()
    for cell in (topo or {}).get("nics", []):
        nic = _nic_for(nics, cell["device"])
        entries.append(_entry(nic, cell["device"], cell["link"], TOPO))
        if nic is not None:
            seen.add(nic["name"])
    gpu_chain = None
    for nic in nics:
        if nic["name"] in seen:
            continue
        if gpu_chain is None:
            gpu_dir = _directory(root, gpu["pci_address"])
            gpu_chain = (_chain(root, gpu_dir) if gpu_dir else None) or ()
        nic_dir = _directory(root, nic["pci_address"])
        link = pci_link(gpu_chain, _chain(root, nic_dir) if nic_dir else None, gpu["numa_node"], nic["numa_node"])
        if link is None:
            notes.add("gpu %s: the PCI distance to nic %s is unknown (no PCI path, or different PCI roots and a NUMA node unknown)"
                      % (gpu["pci_address"] or gpu["index"], nic["name"]))
        rdma = nic["rdma_devices"]
        for device in rdma or [None]:
            entries.append(_entry(nic, device, link, SYSFS))
    ranks = [LINK_RANK[e["link"]] for e in entries if e["link"] in LINK_RANK]
    best = min(ranks) if ranks else None
    nearest = [e for e in entries if best is not None and LINK_RANK.get(e["link"]) == best]
    return {"gpus": dict((topo or {}).get("gpus", {})), "nics": entries, "nearest_nics": [e["rdma_device"] or e["name"] for e in nearest],
            "nearest_link": nearest[0]["link"] if nearest else None}


def attach(root, notes, gpus, nics):
    """Give each GPU its ``links``: {"gpus", "nics", "nearest_nics", "nearest_link"} (its ``topo_links`` is consumed)."""
    for gpu in gpus:
        topo = gpu.pop("topo_links", None)
        gpu["links"] = _gpu_links(root, notes, gpu, nics, topo)
    return gpus
