# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The one reader of topology facts schema v1: every later step reads the facts through it.

Public: `read`, `kubelet_node`, `SchemaError`, `SCHEMA_VERSION`, and the value types `Topology`,
`Cpus`, `NumaNode`, `HugepagePool`, `Core`, `Device`, `VendorAffinity` (and `schema_links.Link`, a GPU's NIC links).

`read(facts)` checks the facts (``ansible_facts.numa_gate_topology``) and returns an immutable
`Topology`: namedtuples, frozensets and read-only mappings, nothing a reader can change. Any
malformed part is a `SchemaError` naming the field and the value, never a TypeError or KeyError.
What the reader cannot know it says in ``warnings`` instead of guessing (an unknown hugepage
count, online CPUs in no core, a device on a NUMA node the facts do not list, an unparsable
``local_cpus``). Values that are well-formed but impossible for one step (a hugepage pool larger
than its node, which the facts already warn about) are that step's to refuse: the planner does.

`kubelet_node(value)` gives the ``node`` argument of the kubelet validator,
``{"online_cpus": str, "numa_nodes": {id: bytes}, "memory_bytes": int}``, from full facts, from a
`Topology`, or from that summary itself (checked).
"""

from __future__ import annotations

from collections import namedtuple
from types import MappingProxyType

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import cpulist as _cpulist
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base.errors import NumaGateError
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts import schema_links

SCHEMA_VERSION = 1

Cpus = namedtuple("Cpus", "online isolated isolated_unknown usable")
Cpus.__doc__ = """online, isolated (within online), usable (online less isolated): frozensets of CPU ids.
isolated_unknown: None when cpus.isolated was read, else "null" or "missing"."""
HugepagePool = namedtuple("HugepagePool", "size_kb total free")
NumaNode = namedtuple("NumaNode", "id cpus memory_bytes hugepages hugepages_bytes")
NumaNode.__doc__ = """cpus: the online CPUs the facts list for the node (frozenset); memory_bytes: None when unknown;
hugepages: HugepagePool tuples by size; hugepages_bytes: bytes the pools hold (unknown counts as 0)."""
Core = namedtuple("Core", "id cpus numa package usable")
Core.__doc__ = """A physical core: id is its lowest CPU (the kubelet's getUniqueCoreID); cpus its online CPUs;
numa its NUMA node (None: none known); usable: reservable whole (placed, no isolated CPU)."""
VendorAffinity = namedtuple("VendorAffinity", "source numa_node cpus")
_DEVICE_FIELDS = "kind name index uuid pci_address numa_node numa_source sysfs_numa_node local_cpus vendor_affinity warnings mig_devices links rdma_devices"
Device = namedtuple("Device", _DEVICE_FIELDS)
Device.__new__.__defaults__ = ((), (), ())
Device.__doc__ = """A GPU or NIC. numa_node: as the facts give it (None: unknown; it may name a node the facts lack,
then a warning says so); local_cpus: canonical cpulist or None; vendor_affinity: VendorAffinity or None;
warnings: what the reader could not use about this device, and the device's findings (sources that
disagree, such as an AMD tool against sysfs), each naming the device (also in Topology.warnings); mig_devices: the
UUIDs of a GPU's MIG devices (``nvidia-smi -L``), () when none or unknown; links: a GPU's links to the NICs
(`schema_links.Link` tuples, () when the facts have none); rdma_devices: a NIC's RDMA devices (() when none)."""
Topology = namedtuple("Topology", "cpus nodes cores cpu_numa cpu_core gpus nics memory_bytes memory_source numa_first warnings vfs")
Topology.__new__.__defaults__ = ((),)
Topology.__doc__ = """nodes: {id: NumaNode}, cores: {core id: Core}, cpu_numa / cpu_core: {cpu: node id / core id}
(read-only mappings, ascending ids); gpus, nics: Device tuples; memory_bytes: MemTotal, else the NUMA sum;
numa_first: the kubelet's packed order takes NUMA nodes before sockets; warnings: a tuple of strings; vfs: the SR-IOV
VFs of the facts' ``sriov`` PFs as NIC Device tuples (name: their interface, None when not one here)."""

_SUMMARY_KEYS = ("online_cpus", "numa_nodes", "memory_bytes")


class SchemaError(NumaGateError, ValueError):
    """Topology facts that do not follow schema v1; the message names the field and the value."""


def _is_int(value):
    return isinstance(value, int) and not isinstance(value, bool)


def read(facts, reader="the planner"):
    """Check topology facts (schema v1) and return them as an immutable `Topology`.

    ``reader`` names who reads them in the schema_version refusal ("the planner", "the locality oracle").
    """
    if not isinstance(facts, dict):
        raise SchemaError("topology %r is a %s, expected numa_gate_topology facts (a dict with schema_version 1)"
                          % (facts, type(facts).__name__))
    if facts.get("schema_version") != SCHEMA_VERSION:
        raise SchemaError("topology schema_version %r is not supported; %s reads schema_version 1" % (facts.get("schema_version"), reader))
    warnings = []
    cpus = _read_cpus(facts.get("cpus"))
    nodes = _read_nodes(facts, cpus.online, warnings)
    cpu_numa = {cpu: node.id for node in nodes.values() for cpu in node.cpus}
    cores, cpu_core = _read_cores(facts, cpus, nodes, cpu_numa, warnings)
    gpus = tuple(_read_device("gpu", entry, nodes, warnings) for entry in _entries(facts, "gpus"))
    nics = tuple(_read_device("nic", entry, nodes, warnings) for entry in _entries(facts, "nics"))
    vfs = tuple(_read_device("nic", entry, nodes, warnings) for entry in _vf_entries(facts))
    total = facts.get("memory_bytes")
    if total is not None and (not _is_int(total) or total < 0):
        raise SchemaError("topology memory_bytes %r is not a byte count (MemTotal in bytes, or null)" % (total,))
    if total:
        memory, source = total, "topology memory_bytes"
    else:
        # MemTotal when the facts have it, else the sum of the NUMA nodes' memory (unknown counts 0).
        memory, source = sum(node.memory_bytes or 0 for node in nodes.values()), "the sum of NUMA node memory"
    packages = set(core.package for core in cores.values())
    placed = set(core.numa for core in cores.values() if core.numa is not None)
    return Topology(
        cpus=cpus, nodes=_frozen(nodes), cores=_frozen(cores), cpu_numa=_frozen(cpu_numa), cpu_core=_frozen(cpu_core),
        gpus=gpus, nics=nics, memory_bytes=memory, memory_source=source, numa_first=len(packages) >= len(placed),
        warnings=tuple(warnings), vfs=vfs)


def _vf_entries(facts):
    """The VFs of the facts' ``sriov`` PFs as NIC entries (their first interface, if any, as the name)."""
    out = []
    for pf in _entries(facts, "sriov"):
        vfs = pf.get("vfs")
        if vfs is None:
            continue
        if not isinstance(vfs, list) or not all(isinstance(vf, dict) for vf in vfs):
            raise SchemaError("topology sriov entry %s: vfs %r is not a list of dicts" % (pf.get("pf"), vfs))
        for vf in vfs:
            interfaces = vf.get("interfaces") or []
            out.append(dict(vf, name=interfaces[0] if isinstance(interfaces, list) and interfaces else None))
    return out


def _frozen(mapping):
    return MappingProxyType(dict(sorted(mapping.items())))


def _parse_cpus(text, where):
    try:
        return frozenset(_cpulist.parse(text))
    except _cpulist.CpuListError as exc:
        raise SchemaError("topology %s: %s" % (where, exc))


def _read_cpus(section):
    if not isinstance(section, dict):
        raise SchemaError("topology has no 'cpus' section (online/isolated CPU lists)")
    if section.get("online") is None:
        raise SchemaError("topology cpus.online is missing")
    online = _parse_cpus(section["online"], "cpus.online")
    isolated_text = section.get("isolated")
    # None: the facts could not read /sys/devices/system/cpu/isolated; the planner refuses to choose CPUs then.
    unknown = None if isolated_text is not None else ("null" if "isolated" in section else "missing")
    isolated = (_parse_cpus(isolated_text, "cpus.isolated") if isolated_text is not None else frozenset()) & online
    return Cpus(online=online, isolated=isolated, isolated_unknown=unknown, usable=online - isolated)


def _entries(facts, key):
    """The facts' list ``key`` (absent or null: empty); every entry must be a dict."""
    entries = facts.get(key)
    if entries is None:
        return []
    if not isinstance(entries, (list, tuple)):
        raise SchemaError("topology %s %r is a %s, expected a list" % (key, entries, type(entries).__name__))
    for entry in entries:
        if not isinstance(entry, dict):
            raise SchemaError("topology %s entry %r is a %s, expected a dict" % (key, entry, type(entry).__name__))
    return entries


def _cpu_field(what, entry, online):
    """An entry's cpus, a cpulist string (null: none), restricted to online CPUs."""
    text = entry.get("cpus")
    if text is None:
        return frozenset()
    return _parse_cpus(text, "%s cpus" % what) & online


def _read_nodes(facts, online, warnings):
    nodes = {}
    owner = {}
    for entry in _entries(facts, "numa_nodes"):
        if "id" not in entry:
            raise SchemaError("topology numa_nodes entry %r has no id" % (entry,))
        node_id = entry["id"]
        if not _is_int(node_id) or node_id < 0:
            raise SchemaError("topology numa_nodes entry %r: id %r is not a NUMA node id (a whole number >= 0)" % (entry, node_id))
        if node_id in nodes:
            raise SchemaError("topology lists NUMA node %d twice" % node_id)
        memory = entry.get("memory_bytes")
        if memory is not None and (not _is_int(memory) or memory < 0):
            raise SchemaError("topology NUMA node %d memory_bytes %r is not a byte count" % (node_id, memory))
        node_cpus = _cpu_field("NUMA node %d" % node_id, entry, online)
        for cpu in sorted(node_cpus):
            if cpu in owner:
                raise SchemaError("topology puts CPU %d in NUMA nodes %d and %d" % (cpu, owner[cpu], node_id))
            owner[cpu] = node_id
        pools, pool_bytes = _read_hugepages(node_id, entry.get("hugepages"), warnings)
        nodes[node_id] = NumaNode(id=node_id, cpus=node_cpus, memory_bytes=memory, hugepages=pools, hugepages_bytes=pool_bytes)
    if not nodes:
        raise SchemaError("topology lists no NUMA nodes")
    return nodes


def _read_hugepages(node_id, pools, warnings):
    """The node's hugepage pools and the bytes they hold (an unknown count is taken as 0, with a warning)."""
    if pools is None:
        return (), 0
    if not isinstance(pools, dict):
        raise SchemaError("topology NUMA node %d hugepages %r is a %s, expected a dict of '<N>kB' pools" % (node_id, pools, type(pools).__name__))
    result = []
    for size in sorted(pools, key=str):
        text = str(size)
        if not text.endswith("kB") or not text[:-2].isdigit():
            raise SchemaError("topology NUMA node %d hugepages size %r is not '<N>kB'" % (node_id, size))
        pool = pools[size]
        if pool is not None and not isinstance(pool, dict):
            raise SchemaError("topology NUMA node %d hugepages %s %r is not a dict with a 'total' page count" % (node_id, text, pool))
        counts = {}
        for field in ("total", "free"):
            count = pool.get(field) if pool is not None else None
            if count is not None and (not _is_int(count) or count < 0):
                raise SchemaError("topology NUMA node %d hugepages %s %s %r is not a page count" % (node_id, text, field, count))
            counts[field] = count
        if counts["total"] is None:
            warnings.append("NUMA node %d hugepages %s total is unknown; taken as 0 pages" % (node_id, text))
        result.append(HugepagePool(size_kb=int(text[:-2]), total=counts["total"], free=counts["free"]))
    result.sort(key=lambda pool: pool.size_kb)
    return tuple(result), sum(pool.size_kb * 1024 * (pool.total or 0) for pool in result)


def _numa_ref(key, entry, field="numa_node"):
    """An entry's NUMA node reference: an int (any, -1 included, as sysfs writes it) or None."""
    node = entry.get(field)
    if node is not None and not _is_int(node):
        raise SchemaError("topology %s entry %r: %s %r is not a NUMA node id (an integer, or null when unknown)" % (key, entry, field, node))
    return node


def _read_cores(facts, cpus, nodes, cpu_numa, warnings):
    cores, cpu_core = {}, {}

    def add(core_cpus, numa, package):
        for cpu in sorted(core_cpus):
            if cpu in cpu_core:
                raise SchemaError("topology puts CPU %d in two cores" % cpu)
        owners = set(cpu_numa.get(cpu) for cpu in core_cpus)
        if numa is None or numa not in nodes:
            numa = owners.pop() if len(owners) == 1 else None
        core = Core(id=min(core_cpus), cpus=frozenset(core_cpus), numa=numa, package=package or 0,
                    usable=numa is not None and not core_cpus & cpus.isolated)
        cores[core.id] = core
        for cpu in core_cpus:
            cpu_core[cpu] = core.id

    entries = _entries(facts, "cores")
    for entry in entries:
        core_cpus = _cpu_field("cores entry %r" % (entry,), entry, cpus.online)
        numa = _numa_ref("cores", entry)
        package = entry.get("package")
        if package is not None and not _is_int(package):
            raise SchemaError("topology cores entry %r: package %r is not a package id (an integer, or null when unknown)" % (entry, package))
        if core_cpus:
            add(core_cpus, numa, package)
    missing = sorted(cpus.online - frozenset(cpu_core))
    if missing:
        if entries:
            warnings.append("online CPUs %s are in no core of the topology facts; each is treated as a core of its own" % _cpulist.format(missing))
        else:
            warnings.append("the topology facts list no cores; each online CPU is treated as a core of its own")
        for cpu in missing:
            add(frozenset([cpu]), None, None)
    unplaced = sorted(core.id for core in cores.values() if core.numa is None)
    if unplaced:
        warnings.append("cores %s belong to no NUMA node in the facts and are never reserved" % ", ".join(str(core_id) for core_id in unplaced))
    return cores, cpu_core


def _text_field(key, entry, field):
    value = entry.get(field)
    if value is not None and not isinstance(value, str):
        raise SchemaError("topology %s entry %r: %s %r is a %s, expected a string or null" % (key, entry, field, value, type(value).__name__))
    return value


def _local_cpus(label, field, text, warnings):
    """A device's cpulist: canonical, or None when empty, absent or unparsable (with a warning naming it)."""
    if text in (None, ""):
        return None
    try:
        return _cpulist.canonical(text)
    except _cpulist.CpuListError as exc:
        warnings.append("%s: %s: %s; taken as unknown" % (label, field, exc))
        return None


def _findings(key, label, entry):
    """A device's findings (sources that disagree, as the facts recorded them), each naming the device."""
    findings = entry.get("findings")
    if findings is None:
        return []
    if not isinstance(findings, list) or not all(isinstance(finding, str) for finding in findings):
        raise SchemaError("topology %s entry %s: findings %r is not a list of strings" % (key, label, findings))
    return ["%s: %s" % (label, finding) for finding in findings]


def _read_device(kind, entry, nodes, warnings):
    key = kind + "s"
    name, uuid, address, source = (_text_field(key, entry, field) for field in ("name", "uuid", "pci_address", "numa_source"))
    index = entry.get("index")
    if index is not None and not _is_int(index):
        raise SchemaError("topology %s entry %r: index %r is not an integer or null" % (key, entry, index))
    label = "%s %s" % (kind, address or name or index)
    own = []
    numa_node = _numa_ref(key, entry)
    if "sysfs_numa_node" in entry:
        sysfs_node = _numa_ref(key, entry, "sysfs_numa_node")
    else:
        sysfs_node = numa_node if source == "sysfs" else None
    if numa_node is not None and numa_node not in nodes:
        own.append("%s: numa_node %d is not a NUMA node of the facts (nodes: %s); its locality is taken as unknown"
                   % (label, numa_node, ", ".join(str(node_id) for node_id in sorted(nodes))))
    local_cpus = _local_cpus(label, "local_cpus", entry.get("local_cpus"), own)
    vendor = entry.get("vendor_affinity")
    if vendor is not None and not isinstance(vendor, dict):
        raise SchemaError("topology %s entry %s: vendor_affinity %r is a %s, expected a dict with source, numa_node and cpus, or null"
                          % (key, address or name or index, vendor, type(vendor).__name__))
    affinity = None
    if vendor:
        vendor_source = vendor.get("source")
        if vendor_source is not None and not isinstance(vendor_source, str):
            raise SchemaError("topology %s entry %s: vendor_affinity.source %r is not a string" % (key, address or name or index, vendor_source))
        affinity = VendorAffinity(source=vendor_source, numa_node=_numa_ref(key, vendor),
                                  cpus=_local_cpus(label, "vendor_affinity.cpus", vendor.get("cpus"), own))
    own.extend(_findings(key, label, entry))
    warnings.extend(own)
    return Device(kind=kind, name=name, index=index, uuid=uuid, pci_address=address, numa_node=numa_node, numa_source=source,
                  sysfs_numa_node=sysfs_node, local_cpus=local_cpus, vendor_affinity=affinity, warnings=tuple(own),
                  mig_devices=_mig_devices(key, label, entry), links=schema_links.links(key, label, entry, SchemaError),
                  rdma_devices=schema_links.rdma_devices(key, label, entry, SchemaError))


def _mig_devices(key, label, entry):
    """The UUIDs of a GPU's MIG devices (``mig_devices``: a list of mappings with a string ``uuid``, or null)."""
    devices = entry.get("mig_devices")
    if devices is None:
        return ()
    if not isinstance(devices, list) or not all(isinstance(d, dict) and isinstance(d.get("uuid"), str) for d in devices):
        raise SchemaError("topology %s entry %s: mig_devices %r is not a list of mappings each with a uuid string" % (key, label, devices))
    return tuple(d["uuid"] for d in devices)


def kubelet_node(value):
    """The kubelet validator's ``node``: from topology facts, a `Topology`, or the summary itself (checked)."""
    if isinstance(value, Topology):
        topology = value
    elif isinstance(value, dict) and "schema_version" in value:
        topology = read(value, "the kubelet validator")
    elif isinstance(value, dict) and "online_cpus" in value:
        return _checked_summary(value)
    else:
        raise SchemaError("node %r is a %s, expected numa_gate_topology facts (schema_version 1) or a summary with %s"
                          % (value, type(value).__name__, ", ".join(_SUMMARY_KEYS)))
    numa = {node_id: node.memory_bytes or 0 for node_id, node in topology.nodes.items()}
    return {"online_cpus": _cpulist.format(topology.cpus.online), "numa_nodes": numa, "memory_bytes": topology.memory_bytes}


def _checked_summary(summary):
    unknown = sorted(str(key) for key in summary if key not in _SUMMARY_KEYS)
    if unknown:
        raise SchemaError("node summary keys %s are unknown; known keys: %s" % (", ".join(unknown), ", ".join(_SUMMARY_KEYS)))
    online = summary["online_cpus"]
    try:
        online = _cpulist.canonical(online)
    except _cpulist.CpuListError as exc:
        raise SchemaError("node summary online_cpus: %s" % exc)
    nodes = summary.get("numa_nodes")
    if not isinstance(nodes, dict) or not nodes:
        raise SchemaError("node summary numa_nodes %r is not a dict of NUMA node id: memory bytes" % (nodes,))
    numa = {}
    for key, memory in nodes.items():
        text = str(key).strip()
        if isinstance(key, bool) or not text.isdigit():
            raise SchemaError("node summary numa_nodes key %r is not a NUMA node id (a whole number >= 0)" % (key,))
        if int(text) in numa:
            raise SchemaError("node summary numa_nodes names NUMA node %s twice" % text)
        if memory is None:
            memory = 0
        if not _is_int(memory) or memory < 0:
            raise SchemaError("node summary numa_nodes[%s] %r is not a byte count" % (key, memory))
        numa[int(text)] = memory
    total = summary.get("memory_bytes")
    if total is not None and (not _is_int(total) or total < 0):
        raise SchemaError("node summary memory_bytes %r is not a byte count (MemTotal in bytes, or null)" % (total,))
    return {"online_cpus": online, "numa_nodes": dict(sorted(numa.items())), "memory_bytes": total or sum(numa.values())}
