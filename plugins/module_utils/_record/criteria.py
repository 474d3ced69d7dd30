# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The verdict's criteria: one row per criterion, the evidence it reads and how it decides (pure).

Public: `Criterion`, `TABLE`, `GATES`, `OWN_READS`, `rows`, `readers`, `watched_values`, `WATCHED`.

A row is ``Criterion(name, gate, reads, reasons)``:

- ``name``: the criterion, as its reasons name it (``reason["criterion"]``);
- ``gate``: when the verdict asks it: ``"always"``, ``"canary"`` (only with canary evidence: the
  record's placement is not null) or ``"topology"`` (only without: the record holds its topology only);
- ``reads``: what ``reasons`` is given, in order: evidence sources (`_evidence.sources.SOURCES`, by
  name) and the verdict's own inputs (`OWN_READS`: the record's composition, the operator's policy,
  the accepted values of the previous record);
- ``reasons(*values)`` -> ``[{"criterion", "effect", "message"}]``: effect ``defer``, ``revalidate``,
  ``restrict``, ``adopt`` or ``info`` (decides nothing); unknown is never agreement.

`TABLE` is the collection's criteria, in the order of the verdict's reasons. A new criterion is one
row here and its function (next to it); `_record.verdict` only combines what the rows say.
`rows(sources)` is the table the verdict asks: `TABLE`, plus a row for each gated source that brings
its own criterion (``Source.reasons``; at the end of the first block of its gate), and it refuses a
gated evidence source that no row reads (it would decide nothing without a word) and a row that reads
something no source and no own input gives.

The device path (``device_path``, the device_path_info action's result): every finding that is not
``agree`` defers (a device advertised with no NUMA node is never agreement), and the versions of the
plugins and drivers it found are watched like the others (``change``): one that changed since the
accepted record, one that is new or gone, or a device path not read now that was read when the node
was accepted, is a revalidate. A record accepted before the device path was read has no versions for
it, so the first reading of it is a change too. Not given at all (null: not asked, such as in check
mode), the device path decides nothing (no reason). A read that failed (``error``) is never silence:
it defers, naming the error, and its versions are unknown (no change is claimed from them; a record
accepted with a device path reads it as not read).
"""

from __future__ import annotations

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence import sources as _sources
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence.composition import effect as _effect
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence.composition import transport as _transport
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._record import inputs as shapes
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._record.errors import RecordError
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._rehearsal import evidence as _rehearsal
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._rehearsal import reboot as _reboot
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._service_comparison import compare as _compare
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._service_comparison.errors import ServiceComparisonError as _ServiceComparisonError
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._stack import support as _support

GATES = ("always", "canary", "topology")
# What a row may read besides the evidence sources: the record's own composition, the policy, the accepted values.
OWN_READS = ("versions", "devices", "has_gpus", "oracle", "placement", "admission", "policy", "accepted")

# Values whose change since the accepted record asks for the contract again (driver, node image, device plugin, workload, plus the kubelet and kernel).
WATCHED = ("kubelet", "kernel", "driver", "node_image", "device_plugin", "workload")
ALLOCATIONS_METRIC = "resource_manager_allocations_total"
ERRORS_METRIC = "resource_manager_allocation_errors_total"


class Criterion(object):
    """One criterion of the verdict (see the module docstring)."""

    __slots__ = ("name", "gate", "reads", "reasons")

    def __init__(self, name, gate, reads, reasons):
        if gate not in GATES:
            raise RecordError("criterion %s: gate must be one of %s, got %r" % (name, ", ".join(GATES), gate))
        self.name, self.gate, self.reads, self.reasons = name, gate, tuple(reads), reasons

    def __repr__(self):
        return "Criterion(%r)" % self.name


def _reason(criterion, effect, message):
    return {"criterion": criterion, "effect": effect, "message": message}


def _version_reasons(versions, has_gpus):
    versions, found = versions or {}, []
    if not versions.get("kubelet"):
        found.append(_reason("versions", "defer", "the kubelet version is unknown: the tested stack cannot be named"))
    if has_gpus and not versions.get("driver"):
        found.append(_reason("versions", "defer", "the GPU driver version is unknown: the GPU path cannot be named"))
    return found


def _support_reasons(versions, policy):
    """The support table (shipped and the operator's) and the typed supported/unsupported globs, one path (`_stack.support`)."""
    try:
        return _support.reasons(versions, policy)
    except _support.StackError as exc:
        raise RecordError(str(exc)) from None


def _locality_reasons(oracle):
    found = []
    if oracle is None:
        return [_reason("locality", "defer", "no locality oracle: the devices' NUMA nodes are unknown")]
    for device in oracle.get("devices", []):
        what = "%s %s" % (device["kind"], device.get("pci_address") or device.get("name"))
        if device.get("pci_address") in oracle.get("unknown_locality", []):
            said = ", ".join("%s says %s" % (o["source"], "unknown" if o["numa_node"] is None else o["numa_node"]) for o in device.get("observations", []))
            found.append(_reason("locality", "defer", "locality metadata unresolved: %s has no known NUMA node (%s); unknown is not agreement"
                                 % (what, said or "no source")))
        for disagreement in device.get("disagreements", []):
            found.append(_reason("locality", "defer", "locality sources disagree for %s: %s" % (what, disagreement)))
    return found


def _no_canary_evidence():
    return [_reason("evidence", "defer", "no canary evidence on this node: the record holds its topology only (run playbooks/verify.yml)")]


def _placement_reasons(placement):
    findings = placement.get("findings") or []
    found = []
    for finding in findings:
        if finding.get("result") == "disagree":
            found.append(_reason("placement", "defer", "placement %s disagrees: %s" % (finding["check"], finding["message"])))
        elif finding.get("result") == "unknown":
            found.append(_reason("placement", "defer", "placement %s unknown: %s" % (finding["check"], finding["message"])))
    if not found and not any(finding.get("result") == "agree" for finding in findings):
        # Unknown is never agreement: a canary without a single placement check proves nothing.
        found.append(_reason("placement", "defer", "no placement evidence: no check compared the canary's CPUs, memory or devices "
                             "with the kubelet's assignment"))
    return found


def _admission_reasons(admission):
    if admission is None:
        return []
    found = [_reason("admission", "defer", "admission failed at the %s layer (%s): %s" % (
        failure.get("layer") or "unknown", failure.get("reason") or "no reason", failure.get("message") or ""))
        for failure in admission.get("failures", [])]
    if not found and not admission.get("admitted"):
        found.append(_reason("admission", "defer", "the canary was not admitted and no failure was recorded"))
    return found


def _configuration_reasons(configuration):
    verified = (configuration or {}).get("verified")
    if verified is True:
        return []
    if verified is False:
        return [_reason("configuration", "defer", "the kubelet's running configuration does not match the plan: %s"
                        % ((configuration or {}).get("message") or "no detail"))]
    return [_reason("configuration", "defer", "the kubelet's running configuration (/configz) was not verified against the plan")]


def _metric_entries(metrics):
    if metrics is None:
        return None
    entries = metrics.get("samples") if isinstance(metrics, dict) else metrics
    if not isinstance(entries, list):
        raise RecordError("metrics must be a list of rates (metrics_rates) or {\"samples\": [...]} (kubelet_metrics_info), got %r" % (type(metrics).__name__,))
    return entries


def _labels(entry):
    labels = entry.get("labels") or {}
    return "{%s}" % ",".join('%s="%s"' % item for item in sorted(labels.items())) if labels else ""


def _monitoring_reasons(metrics):
    entries = _metric_entries(metrics)
    if entries is None:
        return [_reason("monitoring", "defer", "no kubelet metrics were collected: allocations cannot be monitored")]
    if isinstance(metrics, dict) and metrics.get("error"):
        return [_reason("monitoring", "defer", "the kubelet's metrics could not be read (%s): allocations cannot be monitored" % metrics["error"])]
    names = set(entry.get("name") for entry in entries)
    found = []
    if ALLOCATIONS_METRIC not in names:
        found.append(_reason("monitoring", "defer", "the kubelet's metrics have no %s series: allocations cannot be monitored" % ALLOCATIONS_METRIC))
    for entry in entries:
        if entry.get("name") != ERRORS_METRIC:
            continue
        rose = entry.get("increase") if "increase" in entry else entry.get("value", entry.get("second"))
        if rose:
            found.append(_reason("monitoring", "defer", "%s%s %s %g%s" % (
                ERRORS_METRIC, _labels(entry), "rose by" if "increase" in entry else "is", rose,
                " between the scrapes" if "increase" in entry else "")))
    return found


def _service_reasons(service):
    """The service criterion from the service_comparison filter's result: measured, never typed in."""
    if service is None:
        return [_reason("service", "restrict", "no service objectives were measured for the workload: "
                        "placement is evidence of an allocation, not a benchmark")]
    if not isinstance(service, dict) or service.get("state") not in shapes.SERVICE_STATES:
        raise RecordError("service_objectives must be the service_comparison filter's result (state: %s), got %s: service objectives "
                          "are measured, not stated (a typed-in {held: ...} is not evidence)" % (", ".join(shapes.SERVICE_STATES), _shape(service)))
    shapes.check_service(service)
    said = "; ".join(service.get("reasons") or []) or "no detail"
    counts = service.get("repetitions") or {}
    runs = " (%s baseline and %s canary repetitions)" % (counts.get("baseline"), counts.get("canary")) if counts else ""
    if service["state"] == "held":
        try:
            _compare.recompute(service)
        except _ServiceComparisonError as exc:
            raise RecordError("service_objectives %s" % exc)
        return [_reason("service", "adopt", "service objectives held%s: %s" % (runs, said))]
    if service["state"] == "not held":
        return [_reason("service", "defer", "service objectives did not hold%s: %s" % (runs, said))]
    return [_reason("service", "defer", "baseline and canary are incomparable, so the service objectives are unresolved: %s" % said)]


def _shape(value):
    if isinstance(value, dict):
        return "a mapping with keys %s" % (", ".join(sorted(str(key) for key in value)) or "none")
    return "a %s" % type(value).__name__


def _took(item):
    duration = item.get("duration_s")
    return "%s %s (%s%s)" % (item.get("target"), item["transition"], item.get("outcome") or "unknown",
                             ", %g s" % duration if isinstance(duration, (int, float)) and not isinstance(duration, bool) else "")


def _rollback_reasons(rollback):
    """The rollback criterion from the node's own transition records and the check kept after the rehearsal (rehearsal_info): never typed in."""
    if rollback is None:
        return [_reason("rollback", "defer", "rollback has not been rehearsed on this node: recovery is unresolved")]
    if not isinstance(rollback, dict) or rollback.get("state") not in shapes.ROLLBACK_STATES:
        raise RecordError("rollback must be the rehearsal_info module's result (state: %s), got %s: a rollback rehearsal is read from the "
                          "node's transition records, not stated (a typed-in {rehearsed: true} is not evidence)"
                          % (", ".join(shapes.ROLLBACK_STATES), _shape(rollback)))
    shapes.check_rollback(rollback)
    state, enable, back = rollback["state"], rollback.get("enable"), rollback.get("rollback")
    if state == "not rehearsed":
        return _rollback_reasons(None)
    if state == "not read":
        return [_reason("rollback", "defer", "the rollback rehearsal could not be read from the node's transition records: %s: recovery is "
                        "unresolved" % (rollback.get("error") or "no detail"))]
    pair = "%s after %s" % (_took(back), _took(enable))
    said = "; ".join(rollback.get("problems") or []) or "no detail"
    if state == "not converged":
        return [_reason("rollback", "defer", "the rollback rehearsal did not converge: %s: %s" % (pair, said))]
    if state == "unchecked":
        return [_reason("rollback", "defer", "%s, but nothing checked its workloads afterwards (no rehearsal check kept on the node; run "
                        "rehearse.yml): recovery is unresolved" % pair)]
    reboot = rollback.get("reboot")
    if state == "not reconciled" and isinstance(reboot, dict) and reboot.get("state") not in ("came back", "recovered"):
        return [_reason("rollback", "defer", "the node rebooted after the enable did not come back whole (%s): %s: %s"
                        % (reboot.get("state"), pair, said))]
    if state == "not reconciled":
        return [_reason("rollback", "defer", "the rollback rehearsal's workloads did not come back: %s: %s" % (pair, said))]
    if state == "refused":
        return [_reason("rollback", "defer", "the rollback rehearsal's check is not believed: %s: %s: recovery is unresolved" % (pair, said))]
    # Rehearsed only when the check it carries gives that state again from its own observations.
    distrust = _rehearsal.recheck(rollback.get("check"), back)
    if distrust:
        raise RecordError("rollback states rehearsed, but its check is not believed: %s: a rehearsal's state is recomputed from its "
                          "observations, not stated" % "; ".join(distrust))
    workloads = [w["owner"] for w in (rollback.get("check") or {}).get("workloads") or []]
    again = rollback.get("re_enable")
    return [_reason("rollback", "info", "rollback rehearsed on this node: %s; %s came back Ready on the node at container scope%s%s" % (
        pair, "%d workload%s (%s)" % (len(workloads), "" if len(workloads) == 1 else "s", ", ".join(workloads)) if workloads else "no workload",
        "; re-enabled by %s" % _took(again) if again else "; not re-enabled since", _rebooted(reboot, enable)))]


def _rebooted(reboot, enable):
    """The rehearsed reboot after the enable, in a rehearsal that counts: believed only from its observations."""
    distrust = _reboot.recheck(reboot, enable) if reboot is not None else []
    if distrust or (reboot is not None and reboot.get("state") not in ("came back", "recovered")):
        raise RecordError("rollback states rehearsed, but the reboot after its enable %s: a reboot's state is recomputed from its "
                          "observations, not stated" % ("is not believed: " + "; ".join(distrust) if distrust else "did not come back"))
    return "" if reboot is None else "; " + _reboot.said(reboot)


def watched_values(versions, devices, device_path=None):
    """The values `decide` compares with the accepted record: the watched versions and the device identities, and the
    device path's versions when it was read (``device_path``: the device_path_info result, or None)."""
    found = {"versions": {key: versions.get(key) for key in WATCHED}, "devices": sorted(devices or [])}
    if device_path is not None and not device_path.get("error"):
        found["device_path"] = dict(device_path.get("versions") or {})
    return found


def _device_path_reasons(device_path):
    """A failed read defers naming its error; every device path finding that is not agreement defers, with its message."""
    if device_path is None:
        return []
    failed = [_reason("device_path", "defer", "the device path could not be read (device_path_info failed): %s; unknown is not agreement"
                      % device_path["error"])] if device_path.get("error") else []
    said = {"disagree": "disagrees", "unknown": "unknown"}
    return failed + [_reason("device_path", "defer", "device path %s %s: %s" % (f["check"], said.get(f["result"], "unknown"), f["message"]))
                     for f in device_path.get("findings") or [] if f.get("result") != "agree"]


def _device_path_changes(current, accepted):
    """What changed in the device path's versions since the accepted record (see the module docstring)."""
    if "device_path" not in current:
        if accepted.get("device_path") is not None:
            return ["the device path was not read (the accepted record has %s)" % _listed(accepted["device_path"])]
        return []
    now = current["device_path"]
    if accepted.get("device_path") is None:
        return ["the device path was first read (%s); the accepted record has no versions for it" % _listed(now)] if now else []
    before = accepted["device_path"]
    return ["device path %s changed from %s to %s" % (key, _said(before, key), _said(now, key))
            for key in sorted(set(before) | set(now)) if before.get(key) != now.get(key) or (key in before) != (key in now)]


def _said(versions, key):
    """A version as a change names it: the value, ``unknown`` when the plugin was found without one, ``none`` when not found."""
    return versions.get(key) or ("unknown" if key in versions else "none")


def _listed(versions):
    return ", ".join("%s %s" % (key, value or "unknown") for key, value in sorted(versions.items())) or "no plugin"


def _scope_reasons(policy):
    if (policy or {}).get("restrict_to"):
        return [_reason("scope", "restrict", "the operator restricts the feature to the pool %s" % policy["restrict_to"])]
    return []


def _change_reasons(versions, devices, device_path, accepted, policy):
    current, revalidated = watched_values(versions or {}, devices, device_path), bool((policy or {}).get("revalidated"))
    if not accepted:
        return []
    found = []
    before = accepted.get("versions") or {}
    for key in WATCHED:
        if before.get(key) != current["versions"].get(key):
            found.append("%s changed from %s to %s" % (key, before.get(key) or "unknown", current["versions"].get(key) or "unknown"))
    found += _device_path_changes(current, accepted)
    gone = sorted(set(accepted.get("devices") or []) - set(current["devices"]))
    new = sorted(set(current["devices"]) - set(accepted.get("devices") or []))
    if gone or new:
        found.append("devices changed (%s)" % "; ".join(part for part in (
            "gone: %s" % ", ".join(gone) if gone else "", "new: %s" % ", ".join(new) if new else "") if part))
    if not found:
        return []
    since = "since the record that accepted this node (%s)" % accepted.get("verdict", "adopt")
    if revalidated:
        return [_reason("change", "info", "%s %s; the operator states the acceptance procedure was repeated" % ("; ".join(found), since))]
    return [_reason("change", "revalidate", "%s %s: repeat the acceptance procedure (canary, workload, rollback) on this node"
                    % ("; ".join(found), since))]


TABLE = (
    Criterion("versions", "always", ("versions", "has_gpus"), _version_reasons),
    Criterion("support", "always", ("versions", "policy"), _support_reasons),
    Criterion("locality", "always", ("oracle",), _locality_reasons),
    Criterion("device_path", "always", ("device_path",), _device_path_reasons),
    Criterion("evidence", "topology", (), _no_canary_evidence),
    Criterion("placement", "canary", ("placement",), _placement_reasons),
    Criterion("admission", "canary", ("admission",), _admission_reasons),
    Criterion("effect", "canary", ("effect",), _effect.reasons),
    Criterion("configuration", "canary", ("configuration",), _configuration_reasons),
    Criterion("monitoring", "canary", ("metrics",), _monitoring_reasons),
    Criterion("service", "canary", ("service_objectives",), _service_reasons),
    Criterion("rollback", "canary", ("rollback",), _rollback_reasons),
    Criterion("transport", "canary", ("transport",), _transport.reasons),
    Criterion("scope", "always", ("policy",), _scope_reasons),
    Criterion("change", "always", ("versions", "devices", "device_path", "accepted", "policy"), _change_reasons),
)


def _own_row(source):
    """The row of a source that brings its own criterion (``Source.reasons``), named by its first criterion."""
    return Criterion(source.criteria[0] if source.criteria else source.name, source.gate, (source.name,), source.reasons)


def _after_first_block(found, gate):
    """The index after the first run of rows gated ``gate`` (the end of the table when there is none)."""
    index = next((i for i, row in enumerate(found) if row.gate == gate), len(found))
    while index < len(found) and found[index].gate == gate:
        index += 1
    return index


def rows(sources=None, table=None):
    """The rows the verdict asks, in order (see the module docstring); ``sources`` defaults to `_evidence.sources.SOURCES`, ``table`` to `TABLE`."""
    sources = _sources.SOURCES if sources is None else sources
    found = list(TABLE if table is None else table)
    known = set(_sources.names(sources)) | set(OWN_READS)
    for row in found:
        unknown = [name for name in row.reads if name not in known]
        if unknown:
            raise RecordError("criterion %s reads %s, which no evidence source gives (sources: %s; own: %s)"
                              % (row.name, ", ".join(unknown), ", ".join(_sources.names(sources)), ", ".join(OWN_READS)))
    read = set(name for row in found for name in row.reads)
    for source in sources:
        if not source.gate or source.name in read:
            continue
        if source.reasons is None:
            raise RecordError("evidence source %s is gated %r but no criterion reads it: give its Source reasons=" % (source.name, source.gate))
        index = _after_first_block(found, source.gate)
        found.insert(index, _own_row(source))
    return tuple(found)


def readers(sources=None, table=None):
    """{gated source name: (the names of the rows that read it, in order)}: every gated source is read by one row or more."""
    found = rows(sources, table)
    return {source.name: tuple(row.name for row in found if source.name in row.reads)
            for source in (_sources.SOURCES if sources is None else sources) if source.gate}
