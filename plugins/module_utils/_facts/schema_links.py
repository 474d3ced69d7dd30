# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The facts schema's GPU links and NIC RDMA devices (schema v1), read for `schema.read` (pure).

Public: `Link`, `LINK_WORDS`, `links`, `rdma_devices`.

A GPU's ``links`` (`gpu_links.attach`) is ``{"gpus": {label: word}, "nics": [...], "nearest_nics", "nearest_link"}``;
each NIC entry ``{"name", "rdma_device", "pci_address", "numa_node", "link", "source"}`` becomes a `Link`. The words are
``nvidia-smi topo -m``'s (``X``, ``PIX``, ``PXB``, ``PHB``, ``NODE``, ``SYS``, older drivers' ``SOC``, ``NV<n>`` between
GPUs); a link nobody could measure is null. Facts written before links existed have none: ``()``, unknown.
"""

from __future__ import annotations

import re
from collections import namedtuple

Link = namedtuple("Link", "name rdma_device pci_address numa_node link source")
Link.__doc__ = """One GPU-to-NIC link: the NIC's interface name (None: a device nvidia-smi lists that is no interface here),
its RDMA device (None: the interface itself), PCI address and NUMA node (None: unknown), the link word (None: unknown) and
the source that measured it ("nvidia-smi topo -m" or "sysfs pci tree")."""

LINK_WORDS = ("X", "PIX", "PXB", "PHB", "NODE", "SYS", "SOC")
_NVLINK = re.compile(r"^NV[0-9]+$")
_STR_OR_NONE = ("name", "rdma_device", "pci_address")


def _word(value, gpu_to_gpu=False):
    return value is None or value in LINK_WORDS or (gpu_to_gpu and isinstance(value, str) and bool(_NVLINK.match(value)))


def links(key, label, entry, error):
    """The `Link` tuples of one GPU entry's ``links.nics`` (``()`` when the facts have no links); a wrong shape is ``error``."""
    value = entry.get("links")
    if value is None:
        return ()
    where = "topology %s entry %s: links" % (key, label)
    if not isinstance(value, dict):
        raise error("%s %r is a %s, expected a mapping with gpus and nics" % (where, value, type(value).__name__))
    gpus = value.get("gpus") or {}
    if not isinstance(gpus, dict) or not all(isinstance(k, str) and _word(v, gpu_to_gpu=True) for k, v in gpus.items()):
        raise error("%s.gpus %r is not a mapping of GPU labels to nvidia-smi topo -m words (%s, NV<n>)" % (where, gpus, ", ".join(LINK_WORDS)))
    nics = value.get("nics") or []
    if not isinstance(nics, list):
        raise error("%s.nics %r is a %s, expected a list" % (where, nics, type(nics).__name__))
    out = []
    for index, nic in enumerate(nics):
        at = "%s.nics[%d]" % (where, index)
        if not isinstance(nic, dict):
            raise error("%s %r is not a mapping" % (at, nic))
        for field in _STR_OR_NONE:
            if nic.get(field) is not None and not isinstance(nic[field], str):
                raise error("%s.%s %r is not a string or null" % (at, field, nic[field]))
        numa = nic.get("numa_node")
        if numa is not None and (not isinstance(numa, int) or isinstance(numa, bool) or numa < 0):
            raise error("%s.numa_node %r is not a NUMA node id (an integer from 0) or null" % (at, numa))
        if not _word(nic.get("link")):
            raise error("%s.link %r is not one of %s or null" % (at, nic.get("link"), ", ".join(LINK_WORDS)))
        if not isinstance(nic.get("source"), str):
            raise error("%s.source %r is not a string (the source that measured the link)" % (at, nic.get("source")))
        if nic.get("name") is None and nic.get("rdma_device") is None:
            raise error("%s names neither an interface nor an RDMA device" % at)
        out.append(Link(name=nic.get("name"), rdma_device=nic.get("rdma_device"), pci_address=nic.get("pci_address"), numa_node=numa,
                        link=nic.get("link"), source=nic["source"]))
    return tuple(out)


def rdma_devices(key, label, entry, error):
    """A NIC entry's RDMA devices (``rdma_devices``: a list of strings, or null/absent: ``()``)."""
    value = entry.get("rdma_devices")
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(item, str) and item for item in value):
        raise error("topology %s entry %s: rdma_devices %r is not a list of device names" % (key, label, value))
    return tuple(value)
