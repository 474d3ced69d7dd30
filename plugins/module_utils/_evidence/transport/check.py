# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The transport check: the NIC the workload's main container selects against its GPUs' nearest NIC and NUMA node (pure).

Public: `check`.

Inputs: the three variables as the container spec sets them (`selection.VARIABLES` only; a value set
through ``valueFrom`` is None), the main process's `environ.read_keys` result (or None when not
read), the facts GPUs the container got (with their ``links``) and the facts NICs. The process's own
value wins where it was read; a spec value that differs from it is a finding. Findings have the
placement findings' form (``check``, ``result`` agree | disagree | unknown, ``expected``,
``observed``, ``sources``, ``message``):

- ``transport_environ``: the environ file could not be used (huge, binary, a FIFO, ...): unknown;
- ``transport_environ_differs``: the spec and the running process disagree on a variable;
- ``transport_selection``: an entry that selects nothing on the node;
- ``transport_nearest_nic``: per GPU and variable, the nearest selected device against the GPU's
  nearest device of that kind (RDMA device or interface) in the facts' link words;
- ``transport_numa``: per GPU and variable, a selected device on the GPU's NUMA node;
- ``transport_pinned``: only with ``required``: no variable selects a device.

No selection (unset, or ``UCX_NET_DEVICES=all``) is ``pinned: False``, status "not pinned" (status
"unknown" when a ``valueFrom`` value could not be read from the process), shown, not a finding unless
``required``. Only the three variables are ever read or returned.
"""

from __future__ import annotations

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence.transport import selection

_RANK = {"PIX": 1, "PXB": 2, "PHB": 3, "NODE": 4, "SYS": 5, "SOC": 5}
_SPEC = "the container spec (env)"
_ENVIRON = "the main process's /proc/<pid>/environ"


def _finding(pod, container, check, result, expected, observed, message, sources=None):
    return {"pod": pod, "container": container, "check": check, "result": result, "expected": expected, "observed": observed,
            "sources": sources or {}, "message": message}


def _effective(spec_env, environ, pod, container, findings):
    """{variable: (value or None, where from)} and the environ/spec findings."""
    read = bool(environ and environ.get("read"))
    if environ and environ.get("problem"):
        findings.append(_finding(pod, container, "transport_environ", "unknown", None, None,
                                 "transport: %s; the container spec's values are used" % environ["problem"], {"environ": _ENVIRON}))
    values = {}
    for variable in selection.VARIABLES:
        in_spec = variable in (spec_env or {})
        spec_value = (spec_env or {}).get(variable)
        if read:
            value = environ["values"].get(variable)
            if in_spec and spec_value is not None and spec_value != value:
                findings.append(_finding(pod, container, "transport_environ_differs", "disagree", spec_value, value,
                                         "transport: %s is %r in the container spec but %s in the running process"
                                         % (variable, spec_value, "unset" if value is None else repr(value)),
                                         {"expected": _SPEC, "observed": _ENVIRON}))
            values[variable] = (value, _ENVIRON)
        elif in_spec and spec_value is None:
            values[variable] = (None, "%s (valueFrom, not resolved: the process environment was not read)" % _SPEC)
        else:
            values[variable] = (spec_value, _SPEC)
    return values


def _devices(nics):
    rdma = sorted(set(device for nic in nics for device in nic.get("rdma_devices") or []))
    return rdma, sorted(set(nic["name"] for nic in nics if nic.get("name")))


def _link_of(gpu, device, kind):
    for entry in (gpu.get("links") or {}).get("nics") or []:
        if (kind == "rdma" and entry.get("rdma_device") == device) or (kind == "interface" and entry.get("name") == device):
            return entry
    return None


def _gpu_label(gpu):
    return "gpu %s" % (gpu.get("uuid") or gpu.get("pci_address") or gpu.get("index"))


def _compare(pod, container, variable, chosen, gpu, findings):
    """The nearest-NIC and NUMA findings of one GPU against one variable's selection."""
    label = _gpu_label(gpu)
    kinds = set(item["kind"] for item in chosen)
    links = [entry for entry in (gpu.get("links") or {}).get("nics") or []
             if ("rdma" in kinds and entry.get("rdma_device")) or ("interface" in kinds and entry.get("name"))]
    known = [_RANK[e["link"]] for e in links if e.get("link") in _RANK]
    best = min(known) if known else None
    nearest = sorted(set(e.get("rdma_device") or e.get("name") for e in links if best is not None and _RANK.get(e.get("link")) == best))
    observed = dict((item["device"], (_link_of(gpu, item["device"], item["kind"]) or {}).get("link")) for item in chosen)
    ranks = [_RANK[word] for word in observed.values() if word in _RANK]
    sources = {"links": "facts gpus[].links (%s)" % ", ".join(sorted(set(e["source"] for e in links))) if links else "facts gpus[].links"}
    if best is None or not ranks:
        findings.append(_finding(pod, container, "transport_nearest_nic", "unknown", nearest, observed,
                                 "transport: %s: the link from %s to %s is unknown in the facts" % (variable, label, ", ".join(observed)), sources))
    else:
        ok = min(ranks) == best
        findings.append(_finding(pod, container, "transport_nearest_nic", "agree" if ok else "disagree", nearest, observed,
                                 "transport: %s selects %s for %s; its nearest %s %s" % (
                                     variable, ", ".join("%s (%s)" % (dev, word) for dev, word in sorted(observed.items())), label,
                                     "is" if len(nearest) == 1 else "are", ", ".join(nearest)), sources))
    node = gpu.get("numa_node")
    nodes = dict((item["device"], (_link_of(gpu, item["device"], item["kind"]) or {}).get("numa_node")) for item in chosen)
    if node is None or not [n for n in nodes.values() if n is not None]:
        findings.append(_finding(pod, container, "transport_numa", "unknown", node, nodes,
                                 "transport: %s: the NUMA node of %s or of %s is unknown" % (variable, label, ", ".join(nodes))))
    else:
        ok = node in nodes.values()
        findings.append(_finding(pod, container, "transport_numa", "agree" if ok else "disagree", node, nodes,
                                 "transport: %s selects %s on NUMA node(s) %s; %s is on NUMA node %d" % (
                                     variable, ", ".join(sorted(nodes)), ", ".join(str(n) for n in sorted(set(nodes.values()), key=str)),
                                     label, node)))


def check(spec_env, environ, gpus, nics, pod=None, container=None, required=False):
    """{"pinned", "status", "variables", "findings"} for one main container (see the module docstring)."""
    findings = []
    values = _effective(spec_env, environ, pod, container, findings)
    rdma, interfaces = _devices(nics)
    variables, pinned, unresolved = {}, False, []
    for variable in selection.VARIABLES:
        value, where = values[variable]
        shown = {"value": value, "from": where, "selected": None, "unmatched": []}
        variables[variable] = shown
        if value is None and "valueFrom" in where:
            unresolved.append(variable)
        if value is None or not value.strip():
            continue
        parsed = selection.parse(variable, value)
        resolved = selection.resolve(parsed, rdma, interfaces)
        shown.update({"selected": [item["device"] + (":%s" % item["port"] if item["port"] else "") for item in resolved["selected"]],
                      "unmatched": resolved["unmatched"], "exclude": parsed["exclude"], "exact": parsed["exact"]})
        for problem in resolved["problems"]:
            findings.append(_finding(pod, container, "transport_selection", "disagree", value, None, "transport: " + problem, {"value": where}))
        if parsed["all"]:
            continue
        pinned = True
        if not resolved["selected"]:
            continue
        for gpu in gpus:
            _compare(pod, container, variable, resolved["selected"], gpu, findings)
    if pinned and not gpus:
        findings.append(_finding(pod, container, "transport_nearest_nic", "unknown", None, None,
                                 "transport: no GPU of the container maps to a GPU of the facts; the selection is not compared"))
    if not pinned and required:
        findings.append(_finding(pod, container, "transport_pinned", "disagree", "a selected NIC", None,
                                 "transport: the main container selects no NIC (%s unset or all) and evidence_transport_required is set"
                                 % ", ".join(selection.VARIABLES)))
    # A value set through valueFrom and not read from the process may pin it: unknown, not "not pinned".
    status = "pinned" if pinned else "unknown" if unresolved else "not pinned"
    return {"pinned": pinned, "status": status, "variables": variables, "findings": findings}
