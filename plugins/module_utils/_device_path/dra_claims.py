# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A pod's DRA devices joined to their ResourceClaim's allocation and their ResourceSlice device, and judged (pure).

Public: `prepare`, `join`, `findings`, `pod_findings`, `advertised_twice`.

The kubelet's PodResources lists, per container, ``dynamic_resources[]`` (``claim_name``, ``claim_namespace``,
``claim_resources[]``: ``driver_name``, ``pool_name``, ``device_name``): "The driver name/pool name/device name
triplet uniquely identifies the device" (k8s.io/kubelet pkg/apis/podresources/v1/api.proto). The API has the
same triplet in the ResourceClaim's ``status.allocation.devices.results[]`` (``request``, ``driver``, ``pool``,
``device``: "which device was allocated", KEP-4381 DeviceRequestAllocationResult), and the device itself in a
ResourceSlice of the node with ``spec.driver``, ``spec.pool.name`` and ``spec.devices[].name`` equal
(`resource_slices.devices`), whose attributes give its NUMA node, PCI address and UUID.

A triplet is judged in that order: its claim not in the API is unknown (nothing to join); a claim whose allocation
does not hold the triplet disagrees with PodResources; a triplet no ResourceSlice of the node lists is a device that
does not exist there (disagree, naming driver, pool and device); then the slice's NUMA node is compared with the
NUMA nodes of the pod's CPUs and of its memory (agree only when they are that one node; a slice without a NUMA
attribute is unknown), and with the host's node for the same device (facts) when both are known.
"""

from __future__ import annotations

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import cpulist as _cpulist
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._device_path import resource_slices
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._device_path.common import DevicePathError, finding


def _claims_by_name(claims):
    out = {}
    if not isinstance(claims, list):
        raise DevicePathError("ResourceClaims must be a list (the items of a ResourceClaimList), got %s" % type(claims).__name__)
    for index, claim in enumerate(claims):
        meta = claim.get("metadata") if isinstance(claim, dict) else None
        if not isinstance(meta, dict) or not isinstance(meta.get("name"), str) or not isinstance(meta.get("namespace"), str):
            raise DevicePathError("resourceclaims[%d] must be a ResourceClaim with metadata.name and metadata.namespace (strings)" % index)
        out["%s/%s" % (meta["namespace"], meta["name"])] = claim
    return out


def _pool(item):
    pool = (item.get("spec") or {}).get("pool") if isinstance(item, dict) else None
    pool = pool if isinstance(pool, dict) else {}
    generation, count = pool.get("generation", 0), pool.get("resourceSliceCount", 1)
    return pool.get("name"), generation if isinstance(generation, int) else 0, count if isinstance(count, int) else 1


def _current(slices, node):
    """The node's slices of each (driver, pool) at its highest ``spec.pool.generation`` ("only the highest generation is valid",
    KEP-4381 ResourcePool), and {(driver, pool): (slices there, resourceSliceCount, generation)} for a pool with fewer there."""
    mine = [item for item in slices if isinstance(item, dict) and (item.get("spec") or {}).get("nodeName") == node]
    newest = {}
    for item in mine:
        key = ((item.get("spec") or {}).get("driver"), _pool(item)[0])
        newest[key] = max(newest.get(key, 0), _pool(item)[1])
    kept = [item for item in mine if _pool(item)[1] == newest[((item.get("spec") or {}).get("driver"), _pool(item)[0])]]
    incomplete = {}
    for key, generation in newest.items():
        there = [item for item in kept if ((item.get("spec") or {}).get("driver"), _pool(item)[0]) == key]
        wanted = max(_pool(item)[2] for item in there)
        if len(there) < wanted:
            incomplete[key] = (len(there), wanted, generation)
    return kept, incomplete


def prepare(claims, slices, node):
    """{"claims", "slice_devices", "incomplete", "node"} for `join` from the ResourceClaims and ResourceSlices read from the API (their
    items) and the node's name; each is checked first, a wrong shape refused naming it. Only each pool's newest generation is read
    (`_current`); a pool missing some of its slices is kept in ``incomplete``, so a device not found there is unknown, not absent."""
    if not isinstance(node, str) or not node:
        raise DevicePathError("the node's name must be a non-empty string to join DRA devices to its ResourceSlices, got %r" % (node,))
    _claims_by_name(claims)
    resource_slices.devices(slices, node)  # checks every slice's shape first
    kept, incomplete = _current(slices, node)
    return {"claims": claims, "slice_devices": resource_slices.devices(kept, node), "incomplete": incomplete, "node": node}


def _results(claim, label):
    """The claim's ``status.allocation.devices.results`` ([] when not allocated); a wrong shape is refused, naming the claim."""
    value = claim
    for key in ("status", "allocation", "devices", "results"):
        value = value.get(key) if isinstance(value, dict) else None
        if value is None:
            return []
    if not isinstance(value, list) or not all(isinstance(r, dict) for r in value):
        raise DevicePathError("ResourceClaim %s: status.allocation.devices.results must be a list of mappings, got %r" % (label, value))
    return value


def join(claim, resource, claims, slice_devices):
    """One PodResources claim device joined: {"resource_name", "id", "driver", "pool", "device_name", "claim", "claim_found", "request", "allocated", "slice",
    "device" (the `resource_slices.devices` entry or None), "slice_numa_node", "slice_numa_attribute", "reported_numa_nodes"}."""
    triplet = (resource["driver_name"], resource["pool_name"], resource["device_name"])
    label = "%s/%s" % (claim.get("claim_namespace"), claim.get("claim_name"))
    entry = {"resource_name": "%s/%s" % triplet[:2], "id": "%s/%s/%s" % triplet, "driver": triplet[0], "pool": triplet[1],
             "device_name": triplet[2], "claim": label, "claim_found": False, "request": None,
             "allocated": False, "slice": None, "device": None, "slice_numa_node": None, "slice_numa_attribute": None, "reported_numa_nodes": []}
    found = _claims_by_name(claims).get(label)
    if found is not None:
        entry["claim_found"] = True
        for result in _results(found, label):
            if (result.get("driver"), result.get("pool"), result.get("device")) == triplet:
                entry.update(allocated=True, request=result.get("request"))
                break
    for device in slice_devices:
        if (device["driver"], device["pool"], device["name"]) == triplet:
            entry.update(device=device, slice=device["slice"], slice_numa_node=device["numa_node"], slice_numa_attribute=device["numa_attribute"])
            break
    return entry


def _nodes_text(nodes):
    return ",".join(str(n) for n in nodes) or "none"


def findings(pod, container, entries, cpu_nodes, memory_nodes, node, incomplete=None):
    """The findings (the allocation findings' shape: pod, container, check, result, message, expected, observed) for the
    joined claim devices among ``entries`` (`join`'s, others skipped); ``cpu_nodes``/``memory_nodes``: the NUMA nodes of
    the pod's CPUs and memory (None: not known); ``node``: the node's name, for the messages; ``incomplete``: `prepare`'s."""
    out = []

    def add(check, result, message, expected=None, observed=None):
        out.append({"pod": pod, "container": container, "check": check, "result": result, "message": message,
                    "expected": expected, "observed": observed})

    for entry in entries:
        if "claim_found" not in entry:
            continue
        what = "pod %s container %s: DRA device %s (claim %s)" % (pod, container, entry["id"], entry["claim"])
        if not entry["claim_found"]:
            add("dra_claim", "unknown", "%s: the ResourceClaim %s is not in the API, so the device cannot be joined to its allocation; "
                "its locality is unknown, not agreement" % (what, entry["claim"]), entry["claim"], None)
            continue
        if not entry["allocated"]:
            add("dra_allocation", "disagree", "%s: PodResources lists it but the claim's status.allocation.devices.results does not"
                % what, entry["id"], "not in the claim's allocation")
            continue
        partial = (incomplete or {}).get((entry["driver"], entry["pool"]))
        if entry["device"] is None and partial:
            have, want, generation = partial
            add("dra_slice_device", "unknown", "%s: not in the %d of %d ResourceSlices of driver %s pool %s (generation %d) that node %s has; "
                "the others are not published, so whether the device exists is unknown" % (what, have, want, entry["driver"], entry["pool"],
                                                                                           generation, node), entry["id"], None)
            continue
        if entry["device"] is None:
            add("dra_slice_device", "disagree", "%s: no ResourceSlice of node %s lists device %s of driver %s pool %s; the claim names "
                "a device that does not exist there" % (what, node, entry["device_name"], entry["driver"], entry["pool"]), entry["id"], None)
            continue
        numa = entry["slice_numa_node"]
        source = "ResourceSlice %s" % entry["slice"]
        if numa is None:
            add("dra_device_numa", "unknown", "%s: %s publishes no NUMA attribute for it (resource.kubernetes.io/numaNode); its "
                "locality is unknown, not agreement" % (what, source), None, None)
            continue
        host = entry.get("numa_node")
        if host is not None and host != numa:
            add("dra_numa_attribute", "disagree", "%s: %s says NUMA node %d (%s), the host's facts say %d (%s)"
                % (what, source, numa, entry["slice_numa_attribute"], host, entry.get("numa_source")), host, numa)
        for check, nodes, of in (("dra_device_numa", cpu_nodes, "CPUs"), ("dra_device_memory_numa", memory_nodes, "memory")):
            if not nodes:
                add(check, "unknown", "%s: on NUMA node %d (%s %s); the NUMA nodes of the pod's %s are unknown"
                    % (what, numa, source, entry["slice_numa_attribute"], of), [numa], None)
                continue
            add(check, "agree" if list(nodes) == [numa] else "disagree", "%s: on NUMA node %d (%s %s); the pod's %s are on NUMA node(s) %s"
                % (what, numa, source, entry["slice_numa_attribute"], of, _nodes_text(nodes)), [numa], list(nodes))
    return out


def _same(plugin, device):
    """How a plugin's mapped device and a slice device are the same hardware ("UUID ...", "PCI address ...") or None."""
    own = plugin.get("mig_uuid") or plugin.get("uuid") or plugin.get("id")
    if device.get("uuid") and own and device["uuid"].lower() == own.lower():
        return "UUID %s" % device["uuid"]
    address = device.get("pci_address")
    if address and plugin.get("pci_address") == address and not (plugin.get("mig_uuid") and (device.get("uuid") or "").upper().startswith("MIG-")):
        return "PCI address %s" % address
    return None


def advertised_twice(plugin_devices, slice_devices, where):
    """Device path findings (`common.finding`) for each ResourceSlice device that a device plugin also gives (``plugin_devices``:
    `devices.map_device` entries): the same UUID, or the same PCI function (a whole GPU, or the parent of a MIG device).
    Two mechanisms handing out one device can give it to two pods at once. ``where`` names what was read."""
    out = []
    for device in slice_devices:
        for plugin in plugin_devices:
            same = _same(plugin, device)
            if same is None:
                continue
            subject = "%s/%s/%s" % (device["driver"], device["pool"], device["name"])
            message = ("%s (ResourceSlice %s) and device plugin resource %s device %s are the same device (%s): one device advertised by "
                       "two mechanisms at once (%s)" % (subject, device["slice"], plugin["resource_name"], plugin["id"], same, where))
            out.append(finding("device_advertised_twice", "disagree", subject, message, "one mechanism", "device plugin and DRA",
                               {"expected": "ResourceSlices", "observed": where}))
    return out


def pod_findings(label, out, oracle, dra, make):
    """`findings` for each container of one reconciled pod (``out``: its ``pod_cpus``, ``memory``, ``devices``) against the NUMA nodes
    of its CPUs (through the oracle) and memory, and `advertised_twice` for a device it got both from a device plugin and through a
    claim (made with ``make(pod, container, check, result, message, expected=, observed=)``). Without ``dra`` (the claims and slices
    were not read) each claim device is one unknown ``dra_claim``: matched by name only, never taken for agreement."""
    if dra is None:
        return [make(label, name, "dra_claim", "unknown",
                     "pod %s container %s: %s from ResourceClaim %s was not joined to its claim's allocation or its ResourceSlice (the "
                     "ResourceClaims and ResourceSlices were not read), so its locality is unknown, not agreement"
                     % (label, name, entry["id"], entry.get("claim") or "?"), expected=None, observed=entry["id"])
                for name, entries in sorted(out["devices"].items()) for entry in entries if entry.get("dra_unjoined")]
    cpus = set(_cpulist.parse(out["pod_cpus"] or ""))
    cpu_nodes = sorted(int(node) for node, entry in ((oracle or {}).get("by_numa_node") or {}).items()
                       if cpus & set(_cpulist.parse(entry["cpus"] or "")))
    memory_nodes = sorted(set(n for block in out["memory"].values() for n in block["numa_nodes"]))
    found, plugin, claimed = [], [], []
    for name, entries in sorted(out["devices"].items()):
        found.extend(findings(label, name, entries, cpu_nodes or None, memory_nodes or None, dra.get("node"), dra.get("incomplete")))
        plugin.extend(e for e in entries if "claim" not in e)
        claimed.extend(e["device"] for e in entries if e.get("device"))
    for twice in advertised_twice(plugin, claimed, "pod %s: PodResources devices and dynamic_resources" % label):
        found.append(make(label, None, twice["check"], twice["result"], twice["message"], expected=twice["expected"], observed=twice["observed"]))
    return found
