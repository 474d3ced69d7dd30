# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Placement findings for one pod: what the kubelet said against what the kernel shows and the oracle expects (pure).

Public: `reconcile_pod`, `DEFAULT_MIN_LOCAL_FRACTION`.

Inputs: one pod of `allocations.reconcile_allocations` (PodResources), the same pod's
`placement.read_pods` entry (cgroups, threads, pages), the container name -> container ID map from
the pod's status (``containerd://<id>`` accepted), and the locality oracle. Findings, each
{"pod", "container", "check", "result" (agree | disagree | unknown), "expected", "observed",
"sources", "message"}: ``cpuset`` (exclusive slices where the kubelet said, shared containers on
the pod's or the node's shared pool), ``thread_masks`` (every thread inside that set),
``device_locality`` (each GPU/NIC on the NUMA node of the pod's CPUs), ``memory_nodes``
(permitted memory nodes within the expected ones) and ``resident_memory`` (local-byte fraction).
"""

from __future__ import annotations

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import cpulist as _cpulist
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence import inputs
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence.placement import numa_maps

DEFAULT_MIN_LOCAL_FRACTION = 0.95


def _f(pod, container, check, ok, expected, observed, sources, message):
    return {"pod": pod, "container": container, "check": check, "result": "agree" if ok else "disagree",
            "expected": expected, "observed": observed, "sources": sources, "message": message}


def _unknown(pod, container, check, message):
    return {"pod": pod, "container": container, "check": check, "result": "unknown", "expected": None, "observed": None,
            "sources": {}, "message": message}


def _nodes_of(cpus, oracle):
    wanted = set(_cpulist.parse(cpus or ""))
    return sorted(int(node) for node, entry in oracle["by_numa_node"].items() if wanted & set(_cpulist.parse(entry["cpus"])))


def _container_checks(label, name, expected, source, view):
    found = []
    ok = view["cpus"] == expected
    found.append(_f(label, name, "cpuset", ok, expected, view["cpus"], {"expected": source, "observed": view["cpus_source"]},
                    "pod %s container %s: %s %s, the cgroup's effective CPUs are %s" % (label, name, source, expected, view["cpus"])))
    outside = [(t["tid"], t["cpus"]) for p in view["processes"] for t in p["threads"] if _cpulist.difference(t["cpus"], expected)]
    count = sum(len(p["threads"]) for p in view["processes"])
    found.append(_f(label, name, "thread_masks", not outside, expected, dict((str(tid), cpus) for tid, cpus in outside),
                    {"expected": source, "observed": "/proc/<pid>/task/*/status Cpus_allowed_list"},
                    "pod %s container %s: %d of %d threads allowed outside %s%s" % (
                        label, name, len(outside), count, expected,
                        "" if not outside else ": " + ", ".join("tid %d on %s" % item for item in outside))))
    return found


def reconcile_pod(allocation, placed, container_ids, oracle, min_local_fraction=DEFAULT_MIN_LOCAL_FRACTION):
    """[finding] for one pod (see the module docstring); every input's shape is checked first (`inputs`)."""
    allocation = inputs.check_allocation(allocation)
    placed = inputs.check_placed(placed)
    container_ids = inputs.check_container_ids(container_ids)
    min_local_fraction = inputs.check_fraction(min_local_fraction)
    label = allocation["pod"]
    findings = list(allocation.get("findings", []))
    views = {c["id"]: c for c in (placed or {}).get("containers", [])}
    for name, cid in sorted((container_ids or {}).items()):
        cid = cid.split("://", 1)[-1]
        if name in allocation["exclusive"]:
            expected, source = allocation["exclusive"][name], "the kubelet's exclusive CPUs (PodResources cpu_ids)"
        elif name in allocation["shared_containers"] and allocation["shared_cpus"] is not None:
            expected = allocation["shared_cpus"]
            source = "the %s shared pool (%s scope)" % ("pod's" if allocation["shared_pool"] == "pod" else "node's", allocation["scope"])
        else:
            findings.append(_unknown(label, name, "cpuset", "pod %s container %s: no CPU set is known for it from PodResources" % (label, name)))
            continue
        if cid not in views:
            findings.append(_unknown(label, name, "cpuset", "pod %s container %s: no cgroup for container %s under the pod's cgroup" % (label, name, cid)))
            continue
        findings.extend(_container_checks(label, name, expected, source, views[cid]))
    pod_cpus = allocation["pod_cpus"] if allocation["pod_cpus"] is not None else _cpulist.union(*allocation["exclusive"].values())
    cpu_nodes = _nodes_of(pod_cpus, oracle)
    device_nodes = []
    for name, devices in sorted(allocation.get("devices", {}).items()):
        for device in devices:
            what = "%s %s" % ((device["kind"] or "device").upper(), device["id"])
            if device["kind"] is None or device["numa_node"] is None:
                findings.append(_unknown(label, name, "device_locality", "pod %s container %s: %s (%s) is %s: its locality is unknown, not agreement"
                                         % (label, name, what, device["resource_name"],
                                            "not in the facts" if device["kind"] is None else "on an unknown NUMA node")))
                continue
            device_nodes.append(device["numa_node"])
            ok = cpu_nodes == [device["numa_node"]]
            findings.append(_f(label, name, "device_locality", ok, [device["numa_node"]], cpu_nodes,
                               {"expected": "locality oracle (%s)" % device["numa_source"], "observed": "PodResources cpu_ids"},
                               "pod %s container %s: %s (%s) is local to NUMA node %d (oracle, %s); the pod's CPUs %s are on NUMA node(s) %s"
                               % (label, name, what, device["pci_address"], device["numa_node"], device["numa_source"], pod_cpus,
                                  ",".join(str(n) for n in cpu_nodes) or "none")))
    expected_nodes = sorted(set(device_nodes)) or cpu_nodes
    basis = "the pod's devices (locality oracle)" if device_nodes else "the pod's CPUs"
    if placed and placed.get("found"):
        mems = _cpulist.union(*[c["mems"] or "" for c in placed["containers"]]) if placed["containers"] else (placed.get("mems") or "")
        outside = _cpulist.difference(mems, _cpulist.format(expected_nodes))
        findings.append(_f(label, None, "memory_nodes", not outside, _cpulist.format(expected_nodes), mems,
                           {"expected": basis, "observed": "cpuset.mems.effective"},
                           "pod %s: containers may allocate on NUMA node(s) %s; expected %s from %s"
                           % (label, mems or "none", _cpulist.format(expected_nodes) or "none", basis)))
        memory = {"normal_bytes": {}, "huge_bytes": {}, "mappings": 0}
        for view in placed["containers"]:
            memory = numa_maps.add(memory, view["memory"])
        local = numa_maps.local_fraction(memory, expected_nodes)
        ok = local["fraction"] is not None and local["fraction"] >= min_local_fraction
        findings.append(_f(label, None, "resident_memory", ok, {"nodes": expected_nodes, "min_local_fraction": min_local_fraction},
                           dict(local, normal_bytes=memory["normal_bytes"], huge_bytes=memory["huge_bytes"]),
                           {"expected": basis, "observed": "/proc/<pid>/numa_maps"},
                           "pod %s: %d of %d resident bytes (%s) on NUMA node(s) %s, at least %s wanted"
                           % (label, local["local_bytes"], local["total_bytes"],
                              "no pages" if local["fraction"] is None else "%.6f" % local["fraction"],
                              _cpulist.format(expected_nodes) or "none", min_local_fraction)))
    else:
        findings.append(_unknown(label, None, "pod_cgroup", "pod %s: its cgroup was not found on the node" % label))
    return findings
