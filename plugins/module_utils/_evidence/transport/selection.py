# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What UCX_NET_DEVICES, NCCL_IB_HCA and NCCL_SOCKET_IFNAME select among a node's devices, in each one's documented forms (pure).

Public: `VARIABLES`, `parse`, `resolve`.

- ``UCX_NET_DEVICES``: a comma list matched exactly against UCT device names: an RDMA port is
  ``<device>:<port>`` (``mlx5_0:1``), a TCP device its interface name (``eth0``); ``all`` (the default)
  is every device; no ``^`` (openucx ``ucp_is_resource_in_device_list``). A bare RDMA device name
  (``mlx5_0``) names no UCT device.
- ``NCCL_IB_HCA``: ``[^][=]<hca>[:<port>[:<rail>[:<plane>]]],...``: ``^`` excludes, ``=`` makes the
  names exact, otherwise each is a prefix (``mlx5_1`` also selects ``mlx5_10``..``mlx5_19``), as NCCL's
  ``matchIf`` (``strncmp`` over the token's length) has it.
- ``NCCL_SOCKET_IFNAME``: the same ``^`` and ``=`` over interface names.

Ports are kept as written: the facts do not list a device's ports, so a port narrows nothing here.
"""

from __future__ import annotations

import re

VARIABLES = ("UCX_NET_DEVICES", "NCCL_IB_HCA", "NCCL_SOCKET_IFNAME")
# What each variable is matched against: RDMA devices, interfaces, or both (UCX's UCT devices).
_TARGETS = {"UCX_NET_DEVICES": ("rdma", "interface"), "NCCL_IB_HCA": ("rdma",), "NCCL_SOCKET_IFNAME": ("interface",)}


def parse(variable, value):
    """{"variable", "value", "exclude", "exact", "all", "entries": [{"name", "port"}]} for one variable's value."""
    if variable not in VARIABLES:
        raise ValueError("transport variable %r is not one of %s" % (variable, ", ".join(VARIABLES)))
    text = value.strip()
    exclude = exact = everything = False
    if variable == "UCX_NET_DEVICES":
        exact = True
        everything = text == "all"
    else:
        if text.startswith("^"):
            exclude, text = True, text[1:]
        if text.startswith("="):
            exact, text = True, text[1:]
    entries = []
    for token in text.split(",") if not everything else []:
        token = token.strip()
        if not token:
            continue
        if variable == "NCCL_SOCKET_IFNAME":
            name, port = token, None
        else:
            name, _sep, rest = token.partition(":")
            port = (rest.split(":")[0] or None) if rest else None
        entries.append({"token": token, "name": name, "port": port})
    return {"variable": variable, "value": value, "exclude": exclude, "exact": exact, "all": everything, "entries": entries}


def _natural(name):
    """mlx5_2 before mlx5_10, as the devices are numbered."""
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", name)]


def _matches(device, entry, exact):
    return device == entry["name"] if exact else device.startswith(entry["name"])


def resolve(parsed, rdma_devices, interfaces):
    """{"selected": [{"device", "kind", "port"}], "unmatched": [tokens], "problems": [sentences]} on the node's devices."""
    kinds = _TARGETS[parsed["variable"]]
    pool = [(name, "rdma") for name in sorted(set(rdma_devices), key=_natural) if "rdma" in kinds]
    pool += [(name, "interface") for name in sorted(set(interfaces), key=_natural) if "interface" in kinds]
    problems, unmatched = [], []
    if parsed["all"]:
        return {"selected": [{"device": name, "kind": kind, "port": None} for name, kind in pool], "unmatched": [], "problems": []}
    matched = {}
    for entry in parsed["entries"]:
        hits = [(name, kind) for name, kind in pool if _matches(name, entry, parsed["exact"])]
        if parsed["variable"] == "UCX_NET_DEVICES":
            # UCT names an RDMA port <device>:<port>; a bare device name is no UCT device.
            hits = [(name, kind) for name, kind in hits if (kind == "rdma") == (entry["port"] is not None)]
            if entry["port"] is None and entry["name"] in rdma_devices:
                problems.append("UCX_NET_DEVICES entry %r names an RDMA device without its port; UCX matches UCT device names "
                                "exactly, such as %s:1, so it selects nothing" % (entry["token"], entry["name"]))
        if not hits:
            unmatched.append(entry["token"])
        for name, kind in hits:
            matched.setdefault((name, kind), entry["port"])
    if parsed["exclude"]:
        chosen = [(name, kind, None) for name, kind in pool if (name, kind) not in matched]
    else:
        chosen = [(name, kind, matched[(name, kind)]) for name, kind in pool if (name, kind) in matched]
    for token in unmatched:
        problems.append("%s entry %r matches no %s on the node (%s)" % (
            parsed["variable"], token, " or ".join("RDMA device" if k == "rdma" else "interface" for k in kinds),
            ", ".join(name for name, _kind in pool) or "none listed"))
    return {"selected": [{"device": name, "kind": kind, "port": port} for name, kind, port in chosen], "unmatched": unmatched,
            "problems": problems}
