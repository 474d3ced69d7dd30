# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The ``transport`` source: the NIC the canary's main container selects, against its GPUs' nearest NIC and NUMA node (pure).

Public: `compose`, `reasons`, `SHAPE`, `NOT_READ`.

From ``transport_task`` (transport_info on the node: each pod's main process and the three keys of its
environ), ``canary`` (the manifest sent: the main container's ``env``), ``pod_resources`` (the GPUs the
container got, by UUID, PCI address or MIG UUID) and ``topology`` (the facts, read through `_facts.schema`: the GPUs with
their ``links``, the NICs with their RDMA devices; facts that break the schema are refused naming the field);
``transport_required`` is the operator's ``evidence_transport_required``. Three states:

- not asked (the task did not run): None, no reason;
- read: ``{"status", "required", "pods", "findings"}``, ``status`` pinned, not pinned, mixed or unknown;
- failed (the module failed): ``{"status": "not read", "error", "findings": []}``; the criterion defers naming it.

The ``transport`` criterion: a finding that is not ``agree`` defers (unknown is never agreement);
otherwise its status is information (not pinned decides nothing unless ``transport_required``).
"""

from __future__ import annotations

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import shape_check as S
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence import inputs as _inputs
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence.composition import task_result
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence.nodefs import EvidenceError
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence.transport import check as _check
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence.transport import selection
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts import schema

NOT_READ = "transport_info returned no containers"
SHAPE = S.Fields("the transport (transport_info)", {"status": S.STR, "findings": S.ListOf(_inputs.FINDING)},
                 {"required": S.BOOL, "pods": S.ANY, "error": S.Nullable(S.STR)})


def _containers(manifest):
    spec = (manifest or {}).get("spec") or {}
    if (manifest or {}).get("kind", "Pod") != "Pod":
        spec = ((spec.get("template") or {}).get("spec")) or {}
    return spec.get("containers") or []


def _spec_env(manifest, name):
    """The three variables as the named container's spec sets them; a valueFrom (or an envFrom that may set one) is None."""
    container = next((c for c in _containers(manifest) if c.get("name") == name), None) or {}
    found = {}
    if container.get("envFrom"):
        found = dict((variable, None) for variable in selection.VARIABLES)
    for entry in container.get("env") or []:
        if entry.get("name") in selection.VARIABLES:
            found[entry["name"]] = entry.get("value") if "valueFrom" not in entry else None
    return found


def _gpu_view(gpu):
    """A facts GPU (`schema.Device`) as the transport check reads it: its identity, NUMA node and NIC links."""
    return {"index": gpu.index, "uuid": gpu.uuid, "pci_address": gpu.pci_address, "numa_node": gpu.numa_node,
            "links": {"nics": [dict(link._asdict()) for link in gpu.links]}}


def _gpus(pod_resources, pod_name, container, topology):
    """The facts GPUs (read through the facts schema) whose UUID, PCI address or MIG UUID PodResources lists for the container."""
    ids = set()
    for pod in (pod_resources or {}).get("pods") or []:
        if "%s/%s" % (pod.get("namespace"), pod.get("name")) != pod_name:
            continue
        for entry in pod.get("containers") or []:
            if entry.get("name") == container:
                ids.update(i for device in entry.get("devices") or [] for i in device.get("device_ids") or [])
    found = []
    for gpu in topology.gpus:
        if ids & (set((gpu.uuid, gpu.pci_address) + tuple(gpu.mig_devices)) - set([None])):
            found.append(_gpu_view(gpu))
    return found


def compose(reads):
    found = task_result.result(reads, "transport_task")
    if found is None:
        return None
    if found.get("failed") or not isinstance(found.get("containers"), list):
        return {"status": "not read", "error": str(found.get("msg") or NOT_READ), "findings": []}
    canary = task_result.value(reads, "canary") or {}
    topology = schema.read(task_result.value(reads, "topology"), reader="the transport check")
    nics = [{"name": nic.name, "rdma_devices": list(nic.rdma_devices)} for nic in topology.nics]
    pod_resources = task_result.result(reads, "pod_resources")
    required = bool(reads.get("transport_required"))
    names = dict((pod.get("uid"), pod.get("pod")) for pod in canary.get("pods") or [])
    pods, findings = [], []
    for entry in found["containers"]:
        if not isinstance(entry, dict):
            raise EvidenceError("placement evidence: transport_task containers entry %r is not a mapping" % (entry,), field="transport_task")
        name = names.get(entry.get("uid")) or entry.get("uid")
        gpus = _gpus(pod_resources, name, entry.get("container"), topology)
        result = _check.check(_spec_env(canary.get("manifest"), entry.get("container")), entry.get("environ"), gpus,
                              nics, pod=name, container=entry.get("container"), required=required)
        if entry.get("problem"):
            result["findings"].insert(0, {"pod": name, "container": entry.get("container"), "check": "transport_environ", "result": "unknown",
                                          "expected": None, "observed": None, "sources": {}, "message": "transport: %s" % entry["problem"]})
        pods.append({"pod": name, "uid": entry.get("uid"), "container": entry.get("container"), "pid": entry.get("pid"),
                     "status": result["status"], "gpus": [g.get("uuid") or g.get("pci_address") for g in gpus],
                     "variables": result["variables"]})
        findings.extend(result["findings"])
    states = sorted(set(pod["status"] for pod in pods))
    status = states[0] if len(states) == 1 else ("mixed" if states else "unknown")
    return {"status": status, "required": required, "pods": pods, "findings": findings}


def reasons(value):
    """The ``transport`` criterion's reasons (see the module docstring)."""
    if value is None:
        return []
    if value["status"] == "not read":
        return [{"criterion": "transport", "effect": "defer", "message": "transport not read: %s" % value.get("error")}]
    found = [{"criterion": "transport", "effect": "defer", "message": finding["message"]}
             for finding in value["findings"] if finding["result"] != "agree"]
    if found:
        return found
    return [{"criterion": "transport", "effect": "info", "message": "transport: the main container's NIC selection is %s%s" % (
        value["status"], "" if value["status"] != "pinned" else ", on each GPU's nearest NIC and NUMA node")}]
