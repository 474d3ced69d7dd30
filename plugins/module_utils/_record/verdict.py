# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The verdict of one node by the collection's decision criteria (pure).

Public: `decide`, `VERDICTS`, `WATCHED`, `POLICY_KEYS`, `evidence_keys`, `CRITERIA`.

The criteria:

- **adopt**: the tested stack is supported, admission is predictable, collectors reconcile
  allocations, and service objectives hold;
- **restrict**: placement holds for the tested workload shape, but a broader pool lacks
  equivalent evidence (no service objectives measured, or the operator keeps it to one pool);
- **defer**: gate configurability, vendor support, locality metadata, collector behaviour or
  rollback remains unresolved;
- **revalidate**: repeat the contract after changes to node images, device drivers, the kubelet,
  the device plugin, the devices themselves or the workload shape.

The device path (``device_path``, the device_path_info action's result): every finding that is not
``agree`` defers (a device advertised with no NUMA node is never agreement), and the versions of the
plugins and drivers it found are watched like the others: one that changed since the accepted record,
one that is new or gone, or a device path not read now that was read when the node was accepted, is a
revalidate. A record accepted before the device path was read has no versions for it, so the first
reading of it is a change too. Not given at all (null: not asked, such as in check mode), the device
path decides nothing (no reason). A read that failed (``error``: the action failed, such as the API
refusing a list) is never silence: it defers, naming the error, and its versions are unknown (no
change is claimed from them; a record accepted with a device path reads it as not read).

The criteria of the evidence sources (`_evidence.sources.SOURCES`) run in the list's order: those
gated ``always`` after locality, those gated ``canary`` after placement and admission, only with
canary evidence. `CRITERIA` holds the ones written here, by source name; a source not here brings
its own (``Source.reasons``), or decides nothing.

Every criterion gives reasons, each ``{"criterion", "effect", "message"}``; the verdict is the
strongest effect among them (defer > revalidate > restrict > adopt; ``info`` decides nothing).
Unknown is never agreement: a missing value defers.

``accepted`` is the previous record's ``verdict.accepted`` (the versions and devices under which
the node was last adopted or restricted). When a watched value differs from it, the verdict is
revalidate until the operator states the procedure was repeated (policy ``revalidated: true``).
An adopt or restrict sets ``accepted`` to this run's values; any other verdict carries the
previous one forward, so running again with the same inputs gives the same record.
"""

from __future__ import annotations

import fnmatch

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence import sources as _sources
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._record import inputs as shapes
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._record.errors import RecordError

VERDICTS = ("adopt", "restrict", "defer", "revalidate")
_STRENGTH = {"info": 0, "adopt": 1, "restrict": 2, "revalidate": 3, "defer": 4}
# Values whose change since the accepted record asks for the contract again (driver, node image, device plugin, workload, plus the kubelet and kernel).
WATCHED = ("kubelet", "kernel", "driver", "node_image", "device_plugin", "workload")
POLICY_KEYS = ("unsupported", "supported", "restrict_to", "revalidated")
_OWN_EVIDENCE_KEYS = ("versions", "devices", "has_gpus", "oracle", "placement", "admission")
ALLOCATIONS_METRIC = "resource_manager_allocations_total"
ERRORS_METRIC = "resource_manager_allocation_errors_total"


def _reason(criterion, effect, message):
    return {"criterion": criterion, "effect": effect, "message": message}


def _check_keys(value, allowed, what):
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise RecordError("%s must be a mapping, got %s" % (what, type(value).__name__))
    unknown = sorted(set(value) - set(allowed))
    if unknown:
        raise RecordError("%s has unknown keys %s (known: %s)" % (what, ", ".join(unknown), ", ".join(allowed)), keys=unknown)
    return value


def _version_reasons(versions, has_gpus, policy):
    found = []
    if not versions.get("kubelet"):
        found.append(_reason("versions", "defer", "the kubelet version is unknown: the tested stack cannot be named"))
    if has_gpus and not versions.get("driver"):
        found.append(_reason("versions", "defer", "the GPU driver version is unknown: the GPU path cannot be named"))
    for index, rule in enumerate(policy.get("unsupported") or []):
        if not isinstance(rule, dict) or not rule.get("component") or not rule.get("version"):
            raise RecordError("policy unsupported[%d] must be a mapping with component and version (a glob), got %r" % (index, rule))
        have = versions.get(rule["component"])
        if have and fnmatch.fnmatchcase(str(have), str(rule["version"])):
            found.append(_reason("support", "defer", "%s %s is marked unsupported by the operator (rule %r)%s" % (
                rule["component"], have, rule["version"], ": %s" % rule["reason"] if rule.get("reason") else "")))
    supported = policy.get("supported") or {}
    if not isinstance(supported, dict):
        raise RecordError("policy supported must map a component to a list of version globs, got %r" % (supported,))
    for component, globs in sorted(supported.items()):
        globs = [globs] if isinstance(globs, str) else list(globs or [])
        have = versions.get(component)
        if have and not any(fnmatch.fnmatchcase(str(have), str(glob)) for glob in globs):
            found.append(_reason("support", "defer", "%s %s is not among the operator's supported versions (%s)" % (
                component, have, ", ".join(globs) or "none")))
    return found


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


SERVICE_STATES = shapes.SERVICE_STATES


def _service_reasons(service):
    """The service criterion from the service_comparison filter's result: measured, never typed in."""
    if service is None:
        return [_reason("service", "restrict", "no service objectives were measured for the workload: "
                        "placement is evidence of an allocation, not a benchmark")]
    if not isinstance(service, dict) or service.get("state") not in SERVICE_STATES:
        raise RecordError("service_objectives must be the service_comparison filter's result (state: %s), got %s: service objectives "
                          "are measured, not stated (a typed-in {held: ...} is not evidence)" % (", ".join(SERVICE_STATES), _shape(service)))
    shapes.check_service(service)
    said = "; ".join(service.get("reasons") or []) or "no detail"
    counts = service.get("repetitions") or {}
    runs = " (%s baseline and %s canary repetitions)" % (counts.get("baseline"), counts.get("canary")) if counts else ""
    if service["state"] == "held":
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
    if state == "not reconciled":
        return [_reason("rollback", "defer", "the rollback rehearsal's workloads did not come back: %s: %s" % (pair, said))]
    workloads = [w["owner"] for w in (rollback.get("check") or {}).get("workloads") or []]
    again = rollback.get("re_enable")
    return [_reason("rollback", "info", "rollback rehearsed on this node: %s; %s came back Ready on the node at container scope%s" % (
        pair, "%d workload%s (%s)" % (len(workloads), "" if len(workloads) == 1 else "s", ", ".join(workloads)) if workloads else "no workload",
        "; re-enabled by %s" % _took(again) if again else "; not re-enabled since"))]


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


def _change_reasons(current, accepted, revalidated):
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


CRITERIA = {"configuration": _configuration_reasons, "metrics": _monitoring_reasons, "service_objectives": _service_reasons,
            "rollback": _rollback_reasons, "device_path": _device_path_reasons}


def evidence_keys(sources=None):
    """The verdict's evidence: the record's composition (versions, devices, has_gpus, oracle, placement, admission), then each gated source."""
    return _OWN_EVIDENCE_KEYS + tuple(source.name for source in (_sources.SOURCES if sources is None else sources) if source.gate)


def _source_reasons(evidence, gate):
    """The reasons of the sources gated ``gate``, in the list's order (see the module docstring)."""
    found = []
    for source in _sources.SOURCES:
        if source.gate != gate:
            continue
        criterion = CRITERIA.get(source.name) or source.reasons
        if criterion is None:
            # A gated source the verdict cannot read would decide nothing without a word: refuse it.
            raise RecordError("evidence source %s is gated %r but no criterion reads it: give its Source reasons=" % (source.name, gate))
        found += criterion(evidence.get(source.name))
    return found


def decide(evidence, policy=None, accepted=None):
    """{"verdict", "reasons", "accepted"} for one node's evidence (keys: `evidence_keys`) and the operator's policy (POLICY_KEYS)."""
    evidence = shapes.check_evidence(_check_keys(evidence, evidence_keys(), "evidence")) or {}
    policy = _check_keys(policy, POLICY_KEYS, "policy")
    accepted = shapes.check_accepted(accepted)
    versions = evidence.get("versions") or {}
    current = watched_values(versions, evidence.get("devices"), evidence.get("device_path"))
    reasons = _version_reasons(versions, bool(evidence.get("has_gpus")), policy)
    reasons += _locality_reasons(evidence.get("oracle"))
    reasons += _source_reasons(evidence, "always")
    placement = evidence.get("placement")
    if placement is None:
        reasons.append(_reason("evidence", "defer", "no canary evidence on this node: the record holds its topology only (run playbooks/verify.yml)"))
    else:
        reasons += _placement_reasons(placement)
        reasons += _admission_reasons(evidence.get("admission"))
        reasons += _source_reasons(evidence, "canary")
    if policy.get("restrict_to"):
        reasons.append(_reason("scope", "restrict", "the operator restricts the feature to the pool %s" % policy["restrict_to"]))
    reasons += _change_reasons(current, accepted, bool(policy.get("revalidated")))
    verdict = max((r["effect"] for r in reasons), key=lambda effect: _STRENGTH[effect], default="adopt")
    if verdict == "info":
        verdict = "adopt"
    if verdict == "adopt" and not any(r["effect"] == "adopt" for r in reasons):
        reasons.append(_reason("service", "adopt", "every criterion holds"))
    if verdict in ("adopt", "restrict"):
        accepted = dict(current, verdict=verdict)
    return {"verdict": verdict, "reasons": reasons, "accepted": accepted or None}
