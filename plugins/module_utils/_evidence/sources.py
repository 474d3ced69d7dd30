# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The evidence sources: what the verify step reads for one node, and where each value goes in the record (pure).

Public: `Source`, `SOURCES`, `names`, `by_name`, `placements`, `reads`.

The one list the record iterates (`_record.record`, `_record.inputs`, `_record.criteria`,
`_record.verdict`, `_record.pages.sections`): a new source is one file in `composition/` (how its task
result becomes evidence, and the shape of that value) plus one `Source` here, and the evidence role's
task that reads it. Each entry:

- ``name``: the record input it fills (``inputs[name]``);
- ``read_from`` and ``task``: where it is read (node, API, metrics, ...) and by which module or role;
- ``reads``: the names in the role's ``reads`` mapping its composition takes;
- ``compose``: ``compose(reads)`` -> the value (None: not read);
- ``shape``: what its value must look like (`_base.shape_check`; null is always allowed), from its
  composition file (``SHAPE``): the record checks its input and the verdict its evidence against it;
  None takes any value;
- ``criteria``: the names of the verdict criteria that read it (docs/evidence.md's table; the rows of
  `_record.criteria` that read it directly are checked against it);
- ``record``: ``"key"`` (the record's ``record[name]``), ``"attestation"`` (``record.attestations[name]``)
  or None (the record's own composition reads it: the canary, the CPU roles, the config diff);
- ``gate``: when the verdict reads it: ``"always"`` (with or without canary evidence), ``"canary"``
  (only with canary evidence), or None (through the record's own composition: placement, admission);
  a gated source that no criterion reads is refused (`_record.criteria.rows`);
- ``full``: whether its presence makes the record ``full`` (canary evidence, not topology only);
- ``title``: for a source the pages do not know by name, the title of its section
  (`_record.pages.sections`);
- ``reasons``: a shorthand for a source that brings its own criterion (``reasons(value)`` ->
  ``[{"criterion", "effect", "message"}]``): `_record.criteria.rows` makes it a row of the criteria
  table, named by its first ``criteria``. The criteria of this collection are rows there.

The order is the order of the record's inputs; the verdict's reasons follow the criteria table's order
(`_record.criteria.TABLE`).
"""

from __future__ import annotations

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence.composition import admission_failure
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence.composition import allocations
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence.composition import canary
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence.composition import configuration
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence.composition import device_path
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence.composition import effect
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence.composition import findings
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence.composition import kubelet_files
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence.composition import memory
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence.composition import metrics
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence.composition import rollback
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence.composition import service_objectives
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence.composition import transport
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence.composition import versions
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence.nodefs import EvidenceError

RECORD_PLACES = ("key", "attestation", None)
GATES = ("always", "canary", None)


class Source(object):
    """One evidence source (see the module docstring)."""

    __slots__ = ("name", "read_from", "task", "reads", "compose", "criteria", "record", "gate", "full", "shape", "reasons", "title")

    def __init__(self, name, read_from, task, reads, compose, criteria=(), record=None, gate=None, full=False, shape=None, reasons=None,
                 title=None):
        if record not in RECORD_PLACES or gate not in GATES:
            raise EvidenceError("evidence source %s: record must be one of %s and gate one of %s, got %r and %r"
                                % (name, RECORD_PLACES, GATES, record, gate))
        self.name, self.read_from, self.task, self.reads, self.compose = name, read_from, task, tuple(reads), compose
        self.criteria, self.record, self.gate, self.full = tuple(criteria), record, gate, bool(full)
        self.shape, self.reasons, self.title = shape, reasons, title

    def __repr__(self):
        return "Source(%r)" % self.name


SOURCES = (
    Source("versions", "API: the Node object's status.nodeInfo", "kubernetes.core.k8s_info (kind Node)", ("node_object",), versions.compose,
           criteria=("versions", "support", "change"), shape=versions.SHAPE),
    Source("baseline_config", "node: the kubelet's configuration file", "kubelet_config_info (base)", ("kubelet_files",), kubelet_files.baseline,
           shape=kubelet_files.BASELINE_SHAPE),
    Source("target_config", "node: the kubelet's configuration file and its drop-ins, merged", "kubelet_config_info (effective)",
           ("kubelet_files",), kubelet_files.target, shape=kubelet_files.TARGET_SHAPE),
    Source("allocations", "node: PodResources List and GetAllocatableResources (the kubelet's gRPC socket)", "pod_resources_info",
           ("pod_resources",), allocations.compose, criteria=("placement", "evidence"), record="key", full=True, shape=allocations.SHAPE),
    Source("findings", "node: the canary's cgroups, thread masks and resident pages, against PodResources and the locality oracle",
           "placement_info, pod_resources_info (placement_findings)", ("pod_resources", "placement", "canary", "topology", "placement_after"),
           findings.compose, criteria=("placement", "evidence"), full=True, shape=findings.SHAPE),
    Source("canary", "API: the canary pod, its status and events", "the canary role (kubernetes.core.k8s, k8s_info)", ("canary",),
           canary.compose, criteria=("evidence", "admission", "placement"), full=True, shape=canary.SHAPE),
    Source("memory", "node: the canary's container cgroups' memory.numa_stat and numa_maps, after admission and again after the warm-up "
           "or the load", "placement_info (twice)", ("placement", "placement_after", "canary"), memory.compose, record="key", shape=memory.SHAPE,
           title="Memory over time"),
    Source("admission_failure", "API: a Deployment one CPU over the plan's largest single-NUMA pod, its pods and events in a bounded window, "
           "then what was left", "the canary role (canary_admission_failure)", ("canary",), admission_failure.compose, record="key",
           shape=admission_failure.SHAPE, title="Admission failure: the owning controller's answer"),
    Source("configuration", "API: the node's Ready condition, the kubelet's healthz and /configz", "kubelet_verify", ("kubelet_verify",),
           configuration.compose, criteria=("configuration",), record="attestation", gate="canary", shape=configuration.SHAPE),
    Source("metrics", "metrics: the kubelet's /metrics through the API server's node proxy, before and after the canary",
           "kubelet_metrics_info (twice)", ("metrics_before", "metrics_after"), metrics.compose, criteria=("monitoring",), record="key", gate="canary",
           shape=metrics.SHAPE),
    Source("effect", "API and node: the canary's pods read back (.spec.resources), the control plane's /version and /metrics, PodResources, "
           "the pods' cgroups, the kubelet's metrics", "the canary role, stack_info, pod_resources_info, placement_info, kubelet_metrics_info",
           ("canary", "control_plane", "pod_resources", "placement", "metrics_before", "metrics_after", "topology"), effect.compose,
           criteria=("effect",),
           record="key", gate="canary", shape=effect.SHAPE, title="Feature in effect"),
    Source("service_objectives", "metrics: the service's histograms (its /metrics or Prometheus) under the operator's load, baseline "
           "against canary", "the service_comparison role (service_load, service_window), or the operator's comparison",
           ("service_comparison_ran", "service_comparison_result", "service_comparison_given"), service_objectives.compose,
           criteria=("service",), record="attestation", gate="canary", shape=service_objectives.SHAPE),
    Source("rollback", "node: the node's own transition records and the check rehearse.yml kept beside the rollback's journal",
           "rehearsal_info (__evidence_rollback)", ("rollback_task",), rollback.compose,
           criteria=("rollback",), record="attestation", gate="canary", shape=rollback.SHAPE),
    Source("device_path", "API: the device plugin's pod and ConfigMap, the DRA driver's ResourceSlices, the SR-IOV config, the Node's "
           "allocatable; PodResources GetAllocatableResources for the advertised NUMA", "device_path_info", ("device_path",),
           device_path.compose, criteria=("device_path", "change"), record="key", gate="always", shape=device_path.SHAPE),
    Source("transport", "node: the main container's process environ (three keys); API: its spec's env; the facts' GPU-NIC links",
           "transport_info", ("transport_task", "canary", "pod_resources", "topology", "transport_required"), transport.compose,
           criteria=("transport",), record="key", gate="canary", shape=transport.SHAPE, title="Transport"),
)


def names(sources=None):
    return tuple(source.name for source in (SOURCES if sources is None else sources))


def by_name(name, sources=None):
    for source in SOURCES if sources is None else sources:
        if source.name == name:
            return source
    raise EvidenceError("no evidence source %r (known: %s)" % (name, ", ".join(names(sources))))


def placements(record, sources=None):
    """The sources the record holds at ``record`` ("key" or "attestation"), in order."""
    return tuple(source for source in (SOURCES if sources is None else sources) if source.record == record)


def reads(sources=None):
    """Every name a source reads from the role's ``reads`` mapping, in order, once."""
    found = []
    for source in SOURCES if sources is None else sources:
        found += [key for key in source.reads if key not in found]
    return tuple(found)
