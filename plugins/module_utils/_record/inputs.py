# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The shapes of what the record step is given: its inputs, the verdict's evidence, a record handed to the renderers.

Public: `check_inputs`, `check_evidence`, `check_service`, `check_rollback`, `check_accepted`, `check_record`, `check_fleet`, `check_host`.

The record filters are given what a play hands them: evidence from the verify step, an operator's
attestations, a previous ``acceptance.json`` read back from the artifacts folder (another host's, for the
fleet page). Each is checked against the shape this collection writes before anything reads it, so a
wrong type, a missing key or a deeply nested value is a `RecordError` naming the path
(``inputs.allocations.pods[0].exclusive``) and what it should be, never a KeyError or a TypeError.
Unknown extra keys are left alone (bounded in depth); the keys the record reads are checked.
"""

from __future__ import annotations

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import shape_check as S
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence import inputs as _evidence
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence.composition import allocations as _allocations
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence.composition import canary as _canary
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence.composition import device_path as _device_path
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence.composition import metrics as _metrics
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence.composition import rollback as _rollback
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence.composition import service_objectives as _service
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence.composition import versions as _versions
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence import sources as _sources
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._record.errors import RecordError

_TEXT = S.Nullable(S.SCALAR)
_VERSIONS = _versions.SHAPE

# The evidence sources' shapes are carried by their rows (`Source.shape`, from each composition file); the record's own
# shapes below name them where the record holds them.
METRICS = _metrics.SHAPE
ADMISSION = _canary.ADMISSION
_OBSERVATION = S.Fields("a locality observation", {"source": S.STR, "numa_node": S.Nullable(S.INT)}, {"cpus": S.Nullable(S.STR)})
ORACLE = S.Fields("a locality oracle (locality_oracle)", {}, {
    "devices": S.ListOf(S.Fields("an oracle device", {"kind": S.STR}, {
        "pci_address": S.Nullable(S.STR), "name": S.Nullable(S.STR), "numa_node": S.Nullable(S.INT), "numa_source": S.Nullable(S.STR),
        "observations": S.ListOf(_OBSERVATION), "disagreements": S.ListOf(S.STR)})),
    "unknown_locality": S.ListOf(S.Nullable(S.STR)), "warnings": S.Nullable(S.ListOf(S.STR))})
PLACEMENT = S.Fields("placement evidence", {}, {"findings": S.Nullable(S.ListOf(_evidence.FINDING)), "summary": S.ANY})
SERVICE_STATES = _service.STATES
ROLLBACK_STATES = _rollback.STATES
DEVICE_PATH = _device_path.SHAPE
ALLOCATIONS = _allocations.SHAPE
PLAN = S.Fields("a reservation plan (reservation_plan)", {}, {
    "reserved": S.Nullable(S.Fields("the plan's reserved", {}, {"cpus": S.Nullable(S.STR)})),
    "reasons": S.Nullable(S.ListOf(S.STR)), "warnings": S.Nullable(S.ListOf(S.STR)), "allocatable": S.ANY})
PREVIOUS = S.Fields("a previous acceptance record", {}, {"verdict": S.Nullable(S.Fields("its verdict", {}, {"accepted": S.ANY}))})
# One version as it was observed (_stack.observe): where it was read and when, or why it is unknown.
OBSERVED = S.Fields("an observed version (stack_info's observed)", {"component": S.STR, "state": S.STR, "source": S.STR},
                    {"version": _TEXT, "read_at": S.Nullable(S.STR), "error": S.Nullable(S.STR)})
# The record's own inputs; one more per evidence source, with its row's shape.
_OWN_INPUTS = {"versions": S.Nullable(_VERSIONS), "plan": S.Nullable(PLAN), "slack": S.Nullable(S.MapOf(S.ANY)), "policy": S.Nullable(S.MAPPING),
               "previous": S.ANY, "observed": S.Nullable(S.ListOf(OBSERVED)), "driver_read": S.Nullable(S.MAPPING),
               "node_name": S.Nullable(S.STR), "generated_at": S.Nullable(S.STR)}
_OWN_EVIDENCE = {"versions": S.Nullable(_VERSIONS), "devices": S.Nullable(S.ListOf(S.STR)), "has_gpus": S.ANY, "oracle": S.Nullable(ORACLE),
                 "placement": S.Nullable(PLACEMENT), "admission": S.Nullable(ADMISSION)}


def source_shape(source):
    """The shape of one source's value, as its row carries it (`Source.shape`; null always allowed, no shape: any value)."""
    return S.Nullable(source.shape or S.ANY)


def input_keys(sources=None):
    """The record's input names in order: versions and plan, one per evidence source, then slack, policy, previous, observed, driver_read,
    node_name and generated_at."""
    names = _sources.names(sources)
    own = ("slack", "policy", "previous", "observed", "driver_read", "node_name", "generated_at")
    return ("versions", "plan") + tuple(name for name in names if name not in _OWN_INPUTS) + own


def inputs_shape(sources=None):
    """The record's inputs: its own and one per evidence source (`_evidence.sources.SOURCES`)."""
    by_source = {source.name: source_shape(source) for source in (_sources.SOURCES if sources is None else sources)}
    return S.Fields("the acceptance record's inputs", {}, {key: _OWN_INPUTS.get(key) or by_source[key] for key in input_keys(sources)})


def evidence_shape(sources=None):
    """The verdict's evidence: the record's composition (versions, devices, oracle, placement, admission) and each gated source."""
    gated = {source.name: source_shape(source) for source in (_sources.SOURCES if sources is None else sources) if source.gate}
    return S.Fields("the verdict's evidence", {}, dict(_OWN_EVIDENCE, **gated))


ACCEPTED = S.Fields("the accepted values of a previous record", {}, {"versions": S.Nullable(_VERSIONS), "devices": S.Nullable(S.ListOf(S.STR)),
                                                                     "verdict": _TEXT, "device_path": S.Nullable(_VERSIONS)})

_REASON = S.Fields("a verdict reason", {"criterion": S.STR, "effect": S.STR, "message": S.STR})
_VERDICT = S.Fields("a verdict", {"verdict": S.STR, "reasons": S.ListOf(_REASON)}, {"accepted": S.ANY})
_GPU = S.Fields("a GPU of the record", {key: _TEXT for key in ("index", "uuid", "pci_address", "name", "numa_node", "numa_source", "local_cpus")})
_NIC = S.Fields("a NIC of the record", {key: _TEXT for key in ("name", "driver", "pci_address", "numa_node", "numa_source", "local_cpus")},
                {"rdma_devices": S.Nullable(S.ListOf(S.STR))})
_CORE = S.Fields("a core of the record", {"cpus": S.STR, "core": _TEXT, "package": _TEXT})
_POOL = S.Fields("a huge page pool", {}, {"free": _TEXT, "total": _TEXT})
_NODE = S.Fields("a NUMA node of the record",
                 {"id": S.INT, "cpus": S.STR, "cores": S.ListOf(_CORE), "memory_bytes": S.Nullable(S.COUNT), "hugepages": S.MapOf(_POOL)})
_ROLE_KEYS = ("online", "offline", "isolated", "reserved", "exclusive", "shared", "canary_exclusive", "canary_shared")
_ROLES = S.Fields("the record's CPU roles", dict({key: S.STR for key in _ROLE_KEYS}, reserved_source=S.Nullable(S.STR)))
_RECORD_OBSERVATION = S.Fields("a locality observation", {"source": S.STR, "numa_node": S.Nullable(S.INT), "cpus": S.Nullable(S.STR)})
_LOCALITY = S.Fields("a locality oracle (locality_oracle)", {"devices": S.ListOf(S.Fields("an oracle device", {
    "kind": S.STR, "pci_address": S.Nullable(S.STR), "numa_node": S.Nullable(S.INT), "numa_source": S.Nullable(S.STR),
    "observations": S.ListOf(_RECORD_OBSERVATION), "disagreements": S.ListOf(S.STR)}))}, {"warnings": S.Nullable(S.ListOf(S.STR))})
_CANARY = S.Fields("the record's canary", {"pod": S.Nullable(S.STR), "scope": S.Nullable(S.STR), "cpus": S.Nullable(S.STR),
                                           "exclusive": S.MapOf(S.STR), "shared_cpus": S.Nullable(S.STR), "shared_containers": S.ListOf(S.STR),
                                           "devices": S.ListOf(S.STR)}, {"admission": S.Nullable(ADMISSION), "memory_nodes": S.ANY,
                                                                         "workload": S.Nullable(S.STR), "pods": S.Nullable(S.ListOf(_canary.SUBJECT)),
                                                                         "diff": S.Nullable(S.ListOf(S.STR))})
_RESERVATION = S.Fields("the record's reservation", {}, {"reserved": S.Nullable(S.MAPPING), "reasons": S.Nullable(S.ListOf(S.STR)),
                                                         "warnings": S.Nullable(S.ListOf(S.STR)), "allocatable": S.ANY})
_RECORD_PLACEMENT = S.Fields("the record's placement", {"findings": S.ListOf(_evidence.FINDING)}, {"summary": S.ANY})
_DIFF = S.Fields("a config diff entry", {"key": S.STR, "change": S.STR, "before": S.ANY, "after": S.ANY})
RECORD = S.Fields("an acceptance record (acceptance_record)", {
    "schema_version": S.OneOf(1), "host": S.STR, "generated_at": S.Nullable(S.STR), "mode": S.OneOf("full", "topology"),
    "verdict": _VERDICT, "versions": _VERSIONS,
    "devices": S.Fields("the record's devices", {"gpus": S.ListOf(_GPU), "nics": S.ListOf(_NIC)}),
    "topology": S.Fields("the record's topology", {"numa_nodes": S.ListOf(_NODE)}), "locality": _LOCALITY, "cpu_roles": _ROLES,
    "reservation": S.Nullable(_RESERVATION), "config_diff": S.Nullable(S.ListOf(_DIFF)), "canary": S.Nullable(_CANARY),
    "allocations": S.Nullable(ALLOCATIONS), "placement": S.Nullable(_RECORD_PLACEMENT), "metrics": S.Nullable(METRICS),
    "slack": S.Nullable(S.MapOf(S.ANY)), "attestations": S.MapOf(S.ANY), "warnings": S.ListOf(S.STR)},
    {"device_path": S.Nullable(DEVICE_PATH), "observed": S.Nullable(S.ListOf(OBSERVED)), "node": S.Nullable(S.STR)})
FLEET_RECORD = S.Fields("an acceptance record (acceptance_record)", {"host": S.STR, "mode": S.STR, "verdict": _VERDICT}, {"node": S.Nullable(S.STR)})


def check_inputs(inputs):
    return S.check(inputs, S.Nullable(inputs_shape()), "inputs", RecordError) or {}


def check_evidence(evidence):
    return S.check(evidence, S.Nullable(evidence_shape()), "evidence", RecordError)


def check_service(service):
    """The service_comparison result the verdict reads: its state, its reasons (strings), its repetitions per side."""
    return S.check(service, _service.RESULT, "evidence.service_objectives", RecordError)


def check_rollback(rollback):
    """The rollback evidence the verdict reads: the rehearsal_info module's result (state, rehearsed, the transitions it names)."""
    return S.check(rollback, _rollback.RESULT, "evidence.rollback", RecordError)


def check_accepted(accepted):
    return S.check(accepted, S.Nullable(ACCEPTED), "accepted", RecordError)


def check_host(host):
    if not isinstance(host, str) or not host:
        raise RecordError("acceptance record: host must be the inventory host name (a non-empty string), got %r" % (host,), field="host")
    return host


def check_record(record):
    """A record for the renderers: the shape `record.build` writes (schema_version 1)."""
    return S.check(record, RECORD, "record", RecordError)


def check_fleet(records):
    """Records for the fleet page: a list, each with host, mode and verdict; a bad one is named by its index and host."""
    S.check(records, S.LIST, "records", RecordError)
    for index, record in enumerate(records):
        host = record.get("host") if isinstance(record, dict) else None
        S.check(record, FLEET_RECORD, "records[%d]%s" % (index, " (host %r)" % host if isinstance(host, str) else ""), RecordError)
    return records
