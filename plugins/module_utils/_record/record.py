# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The acceptance record of one node (devices, locality, configuration, allocations, placement), assembled from the evidence (pure).

Public: `build`, `SCHEMA_VERSION`, `input_keys`, `cpu_roles`, `device_identities`.

`build(topology, host, inputs)` returns a JSON-ready dict (documented in docs/acceptance-record.md):
versions, device identities, the node's topology, the locality oracle with its disagreements, the
CPU roles (reserved, exclusive, shared), the planned reservation, the config diff from the
baseline, the reconciled allocations, the placement findings, the canary, the metrics, the
reservation slack, the operator's attestations and the verdict with its reasons. Without
allocations, findings and a canary the record is ``mode: topology`` (what `make plan` writes): the same
shape, the evidence fields null, and a verdict of defer that says so. Nothing here reads a clock
or a file: ``generated_at`` is given, or null.

The evidence inputs are the sources of `_evidence.sources.SOURCES`, iterated, not listed here: a
source is shown under its name (``record: "key"``) or among the attestations (``"attestation"``),
its presence makes the record full when it is canary evidence (``full``), and the verdict is given
every gated one. The record's own inputs are versions, plan, slack, policy, previous, observed, driver_read, node_name (the
Kubernetes Node's name, the record's ``node``: the fleet page matches the pool's Nodes by it) and generated_at.

``observed`` (stack_info's entries, each version with where it was read and when) and ``driver_read`` (the node's reads
of the GPU driver, `_stack.observe.driver`) are the record's ``observed`` list, with the kernel of the facts and every
given version not observed (state ``given``, undated). An observed version wins over a given one; a component found with
an unknown version, or whose read failed, is unknown (null) unless one was given; one not found has no key unless given.
"""

from __future__ import annotations

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import cpulist as _cpulist
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence import sources as _sources
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._plan import locality
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._record import configdiff
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._record import inputs as shapes
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._record import service_slack
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._record import verdict as _verdict
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._record.errors import RecordError
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._stack import observe as _observe

SCHEMA_VERSION = 1
_GPU_KEYS = ("index", "vendor", "uuid", "pci_address", "name", "numa_node", "numa_source", "sysfs_numa_node", "local_cpus")
# What a GPU's vendor gives beyond the UUID, the same keys for every vendor (docs/acceptance-record.md, "devices").
_AMD_IDENTITIES = ("kfd_node", "unique_id", "device_id", "hive_id")
_NIC_KEYS = ("name", "pci_address", "driver", "numa_node", "numa_source", "sysfs_numa_node", "local_cpus", "rdma_devices", "virtual_function")


def input_keys():
    """The record's inputs: its own and one per evidence source (`shapes.input_keys`)."""
    return shapes.input_keys()


def _inputs(inputs):
    known = input_keys()
    if inputs is not None and not isinstance(inputs, dict):
        raise RecordError("acceptance record: inputs must be a mapping of %s, got %s" % (", ".join(known), type(inputs).__name__))
    inputs = dict(inputs or {})
    unknown = sorted(set(inputs) - set(known), key=str)
    if unknown:
        raise RecordError("acceptance record: unknown inputs %s (known: %s)" % (", ".join(str(key) for key in unknown), ", ".join(known)),
                          keys=unknown)
    return shapes.check_inputs(inputs)


def device_identities(topology):
    """One string per GPU and NIC: kind, UUID (GPUs) or interface name (NICs), PCI address; what a revalidation compares."""
    found = ["gpu %s %s" % (gpu.get("uuid") or "no-uuid", gpu.get("pci_address")) for gpu in topology.get("gpus") or []]
    found += ["nic %s %s" % (nic.get("name"), nic.get("pci_address")) for nic in topology.get("nics") or []]
    return sorted(found)


def _gpu(gpu):
    """A GPU of the record: its facts' keys, then its identities, partition mode and partitions (AMD's from KFD; none known for others)."""
    entry = {key: gpu.get(key) for key in _GPU_KEYS}
    amd = gpu.get("amd") if isinstance(gpu.get("amd"), dict) else None
    entry["identities"] = {key: amd.get(key) for key in _AMD_IDENTITIES} if amd else {}
    modes = (amd.get("compute_partition"), amd.get("memory_partition")) if amd else (None, None)
    entry["partition_mode"] = {"compute": modes[0], "memory": modes[1]} if any(modes) else None
    # One partition is the whole GPU (SPX, or no partition files): no partitions to draw.
    parts = (amd.get("partitions") or []) if amd else []
    entry["partitions"] = [{"id": part.get("id"), "kfd_node": part.get("kfd_node"), "render_minor": part.get("render_minor")}
                           for part in parts] if len(parts) > 1 else []
    return entry


def _topology(topology):
    cores_by_node = {}
    for core in topology.get("cores") or []:
        cores_by_node.setdefault(core.get("numa_node"), []).append({"package": core.get("package"), "core": core.get("core"), "cpus": core["cpus"]})
    nodes = []
    for node in topology.get("numa_nodes") or []:
        nodes.append({"id": node["id"], "cpus": node.get("cpus", ""), "memory_bytes": node.get("memory_bytes"),
                      "hugepages": node.get("hugepages") or {}, "distances": node.get("distances") or {},
                      "cores": cores_by_node.get(node["id"], [])})
    known = set(node["id"] for node in nodes)
    cpus = topology.get("cpus") or {}
    return {"cpus": {key: cpus.get(key) for key in ("online", "offline", "isolated", "smt_active", "threads_per_core", "logical", "cores", "packages")},
            "memory_bytes": topology.get("memory_bytes"), "numa_nodes": nodes,
            "cores_without_node": [core for node_id, cores in sorted(cores_by_node.items(), key=lambda item: str(item[0]))
                                   if node_id not in known for core in cores]}


def _reserved(plan, target_config):
    if plan and (plan.get("reserved") or {}).get("cpus") is not None:
        return plan["reserved"]["cpus"], "plan"
    if target_config and target_config.get("reservedSystemCPUs") is not None:
        return target_config["reservedSystemCPUs"], "reservedSystemCPUs"
    return "", None


_GIVEN = "given to the record (acceptance_record_versions, or the evidence's versions), not observed here"


def _observed(inputs, topology):
    """(versions, observed): the record's versions map and the list saying where and when each was read (module docstring)."""
    given = dict(inputs.get("versions") or {})
    found = [dict(entry) for entry in inputs.get("observed") or []]
    driver = _observe.driver(inputs.get("driver_read"))
    if driver is not None:
        found.append(driver)
    if topology.get("kernel"):
        found.append({"component": "kernel", "version": topology["kernel"], "state": "found", "source": "the node's facts in this run "
                      "(numa_gate_topology.kernel)", "read_at": inputs.get("generated_at"), "error": None})
    versions = dict({"kubelet": None, "kernel": None, "driver": None, "node_image": None}, **given)
    for entry in found:
        component = entry["component"]
        if entry["state"] == "found" and entry.get("version") is not None:
            versions[component] = entry["version"]  # observed: it wins over a given one
        elif entry["state"] != "not found" and component not in given:
            versions[component] = None  # installed with an unknown version, or its read failed: unknown, never absent
    # A given version the record keeps (nothing observed one): said as given, beside a read that failed or found none.
    seen = set(entry["component"] for entry in found if entry["state"] == "found" and entry.get("version") is not None)
    found += [{"component": key, "version": value, "state": "given", "source": _GIVEN, "read_at": None, "error": None}
              for key, value in sorted(given.items()) if key not in seen]
    return versions, found


def _canary(inputs):
    canary = inputs.get("canary") or {}
    pods = (inputs.get("allocations") or {}).get("pods") or []
    pod = next((p for p in pods if p["pod"] == canary.get("pod")), pods[0] if len(pods) == 1 and not canary.get("pod") else None)
    if pod is None and not canary:
        return None
    out = {"pod": canary.get("pod") or (pod or {}).get("pod"), "admission": canary.get("admission"), "scope": None, "cpus": None,
           "exclusive": {}, "shared_cpus": None, "shared_containers": [], "devices": [], "memory_nodes": canary.get("memory_nodes")}
    if canary.get("workload"):  # a workload through its controller: its pods, their controller and GPU requests, the reviewed diff
        out.update(workload=canary["workload"], pods=list(canary.get("pods") or []), diff=list(canary.get("diff") or []))
    if pod is not None:
        cpus = pod["pod_cpus"] if pod["pod_cpus"] is not None else _cpulist.union(*pod["exclusive"].values())
        out.update(scope=pod["scope"], cpus=cpus, exclusive=dict(pod["exclusive"]),
                   shared_cpus=pod["shared_cpus"] if pod["shared_pool"] == "pod" else None, shared_containers=list(pod["shared_containers"]),
                   devices=sorted(set(d["pci_address"] or d["id"] for devices in pod.get("devices", {}).values() for d in devices)))
    return out


def _canary_findings(inputs, canary):
    """An admitted canary that PodResources does not list is unknown, never a pass by absence."""
    if not canary or not (canary.get("admission") or {}).get("admitted") or canary.get("cpus") is not None:
        return []
    return [{"pod": canary["pod"], "container": None, "check": "canary_allocation", "result": "unknown", "expected": canary["pod"], "observed": None,
             "sources": {"expected": "the canary", "observed": "PodResources List"},
             "message": "pod %s: admitted, but PodResources %s" % (canary["pod"], "does not list it" if inputs.get("allocations") else "was not read")}]


def cpu_roles(topology, reserved, allocations, canary):
    """{"online", "offline", "isolated", "reserved", "exclusive", "shared", "canary_exclusive", "canary_shared", "reserved_source"}, cpulists."""
    cpus = topology.get("cpus") or {}
    online = _cpulist.canonical(cpus.get("online") or "")
    reserved = _cpulist.intersection(_cpulist.canonical(reserved or ""), online)
    exclusive = _cpulist.canonical(((allocations or {}).get("node") or {}).get("exclusive_cpus") or "")
    canary = canary or {}
    canary_exclusive = _cpulist.union(*canary["exclusive"].values()) if canary.get("exclusive") else ""
    return {"online": online, "offline": _cpulist.canonical(cpus.get("offline") or ""), "isolated": _cpulist.canonical(cpus.get("isolated") or ""),
            "reserved": reserved, "exclusive": exclusive, "shared": _cpulist.difference(online, reserved, exclusive),
            "canary_exclusive": canary_exclusive, "canary_shared": _cpulist.canonical(canary.get("shared_cpus") or "")}


def _summary(findings):
    counts = {"agree": 0, "disagree": 0, "unknown": 0}
    for finding in findings:
        counts[finding.get("result")] = counts.get(finding.get("result"), 0) + 1
    return counts


def _accepted(previous):
    if not previous:
        return None
    if not isinstance(previous, dict) or previous.get("schema_version") != SCHEMA_VERSION:
        raise RecordError("acceptance record: the previous record has schema_version %r; this collection reads %d"
                          % ((previous or {}).get("schema_version") if isinstance(previous, dict) else previous, SCHEMA_VERSION))
    previous = shapes.S.check(previous, shapes.PREVIOUS, "inputs.previous", RecordError)
    return (previous.get("verdict") or {}).get("accepted")


def build(topology, host, inputs=None):
    """The acceptance record of ``host`` (see the module docstring and docs/acceptance-record.md)."""
    inputs = _inputs(inputs)
    shapes.check_host(host)
    if not isinstance(topology, dict):
        raise RecordError("acceptance record: the topology facts must be a mapping, got %s" % type(topology).__name__)
    oracle = locality.build(topology)  # reads the facts through _facts.schema; a LocalityError names what is wrong
    versions, observed = _observed(inputs, topology)
    allocations = inputs.get("allocations")
    full = any(inputs.get(source.name) is not None for source in _sources.SOURCES if source.full)
    canary = _canary(inputs)
    findings = list(inputs.get("findings") or []) + list((allocations or {}).get("findings") or []) + _canary_findings(inputs, canary)
    reserved, reserved_source = _reserved(inputs.get("plan"), inputs.get("target_config"))
    baseline, target = inputs.get("baseline_config"), inputs.get("target_config")
    plan = inputs.get("plan")
    evidence = {"versions": versions, "devices": device_identities(topology), "has_gpus": bool(topology.get("gpus")), "oracle": oracle,
                "placement": {"findings": findings} if full else None, "admission": (canary or {}).get("admission")}
    evidence.update((source.name, inputs.get(source.name)) for source in _sources.SOURCES if source.gate)
    built = {
        "schema_version": SCHEMA_VERSION,
        "host": host,
        "node": inputs.get("node_name"),
        "generated_at": inputs.get("generated_at"),
        "mode": "full" if full else "topology",
        "versions": versions,
        "observed": observed,
        "devices": {"gpus": [_gpu(gpu) for gpu in topology.get("gpus") or []],
                    "nics": [{key: nic.get(key) for key in _NIC_KEYS} for nic in topology.get("nics") or []]},
        "topology": _topology(topology),
        "locality": oracle,
        "cpu_roles": dict(cpu_roles(topology, reserved, allocations, canary), reserved_source=reserved_source),
        "reservation": {key: plan.get(key) for key in ("reserved", "allocatable", "reasons", "warnings")} if plan else None,
        "config_diff": configdiff.diff(baseline, target) if baseline is not None and target is not None else None,
        "placement": {"findings": findings, "summary": _summary(findings)} if full else None,
        "canary": canary,
        "slack": service_slack.check(inputs.get("slack"), topology),
        "attestations": {source.name: inputs.get(source.name) for source in _sources.placements("attestation")},
        "verdict": _verdict.decide(evidence, inputs.get("policy"), _accepted(inputs.get("previous"))),
        "warnings": list(topology.get("warnings") or []),
    }
    built.update((source.name, inputs.get(source.name)) for source in _sources.placements("key"))
    return built
