# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The verdict of one node by the collection's decision criteria (pure).

Public: `decide`, `VERDICTS`, `WATCHED`, `POLICY_KEYS`, `evidence_keys`, `watched_values`, `CRITERIA`.

The criteria:

- **adopt**: the tested stack is supported, admission is predictable, collectors reconcile
  allocations, and service objectives hold;
- **restrict**: placement holds for the tested workload shape, but a broader pool lacks
  equivalent evidence (no service objectives measured, or the operator keeps it to one pool);
- **defer**: gate configurability, vendor support, locality metadata, collector behaviour or
  rollback remains unresolved;
- **revalidate**: repeat the contract after changes to node images, device drivers, the kubelet,
  the device plugin, the devices themselves or the workload shape.

The criteria are the rows of `_record.criteria` (`criteria.rows`: one per criterion, with its gate,
what it reads and how it decides); this module asks each row whose gate is open, in the table's
order, and combines what they say. `CRITERIA` maps each gated evidence source to the criteria that
read it.

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

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence import sources as _sources
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._record import criteria as _criteria
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._record import inputs as shapes
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._record.errors import RecordError

VERDICTS = ("adopt", "restrict", "defer", "revalidate")
_STRENGTH = {"info": 0, "adopt": 1, "restrict": 2, "revalidate": 3, "defer": 4}
WATCHED = _criteria.WATCHED
POLICY_KEYS = ("unsupported", "supported", "restrict_to", "revalidated", "support_table", "support")
_OWN_EVIDENCE_KEYS = ("versions", "devices", "has_gpus", "oracle", "placement", "admission")
watched_values = _criteria.watched_values
CRITERIA = _criteria.readers()


def _check_keys(value, allowed, what):
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise RecordError("%s must be a mapping, got %s" % (what, type(value).__name__))
    unknown = sorted(set(value) - set(allowed))
    if unknown:
        raise RecordError("%s has unknown keys %s (known: %s)" % (what, ", ".join(unknown), ", ".join(allowed)), keys=unknown)
    return value


def evidence_keys(sources=None):
    """The verdict's evidence: the record's composition (versions, devices, has_gpus, oracle, placement, admission), then each gated source."""
    return _OWN_EVIDENCE_KEYS + tuple(source.name for source in (_sources.SOURCES if sources is None else sources) if source.gate)


def _open(gate, canary):
    """Whether a row gated ``gate`` is asked: always, or with (``canary``) or without (``topology``) canary evidence."""
    return gate == "always" or gate == ("canary" if canary else "topology")


def decide(evidence, policy=None, accepted=None):
    """{"verdict", "reasons", "accepted"} for one node's evidence (keys: `evidence_keys`) and the operator's policy (POLICY_KEYS)."""
    evidence = shapes.check_evidence(_check_keys(evidence, evidence_keys(), "evidence")) or {}
    policy = _check_keys(policy, POLICY_KEYS, "policy")
    accepted = shapes.check_accepted(accepted)
    rows = _criteria.rows()
    given = dict(evidence, policy=policy, accepted=accepted)
    canary = evidence.get("placement") is not None
    reasons = []
    for row in rows:
        if _open(row.gate, canary):
            reasons += row.reasons(*(given.get(name) for name in row.reads))
    verdict = max((r["effect"] for r in reasons), key=lambda effect: _STRENGTH[effect], default="adopt")
    if verdict == "info":
        verdict = "adopt"
    if verdict == "adopt" and not any(r["effect"] == "adopt" for r in reasons):
        reasons.append({"criterion": "service", "effect": "adopt", "message": "every criterion holds"})
    if verdict in ("adopt", "restrict"):
        accepted = dict(watched_values(evidence.get("versions") or {}, evidence.get("devices"), evidence.get("device_path")), verdict=verdict)
    return {"verdict": verdict, "reasons": reasons, "accepted": accepted or None}
