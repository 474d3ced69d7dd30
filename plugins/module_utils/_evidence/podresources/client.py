# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A reader of the kubelet's PodResources API v1 on its unix socket: answers as plain values, failures as findings.

Public: `read`, `HAS_GRPC`, `GRPC_IMPORT_ERROR`, `PodResourcesError`, `DEFAULT_SOCKET`, `MAX_CALLS`.

`read(socket)` calls ``List`` and ``GetAllocatableResources`` (or ``Get`` for up to two pods named) and
returns {"pods", "allocatable", "findings", "libraries"}: CPU ids become canonical cpulists, NUMA
topologies lists of node ids. The messages come from messages.py (built at run time from the proto's
descriptor set: any protobuf from 3.12 on) and each call is ``channel.unary_unary`` with those classes'
serializers (any grpcio). A missing socket, a kubelet that refuses a call (its gRPC status code and
details) or one that is not there are findings, never exceptions; only a missing or unusable grpcio /
protobuf raises `PodResourcesError` (the module fails with it).

Every read is bounded: ``timeout`` is one deadline for all the calls of a `read` together (each
call gets what is left of it; a call the deadline leaves no time for is not made, and says so), and
an answer larger than `MAX_MESSAGE_BYTES` is refused by gRPC itself (``RESOURCE_EXHAUSTED``), the
bound the kubelet's own PodResources client sets (k8s.io/kubernetes pkg/kubelet/apis/podresources
``defaultPodResourcesMaxSize``, 16 MiB).
"""

from __future__ import annotations

import os
import stat
import time

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import cpulist as _cpulist
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base.errors import NumaGateError
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence.podresources import messages

# No generated _pb2 / _pb2_grpc code: the messages are built at run time from the proto's descriptor set
# (messages.py) and the unary methods called with channel.unary_unary, which every grpcio has.
try:
    import grpc
except Exception as _exc:  # pylint: disable=broad-exception-caught
    _GRPC_ERROR = "%s: %s" % (type(_exc).__name__, _exc)
else:
    _GRPC_ERROR = None
HAS_GRPC = messages.HAS_PROTOBUF and _GRPC_ERROR is None
GRPC_IMPORT_ERROR = messages.PROTOBUF_IMPORT_ERROR or _GRPC_ERROR

DEFAULT_SOCKET = "/var/lib/kubelet/pod-resources/kubelet.sock"
MAX_MESSAGE_BYTES = 16 * 1024 * 1024
# Calls per reading: List (or up to two Get) and GetAllocatableResources.
MAX_CALLS = 3
NEEDS = ("the PodResources client needs the Python libraries grpcio and protobuf (3.12 or later) on the node: python3-grpcio and "
         "python3-protobuf from the OS, or pip into a virtualenv (the podresources_client role installs them): ")


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


def _call(channel, api, method, request, deadline, socket, findings):
    """One call within what is left of ``deadline`` ((monotonic end, seconds given)); a call it leaves no time for is a finding."""
    left = deadline[0] - time.monotonic()
    if left <= 0:
        findings.append(_finding("podresources_call", "PodResources %s on %s not called: the %ss deadline for the PodResources calls had passed"
                                 % (method, socket, "%g" % deadline[1]), method=method, code="DEADLINE_EXCEEDED", details="not called"))
        return None
    path, _request_class, response_class = api.methods[method]
    call = channel.unary_unary(path, request_serializer=type(request).SerializeToString, response_deserializer=response_class.FromString)
    try:
        return call(request, timeout=left)
    except grpc.RpcError as exc:
        code = exc.code().name if exc.code() is not None else "UNKNOWN"
        findings.append(_finding("podresources_call", "PodResources %s on %s failed: %s: %s" % (method, socket, code, exc.details()),
                                 method=method, code=code, details=exc.details()))
        return None


def _picked(listed, pods, socket, findings):
    """The ``pods`` named, in their order, from a List answer (all of it when None); a pod not listed is a finding."""
    if pods is None:
        return listed
    by_key = {(pod["namespace"], pod["name"]): pod for pod in listed}
    picked = []
    for wanted in pods:
        pod = by_key.get((wanted["namespace"], wanted["name"]))
        if pod is None:
            message = "PodResources List on %s has no pod %s in namespace %s" % (socket, wanted["name"], wanted["namespace"])
            findings.append(_finding("podresources_pod", message, pod="%s/%s" % (wanted["namespace"], wanted["name"])))
        else:
            picked.append(pod)
    return picked


def _libraries(api):
    return {"protobuf": api.protobuf, "protobuf_implementation": api.implementation, "message_classes": api.factory,
            "grpcio": getattr(grpc, "__version__", None)}


def read(socket=DEFAULT_SOCKET, timeout=5.0, pods=None):
    """{"socket", "reachable", "pods", "allocatable", "findings", "libraries"} from the kubelet on ``socket``.

    ``pods``: [{"name", "namespace"}] read with ``Get`` instead of ``List`` (None: every pod, by ``List``).
    At most `MAX_CALLS` calls per reading (the kubelet limits this API to 100 calls a second, burst 10):
    more than ``MAX_CALLS - 1`` pods named are read with one ``List`` and picked from its answer.
    ``libraries``: the protobuf (version, implementation) and grpcio versions that read it.
    """
    if not HAS_GRPC:
        raise PodResourcesError(NEEDS + GRPC_IMPORT_ERROR)
    try:
        api = messages.load()
    except messages.MessagesError as exc:
        raise PodResourcesError(str(exc)) from exc
    result = {"socket": socket, "reachable": False, "pods": [], "allocatable": None, "findings": [], "libraries": _libraries(api)}
    try:
        mode = os.stat(socket).st_mode
    except OSError as exc:
        result["findings"].append(_finding("podresources_socket", "no PodResources socket at %s: %s" % (socket, exc.strerror or exc)))
        return result
    if not stat.S_ISSOCK(mode):
        result["findings"].append(_finding("podresources_socket", "%s is not a unix socket; not the kubelet's PodResources endpoint" % socket))
        return result
    deadline = (time.monotonic() + timeout, timeout)
    channel = grpc.insecure_channel("unix://" + os.path.abspath(socket), options=[("grpc.max_receive_message_length", MAX_MESSAGE_BYTES)])
    try:
        findings = result["findings"]
        if pods is None or len(pods) >= MAX_CALLS:
            answer = _call(channel, api, "List", api.request("List"), deadline, socket, findings)
            if answer is not None:
                result["pods"] = _picked([pod_value(pod) for pod in answer.pod_resources], pods, socket, findings)
        else:
            for wanted in pods:
                request = api.request("Get", pod_name=wanted["name"], pod_namespace=wanted["namespace"])
                answer = _call(channel, api, "Get", request, deadline, socket, findings)
                if answer is not None:
                    result["pods"].append(pod_value(answer.pod_resources))
        answer = _call(channel, api, "GetAllocatableResources", api.request("GetAllocatableResources"), deadline, socket, findings)
        if answer is not None:
            result["allocatable"] = {"cpu_ids": _cpulist.format(answer.cpu_ids), "memory": _memory(answer.memory),
                                     "devices": _devices(answer.devices)}
        result["reachable"] = not any(f.get("code") == "UNAVAILABLE" for f in findings)
    finally:
        channel.close()
    return result
