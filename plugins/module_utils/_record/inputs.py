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
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence import sources as _sources
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._record.errors import RecordError

_TEXT = S.Nullable(S.SCALAR)
_VERSIONS = S.MapOf(_TEXT)
_LABELS = S.Nullable(S.MapOf(S.SCALAR))


class _Metrics(object):
    """Kubelet metrics as the record takes them: a list of rates (metrics_rates) or {"samples": [...]} (kubelet_metrics_info)."""

    what = "a list of rates or a mapping with samples"
    _ENTRY = S.Fields("a metric sample or rate", {}, {"name": S.Nullable(S.STR), "labels": _LABELS, "type": S.Nullable(S.STR),
                                                      "value": S.Nullable(S.NUMBER), "second": S.Nullable(S.NUMBER), "first": S.Nullable(S.NUMBER),
                                                      "increase": S.Nullable(S.NUMBER), "rate_per_second": S.Nullable(S.NUMBER)})

    def check(self, value, where, error):
        if isinstance(value, dict):
            if "samples" not in value:
                raise error("%s has no samples: kubelet metrics are a list of rates (metrics_rates) or {\"samples\": [...]} "
                            "(kubelet_metrics_info)" % where, field=where)
            return dict(value, samples=S.ListOf(self._ENTRY).check(value["samples"], where + ".samples", error))
        return S.ListOf(self._ENTRY).check(value, where, error)


METRICS = _Metrics()
FAILURE = S.Fields("an admission failure", {}, {"layer": _TEXT, "reason": _TEXT, "message": _TEXT})
ADMISSION = S.Fields("a canary admission (canary_admission)", {}, {"admitted": S.Nullable(S.BOOL), "failures": S.ListOf(FAILURE)})
_OBSERVATION = S.Fields("a locality observation", {"source": S.STR, "numa_node": S.Nullable(S.INT)}, {"cpus": S.Nullable(S.STR)})
ORACLE = S.Fields("a locality oracle (locality_oracle)", {}, {
    "devices": S.ListOf(S.Fields("an oracle device", {"kind": S.STR}, {
        "pci_address": S.Nullable(S.STR), "name": S.Nullable(S.STR), "numa_node": S.Nullable(S.INT), "numa_source": S.Nullable(S.STR),
        "observations": S.ListOf(_OBSERVATION), "disagreements": S.ListOf(S.STR)})),
    "unknown_locality": S.ListOf(S.Nullable(S.STR)), "warnings": S.Nullable(S.ListOf(S.STR))})
PLACEMENT = S.Fields("placement evidence", {}, {"findings": S.Nullable(S.ListOf(_evidence.FINDING)), "summary": S.ANY})
CONFIGURATION = S.Fields("a configuration attestation", {}, {"verified": S.Nullable(S.BOOL), "message": _TEXT})
SERVICE = S.ANY  # the service comparison's result: the verdict's own check names what it must be (then `check_service`)
SERVICE_STATES = ("held", "not held", "incomparable")
SERVICE_RESULT = S.Fields("the service_comparison filter's result", {"state": S.OneOf(*SERVICE_STATES)}, {
    "reasons": S.Nullable(S.ListOf(S.STR)),
    "repetitions": S.Nullable(S.Fields("repetitions per side", {}, {"baseline": S.Nullable(S.COUNT), "canary": S.Nullable(S.COUNT)}))})
# _rehearsal.evidence.STATES, and "not read": the rehearsal_info read failed (_evidence/composition/rollback.py)
ROLLBACK_STATES = ("rehearsed", "not reconciled", "unchecked", "not converged", "not rehearsed", "not read")
_REHEARSED_TRANSITION = S.Nullable(S.Fields("a transition of the rehearsal", {"transition": S.STR, "target": S.Nullable(S.STR)}, {
    "outcome": S.Nullable(S.STR), "opened": S.Nullable(S.STR), "closed": S.Nullable(S.STR), "duration_s": S.Nullable(S.NUMBER),
    "failed_steps": S.Nullable(S.ListOf(S.STR))}))
ROLLBACK = S.ANY  # the rehearsal_info result's rollback: the verdict's own check names what it must be (then `check_rollback`)
ROLLBACK_RESULT = S.Fields("the rehearsal_info module's rollback evidence", {"state": S.OneOf(*ROLLBACK_STATES), "rehearsed": S.BOOL}, {
    "node": _TEXT, "enable": _REHEARSED_TRANSITION, "rollback": _REHEARSED_TRANSITION, "re_enable": _REHEARSED_TRANSITION,
    "check": S.Nullable(S.Fields("the check kept after the rollback", {}, {
        "workloads": S.Nullable(S.ListOf(S.Fields("a workload of the check", {"owner": S.STR}, {"state": _TEXT}))),
        "observed_at": _TEXT, "waited_s": S.Nullable(S.NUMBER), "reconciled": S.Nullable(S.BOOL)})),
    "missing": S.Nullable(S.ListOf(S.STR)), "problems": S.Nullable(S.ListOf(S.STR)), "transitions": S.Nullable(S.ListOf(S.STR)),
    "notes": S.Nullable(S.ListOf(S.STR)), "error": _TEXT})
DEVICE_PATH = S.Fields("the device path (device_path_info)", {"findings": S.ListOf(_evidence.FINDING), "versions": _VERSIONS},
                       {"summary": S.ANY, "node": _TEXT, "error": S.Nullable(S.STR)})
ALLOCATIONS = S.Fields("the result of pod_allocations", {
    "scope": S.OneOf("pod", "container"), "pods": S.ListOf(_evidence.ALLOCATION),
    "node": S.Fields("pod_allocations' node", {"exclusive_cpus": S.STR, "exclusive_count": S.COUNT, "shared_pool": S.STR},
                     {"online_cpus": S.STR, "allocatable_cpus": S.Nullable(S.STR)}),
    "findings": S.ListOf(_evidence.FINDING)})
CANARY_INPUT = S.Fields("the canary (pod and admission)", {}, {"pod": S.Nullable(S.STR), "admission": S.Nullable(ADMISSION), "memory_nodes": S.ANY})
PLAN = S.Fields("a reservation plan (reservation_plan)", {}, {
    "reserved": S.Nullable(S.Fields("the plan's reserved", {}, {"cpus": S.Nullable(S.STR)})),
    "reasons": S.Nullable(S.ListOf(S.STR)), "warnings": S.Nullable(S.ListOf(S.STR)), "allocatable": S.ANY})
TARGET = S.Fields("a kubelet configuration", {}, {"reservedSystemCPUs": S.Nullable(S.STR)})
PREVIOUS = S.Fields("a previous acceptance record", {}, {"verdict": S.Nullable(S.Fields("its verdict", {}, {"accepted": S.ANY}))})
# The shapes of the evidence sources the record knows by name (`_evidence.sources.SOURCES`); a source not here brings its own
# (`Source.shape`), else any value. The record's own inputs are in _OWN_INPUTS.
SOURCE_SHAPES = {"versions": _VERSIONS, "baseline_config": S.MAPPING, "target_config": TARGET, "allocations": ALLOCATIONS,
                 "findings": S.ListOf(_evidence.FINDING), "canary": CANARY_INPUT, "metrics": METRICS, "configuration": CONFIGURATION,
                 "service_objectives": SERVICE, "rollback": ROLLBACK, "device_path": DEVICE_PATH}
_OWN_INPUTS = {"versions": S.Nullable(_VERSIONS), "plan": S.Nullable(PLAN), "slack": S.Nullable(S.MapOf(S.ANY)), "policy": S.Nullable(S.MAPPING),
               "previous": S.ANY, "generated_at": S.Nullable(S.STR)}
_OWN_EVIDENCE = {"versions": S.Nullable(_VERSIONS), "devices": S.Nullable(S.ListOf(S.STR)), "has_gpus": S.ANY, "oracle": S.Nullable(ORACLE),
                 "placement": S.Nullable(PLACEMENT), "admission": S.Nullable(ADMISSION)}


def source_shape(source):
    """The shape of one source's value (null always allowed)."""
    return S.Nullable(SOURCE_SHAPES.get(source.name) or source.shape or S.ANY)


def input_keys(sources=None):
    """The record's input names in order: versions and plan, one per evidence source, then slack, policy, previous and generated_at."""
    names = _sources.names(sources)
    return ("versions", "plan") + tuple(name for name in names if name not in _OWN_INPUTS) + ("slack", "policy", "previous", "generated_at")


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
                                           "devices": S.ListOf(S.STR)}, {"admission": S.Nullable(ADMISSION), "memory_nodes": S.ANY})
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
    {"device_path": S.Nullable(DEVICE_PATH)})
FLEET_RECORD = S.Fields("an acceptance record (acceptance_record)", {"host": S.STR, "mode": S.STR, "verdict": _VERDICT})


def check_inputs(inputs):
    return S.check(inputs, S.Nullable(inputs_shape()), "inputs", RecordError) or {}


def check_evidence(evidence):
    return S.check(evidence, S.Nullable(evidence_shape()), "evidence", RecordError)


def check_service(service):
    """The service_comparison result the verdict reads: its state, its reasons (strings), its repetitions per side."""
    return S.check(service, SERVICE_RESULT, "evidence.service_objectives", RecordError)


def check_rollback(rollback):
    """The rollback evidence the verdict reads: the rehearsal_info module's result (state, rehearsed, the transitions it names)."""
    return S.check(rollback, ROLLBACK_RESULT, "evidence.rollback", RecordError)


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
