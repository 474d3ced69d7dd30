# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The record's sections as plain rows, the one reading that the Markdown and the HTML page share (pure).

Public: `sections(record)` -> [(title, headers, rows)], every cell plain text (the renderers escape it); `grid`,
`GRID_STATES`, `GRID_TITLE`.

The first section is the acceptance grid (`grid`): one row per criterion the verdict has
(`_record.criteria.rows`, in its order), its state and one line of the evidence behind it, so the
verdict reads at a glance. The state is the strongest effect among the criterion's reasons:
``held`` (no reason against it: adopt, info or none), ``restricted``, ``revalidate`` or
``deferred``; ``not asked`` when its gate was closed for this record (a ``canary`` row on a
record of the topology only, a ``topology`` row on one with canary evidence). The evidence line
is the first reason of that effect (with how many more there are), or what the criterion read.

The service comparison's sections (`service_table`: its summary, a table per latency metric, the
runs) follow the kubelet metrics; the attestations row of ``service_objectives`` names its state and
points there rather than repeating the comparison as JSON.

An evidence source the record holds under its own key (`_evidence.sources`, ``record: "key"``) that
has no reader here gets a section of its own before the attestations, titled by its ``title``: its
value's items as rows. The sources with a reader are listed in `_READERS_BY_SOURCE`.
"""

from __future__ import annotations

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence import sources as _sources
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import escape
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._service_comparison.pages import table as service_table
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._record import criteria as _criteria
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._record.errors import RecordError

_T = escape.text


def _versions(record):
    """Each version with where it was read and when (the record's ``observed``); a record written before it, the map alone."""
    if record.get("observed") is None:
        return ["component", "version"], [[key, _T(value)] for key, value in sorted(record["versions"].items())]
    return ["component", "version", "state", "source", "read at (UTC)", "error"], [
        [entry["component"], "not found" if entry["state"] == "not found" else _T(entry.get("version")), entry["state"], entry["source"],
         _T(entry.get("read_at")) if entry.get("read_at") else "not dated", entry.get("error") or "-"] for entry in record["observed"]]


_IDENTITY_WORDS = (("kfd_node", "KFD node"), ("unique_id", "KFD unique_id"), ("device_id", "device"), ("hive_id", "XGMI hive"))


def _gpu_identities(gpu):
    """A GPU's identities beyond its UUID, its partition mode and partitions, in one cell ('-' where the vendor gives none)."""
    found = gpu.get("identities") or {}
    words = ["%s %s" % (name, _T(found[key])) for key, name in _IDENTITY_WORDS if found.get(key) is not None]
    mode = gpu.get("partition_mode")
    if mode:
        words.append("partition mode compute %s, memory %s" % (_T(mode.get("compute") or "unknown"), _T(mode.get("memory") or "unknown")))
    parts = gpu.get("partitions") or []
    if parts:
        words.append("%d partitions (KFD nodes %s)" % (len(parts), ", ".join(_T(part.get("kfd_node")) for part in parts)))
    return "; ".join(words) or "-"


def _devices(record):
    rows = [["GPU", _T(g.get("vendor")), _T(g["index"]), _T(g["uuid"]), _T(g["pci_address"]), _T(g["name"]), _T(g["numa_node"]), _T(g["numa_source"]),
             _T(g["local_cpus"]), _gpu_identities(g)] for g in record["devices"]["gpus"]]
    rows += [["NIC", "-", _T(n["name"]), _T(n["driver"]), _T(n["pci_address"]), ", ".join(n.get("rdma_devices") or []) or "-", _T(n["numa_node"]),
              _T(n["numa_source"]), _T(n["local_cpus"]), "-"] for n in record["devices"]["nics"]]
    return ["kind", "vendor", "index / name", "UUID / driver", "PCI address", "name / RDMA", "NUMA node", "source", "local CPUs",
            "identities, partitions"], rows


def _locality(record):
    rows = []
    for device in record["locality"]["devices"]:
        observed = "; ".join("%s: node %s, CPUs %s" % (o["source"], _T(o["numa_node"]), _T(o["cpus"])) for o in device["observations"])
        rows.append([device["kind"], _T(device["pci_address"]), _T(device["numa_node"]), _T(device["numa_source"]), observed,
                     "; ".join(device["disagreements"]) or "none"])
    return ["kind", "PCI address", "NUMA node", "resolved from", "observations", "disagreements"], rows


def _topology(record):
    rows = [[_T(n["id"]), n["cpus"] or "none", str(len(n["cores"])), escape.size(n["memory_bytes"]),
             ", ".join("%s: %s of %s free" % (k, _T(v.get("free")), _T(v.get("total"))) for k, v in sorted(n["hugepages"].items())) or "-"]
            for n in record["topology"]["numa_nodes"]]
    return ["NUMA node", "CPUs", "cores", "memory", "huge pages"], rows


def _roles(record):
    roles = record["cpu_roles"]
    keys = ("online", "reserved", "exclusive", "shared", "canary_exclusive", "canary_shared", "isolated", "offline")
    return ["role", "CPUs"], [[key, roles[key] or "none"] for key in keys] + [["reserved from", _T(roles["reserved_source"])]]


def _reservation(record):
    plan = record["reservation"]
    if not plan:
        return None
    reserved = plan.get("reserved") or {}
    rows = [["reserved CPUs", _T(reserved.get("cpus"))], ["reserved cores", _T(reserved.get("cores"))],
            ["reserved CPUs by NUMA node", _T(reserved.get("by_numa"))], ["reserved memory by NUMA node (bytes)", _T(reserved.get("memory_bytes"))]]
    rows += [["reason", reason] for reason in plan.get("reasons") or []]
    rows += [["warning", warning] for warning in plan.get("warnings") or []]
    return ["item", "value"], rows


def _config_diff(record):
    if record["config_diff"] is None:
        return None
    return ["key", "change", "baseline", "now"], [[d["key"], d["change"], _T(d["before"]), _T(d["after"])] for d in record["config_diff"]]


def _canary(record):
    canary = record["canary"]
    if not canary:
        return None
    admission = canary.get("admission") or {}
    rows = [["pod", _T(canary["pod"])], ["scope", _T(canary["scope"])], ["pod CPUs", _T(canary["cpus"])],
            ["exclusive", "; ".join("%s: %s" % item for item in sorted(canary["exclusive"].items())) or "none"],
            ["shared pool", _T(canary["shared_cpus"])], ["shared containers", ", ".join(canary["shared_containers"]) or "none"],
            ["devices", ", ".join(canary["devices"]) or "none"], ["admitted", _T(admission.get("admitted"))]]
    rows += [["admission failure", "%s layer, %s: %s" % (_T(f.get("layer")), _T(f.get("reason")), _T(f.get("message")))]
             for f in admission.get("failures") or []]
    if canary.get("workload"):
        rows.append(["workload", _T(canary["workload"])])
        rows += [["pod %s" % _T(p.get("pod")), "controller %s, node %s, uid %s, GPU requested %s" % (
            _T(p.get("controller")), _T(p.get("node")), _T(p.get("uid")),
            ", ".join("%s: %s" % (_T(k), _T(v)) for k, v in sorted((p.get("gpu_requests") or {}).items())) or "none")] for p in canary.get("pods") or []]
        rows += [["manifest diff", _T(line)] for line in canary.get("diff") or []]
    return ["item", "value"], rows


def _allocations(record):
    allocations = record["allocations"]
    if not allocations:
        return None
    rows = [[p["pod"], p["scope"], _T(p["pod_cpus"]), "; ".join("%s: %s" % item for item in sorted(p["exclusive"].items())) or "none",
             _T(p["shared_cpus"]), _T(p["shared_pool"])] for p in allocations["pods"]]
    node = allocations["node"]
    rows.append(["(node)", allocations["scope"], node["exclusive_cpus"] or "none", "%d exclusive CPUs" % node["exclusive_count"],
                 node["shared_pool"] or "none", "node"])
    return ["pod", "scope", "pod CPUs", "exclusive containers", "shared CPUs", "shared pool"], rows


def _findings(record):
    placement = record["placement"]
    if not placement:
        return None
    return ["pod", "container", "check", "result", "message"], [
        [_T(f.get("pod")), _T(f.get("container")), f["check"], f["result"], f["message"]] for f in placement["findings"]]


def _device_path(record):
    """The device path (device_path_info): each plugin's version, then each finding."""
    found = record.get("device_path")
    if found is None:
        return None
    rows = [["read", "failed", _T(found.get("node")), found["error"]]] if found.get("error") else []
    rows += [["version", "", key, _T(value)] for key, value in sorted((found.get("versions") or {}).items())]
    rows += [[f["check"], f["result"], _T(f.get("subject")), f["message"]] for f in found["findings"]]
    return ["check", "result", "subject", "detail"], rows


def _metrics(record):
    metrics = record["metrics"]
    if metrics is None:
        return None
    entries = metrics.get("samples", []) if isinstance(metrics, dict) else metrics
    return ["series", "labels", "type", "value", "increase", "rate per second"], [
        [m.get("name"), _T(m.get("labels") or {}), _T(m.get("type")), _T(m.get("value", m.get("second"))), _T(m.get("increase")),
         _T(m.get("rate_per_second"))] for m in entries]


def _slack(record):
    slack = record["slack"]
    if not slack:
        return None
    return ["item", "value"], [[key, _T(value)] for key, value in sorted(slack.items())]


def _rehearsed_transition(label, transition):
    duration = transition.get("duration_s")
    return "%s %s%s" % (label, transition.get("transition"), " (%g s)" % duration if isinstance(duration, (int, float)) else "")


def _rollback_line(value):
    """One line for the rollback rehearsal: its state, the transitions it names, what did not come back or went wrong."""
    labels = (("enable", "enable"), ("rollback", "rollback"), ("re_enable", "re-enable"))
    parts = [_rehearsed_transition(label, value[key]) for key, label in labels if isinstance(value.get(key), dict)]
    if value.get("missing"):
        parts.append("not back: " + ", ".join(str(name) for name in value["missing"]))
    if value.get("error"):
        parts.append("error: %s" % value["error"])
    return "%s (observed)%s" % (value["state"], ": " + "; ".join(parts) if parts else "")


def _attestation(key, value):
    if key == "service_objectives" and isinstance(value, dict) and "state" in value:
        return "%s (measured: see %s)" % (_T(value["state"]), service_table.SUMMARY_TITLE)
    if key == "rollback" and isinstance(value, dict) and isinstance(value.get("state"), str):
        return _rollback_line(value)
    return _T(value)


def _attestations(record):
    return ["item", "value"], [[key, _attestation(key, value)] for key, value in sorted(record["attestations"].items())]


def _warnings(record):
    found = list(record["warnings"]) + list(record["locality"].get("warnings") or [])
    return (["warning"], [[w] for w in found]) if found else None


GRID_TITLE = "Acceptance grid"
GRID_STATES = ("held", "restricted", "revalidate", "deferred", "not asked")
# The state a criterion's strongest effect gives, and the order of strength (the verdict's: defer > revalidate > restrict > adopt).
_STATE_OF = {"info": "held", "adopt": "held", "restrict": "restricted", "revalidate": "revalidate", "defer": "deferred"}
_STRENGTH = ("info", "adopt", "restrict", "revalidate", "defer")
_GATE_CLOSED = {"canary": "not asked: asked only with canary evidence, and this record holds the node's topology only",
                "topology": "not asked: asked only without canary evidence, and this record has it"}


def _given(record):
    """{evidence source name: its value in the record}, for the sources the record keeps (under their key or as attestations)."""
    attestations = record.get("attestations") or {}
    return {name: record.get(name, attestations.get(name)) for name in _sources.names(_sources.SOURCES)}


def _grid_row(name, gate, reads, reasons, canary, given=None):
    """[criterion, state, evidence] of one criterion; ``given``: the record's sources, when all ``reads`` are sources."""
    if gate == ("topology" if canary else "canary"):
        return [name, "not asked", _GATE_CLOSED[gate]]
    if not reasons:
        if given is not None and reads and not any(given.get(read) is not None for read in reads):
            # Every source it reads is null in this record (not asked, such as in check mode): it decided nothing.
            return [name, "not asked", "not asked: %s not given in this record (null), so it decided nothing" % ", ".join(reads)]
        return [name, "held", "no reason against it in what it read (%s)" % (", ".join(reads) or "nothing")]
    strongest = max((r["effect"] for r in reasons), key=_STRENGTH.index)
    chosen = [r["message"] for r in reasons if r["effect"] == strongest]
    more = len(reasons) - 1
    return [name, _STATE_OF[strongest], "%s%s" % (chosen[0], " (and %d more reason%s below)" % (more, "" if more == 1 else "s") if more else "")]


def grid(record):
    """[[criterion, state, evidence]]: every criterion of the verdict, in its order (see the module docstring)."""
    reasons = [r for r in record["verdict"]["reasons"] if r.get("effect") in _STATE_OF]
    canary = record["placement"] is not None
    given = _given(record)
    rows, named = [], set()
    for row in _criteria.rows():
        if row.name in named:
            continue
        named.add(row.name)
        sourced = all(read in given for read in row.reads)
        rows.append(_grid_row(row.name, row.gate, row.reads, [r for r in reasons if r["criterion"] == row.name], canary, given if sourced else None))
    # A reason whose criterion is no row now (a record written by another version) still shows.
    for name in sorted(set(r["criterion"] for r in reasons) - named):
        rows.append(_grid_row(name, "always", (), [r for r in reasons if r["criterion"] == name], canary))
    return rows


def _grid(record):
    return ["criterion", "state", "evidence"], grid(record)


def _reasons(record):
    return ["criterion", "effect", "reason"], [[r["criterion"], r["effect"], r["message"]] for r in record["verdict"]["reasons"]]


def _source(name):
    """A section for a source with no reader of its own: a mapping's items, a list's entries, or the value."""
    def read(record):
        found = record.get(name)
        if found is None:
            return None
        if isinstance(found, dict):
            return ["item", "value"], [[str(key), _T(value)] for key, value in sorted(found.items(), key=lambda item: str(item[0]))]
        if isinstance(found, list):
            return ["value"], [[_T(value)] for value in found]
        return ["value"], [[_T(found)]]
    return read


_ORDER = ((GRID_TITLE, _grid), ("Verdict reasons", _reasons), ("Versions", _versions), ("Device identities", _devices), ("NUMA nodes", _topology),
          ("Locality oracle", _locality), ("CPU roles", _roles), ("Planned reservation", _reservation), ("Config diff from the baseline", _config_diff),
          ("Canary", _canary), ("Reconciled allocations", _allocations), ("Placement evidence", _findings), ("Device path", _device_path),
          ("Kubelet metrics", _metrics),
          ("Reservation slack", _slack), ("Attestations", _attestations), ("Warnings", _warnings))


_READERS_BY_SOURCE = {"allocations": _allocations, "metrics": _metrics, "device_path": _device_path}


def _order():
    others = tuple((source.title or source.name, _source(source.name)) for source in _sources.placements("key")
                   if source.name not in _READERS_BY_SOURCE)
    return _ORDER[:-2] + others + _ORDER[-2:]


def sections(record):
    """[(title, headers, rows)] in page order; a section without evidence is (title, None, None)."""
    out = []
    for title, reader in _order():
        found = reader(record)
        out.append((title, None, None) if found is None else (title, found[0], found[1]))
        if reader is _metrics:
            out += service_table.sections(record, RecordError)
    return out
