# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A reader of the kubelet's PodResources API v1 on its unix socket: answers as plain values, failures as findings.

Public: `read`, `HAS_GRPC`, `GRPC_IMPORT_ERROR`, `PodResourcesError`, `DEFAULT_SOCKET`.

`read(socket)` calls ``List`` and ``GetAllocatableResources`` (and ``Get`` for the pods named) and
returns {"pods", "allocatable", "findings"}: CPU ids become canonical cpulists, NUMA topologies
lists of node ids. A missing socket, a kubelet that refuses a call (its gRPC status code and
details) or one that is not there are findings, never exceptions; only a missing grpcio /
protobuf raises `PodResourcesError` (the module fails with it).
"""

from __future__ import annotations

import os
import stat

from ansible_collections.gpusmith.numa_gate.plugins.module_utils import _cpulist
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._errors import NumaGateError

# The generated modules import without grpcio / protobuf (they set HAS_GRPC / HAS_PROTOBUF); importing
# them can still raise when the installed versions are older than the generated code's (its version checks).
try:
    from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence.podresources import api_pb2
    from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence.podresources import api_pb2_grpc
except Exception as _exc:  # pylint: disable=broad-exception-caught
    HAS_GRPC = False
    GRPC_IMPORT_ERROR = "%s: %s" % (type(_exc).__name__, _exc)
else:
    HAS_GRPC = api_pb2.HAS_PROTOBUF and api_pb2_grpc.HAS_GRPC
    GRPC_IMPORT_ERROR = api_pb2.PROTOBUF_IMPORT_ERROR or api_pb2_grpc.GRPC_IMPORT_ERROR
if HAS_GRPC:
    import grpc

DEFAULT_SOCKET = "/var/lib/kubelet/pod-resources/kubelet.sock"


class PodResourcesError(NumaGateError):
    """The PodResources API cannot be used from this node at all (its client libraries are missing)."""


def _nodes(topology):
    return sorted(node.ID for node in topology.nodes) if topology is not None else []


def _memory(blocks):
    return [{"memory_type": b.memory_type, "size": b.size, "numa_nodes": _nodes(b.topology)} for b in blocks]


def _devices(devices):
    return [{"resource_name": d.resource_name, "device_ids": list(d.device_ids), "numa_nodes": _nodes(d.topology)} for d in devices]


def _dynamic(resources):
    return [{"claim_name": r.claim_name, "claim_namespace": r.claim_namespace,
             "claim_resources": [{"driver_name": c.driver_name, "pool_name": c.pool_name, "device_name": c.device_name,
                                  "cdi_devices": [d.name for d in c.cdi_devices]} for c in r.claim_resources]} for r in resources]


def pod_value(pod):
    """One PodResources message as a dict (fields 4 and 5 as ``cpu_ids`` and ``memory``)."""
    return {
        "name": pod.name, "namespace": pod.namespace,
        "cpu_ids": _cpulist.format(pod.cpu_ids), "memory": _memory(pod.memory),
        "containers": [{"name": c.name, "cpu_ids": _cpulist.format(c.cpu_ids), "devices": _devices(c.devices),
                        "memory": _memory(c.memory), "dynamic_resources": _dynamic(c.dynamic_resources)} for c in pod.containers],
    }


def _finding(check, message, **values):
    entry = {"check": check, "result": "unknown", "message": message}
    entry.update(values)
    return entry


def _call(stub, method, request, timeout, socket, findings):
    try:
        return getattr(stub, method)(request, timeout=timeout)
    except grpc.RpcError as exc:
        code = exc.code().name if exc.code() is not None else "UNKNOWN"
        findings.append(_finding("podresources_call", "PodResources %s on %s failed: %s: %s" % (method, socket, code, exc.details()),
                                 method=method, code=code, details=exc.details()))
        return None


def read(socket=DEFAULT_SOCKET, timeout=5.0, pods=None):
    """{"socket", "reachable", "pods", "allocatable", "findings"} from the kubelet on ``socket``.

    ``pods``: [{"name", "namespace"}] read with ``Get`` instead of ``List`` (None: every pod, by ``List``).
    """
    if not HAS_GRPC:
        raise PodResourcesError("the PodResources client needs the Python libraries grpcio and protobuf on the node "
                                "(pip install grpcio protobuf): %s" % GRPC_IMPORT_ERROR)
    result = {"socket": socket, "reachable": False, "pods": [], "allocatable": None, "findings": []}
    try:
        mode = os.stat(socket).st_mode
    except OSError as exc:
        result["findings"].append(_finding("podresources_socket", "no PodResources socket at %s: %s" % (socket, exc.strerror or exc)))
        return result
    if not stat.S_ISSOCK(mode):
        result["findings"].append(_finding("podresources_socket", "%s is not a unix socket; not the kubelet's PodResources endpoint" % socket))
        return result
    channel = grpc.insecure_channel("unix://" + os.path.abspath(socket))
    try:
        stub = api_pb2_grpc.PodResourcesListerStub(channel)
        findings = result["findings"]
        if pods is None:
            answer = _call(stub, "List", api_pb2.ListPodResourcesRequest(), timeout, socket, findings)
            if answer is not None:
                result["pods"] = [pod_value(pod) for pod in answer.pod_resources]
        else:
            for wanted in pods:
                request = api_pb2.GetPodResourcesRequest(pod_name=wanted["name"], pod_namespace=wanted["namespace"])
                answer = _call(stub, "Get", request, timeout, socket, findings)
                if answer is not None:
                    result["pods"].append(pod_value(answer.pod_resources))
        answer = _call(stub, "GetAllocatableResources", api_pb2.AllocatableResourcesRequest(), timeout, socket, findings)
        if answer is not None:
            result["allocatable"] = {"cpu_ids": _cpulist.format(answer.cpu_ids), "memory": _memory(answer.memory),
                                     "devices": _devices(answer.devices)}
        result["reachable"] = not any(f.get("code") == "UNAVAILABLE" for f in findings)
    finally:
        channel.close()
    return result
