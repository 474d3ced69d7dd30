# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The PodResources API v1 of the kubelet STAND-IN (tests only; not the kubelet): List, GetAllocatableResources, Get on a unix socket.

It stands for the kubelet's pod resources gRPC server (k8s.io/kubernetes pkg/kubelet/apis/podresources
server_v1.go, served by pkg/kubelet/server ListenAndServePodResources on
``<root-dir>/pod-resources/kubelet.sock``, pkg/kubelet/kubelet_getters.go getPodResourcesDir) and answers
from the assignments this stand-in made (its CPU and memory managers' state). Written from the kubelet's
source, independently of the collection: it imports nothing from plugins/ and carries its own
descriptor of the messages, written here from k8s.io/kubelet pkg/apis/podresources/v1/api.proto (read
at 63b3249724f7d89a8aa48f9acb3811f193c9aa68, which has PodResources.cpu_ids = 4 and memory = 5).
Needs grpcio and protobuf (Debian bookworm's python3-grpcio 1.51 and python3-protobuf 3.21 do; so do
grpcio 1.85 and protobuf 7.x): the message classes are built from that descriptor with
message_factory.GetMessageClass where it exists, MessageFactory(pool).GetPrototype where it does not.

Behaviours and their source:
- Methods ``/v1.PodResourcesLister/List``, ``/GetAllocatableResources``, ``/Get`` (api.proto, package v1).
- List: the active pods (server_v1.go List with useActivePods: GetActivePods, i.e. not Failed or
  Succeeded), each with its restartable init containers (sidecars) then its app containers
  (podutil.IsRestartableInitContainer), each container's devices (below), its
  cpu_ids (cpumanager GetExclusiveCPUs: the container's own assignment) and memory (memorymanager
  GetMemory: its own blocks, containerMemoryFromBlock: type, size, NUMA nodes).
- Pod-level fields (api.proto comment on fields 4 and 5, PR #138738 "Report pod level resources in
  PodResources API"; KEP-5526): populated only for a pod with a pod-level exclusive allocation: the
  pod's whole CPU set and memory blocks, overlapping its exclusive containers' sets. A container
  without its own exclusive CPUs (or memory) runs on the pod's shared pool and reports none
  (approximate: the provider code of that PR was not in the searchable corpus; the proto comment
  and the KEP say so).
- Get: ``pod %s in namespace %s not found`` for an unknown pod (server_v1.go Get), a plain Go error,
  so gRPC status UNKNOWN with that message.
- GetAllocatableResources: CPUs = online minus reserved under the static policy, none under
  ``none`` (cpumanager policy_static.go GetAllocatableCPUs, policy_none.go); memory = per NUMA node
  and type the machine state's allocatable, non-zero ones only, under Static, none under None
  (memorymanager policy_static.go getAllocatableMemory); devices: the named ones (below).
- Rate limit: 100 calls a second, burst 10; over it ``rejected by rate limit`` (RESOURCE_EXHAUSTED)
  (pkg/kubelet/apis/podresources/grpc/ratelimit.go DefaultQPS, DefaultBurstTokens, LimiterUnaryServerInterceptor).
- A stale socket file is removed before listening (pkg/kubelet/util/util_unix.go CreateListener).
- Devices (with ``--device-plugins``): a device plugin stand-in's registration may name its devices,
  ``"ids": [...]`` and ``"numaNodes": [...]`` (one node or null each), as a plugin's ListAndWatch gives the
  device IDs and their TopologyInfo (pkg/kubelet/cm/devicemanager manager.go); NVIDIA's plugin names a MIG device
  ``MIG-<uuid>`` under ``nvidia.com/mig-<profile>`` and gives it its parent's NUMA node (k8s-device-plugin
  internal/rm/nvml_devices.go). Each container's limit of such a resource is given the next free IDs, pods in
  the order the stand-in lists them (approximate: the device manager's devicesToAllocate prefers devices aligned
  with the Topology Manager's hint), reported in List as ``devices`` with each device's NUMA node
  (containerDevicesFromResourceDeviceInstances), and every named device in GetAllocatableResources.
- Dynamic resources (with ``--api-server``): for each ``resources.claims[]`` of a container, the pod's
  ``spec.resourceClaims[]`` entry of that name (its ``resourceClaimName``, else the name the ResourceClaim
  controller recorded in ``status.resourceClaimStatuses``), the ResourceClaim read from the API and one
  ClaimResource per ``status.allocation.devices.results[]`` (driver, pool, device), only the named ``request``'s
  when the container names one (server_v1.go getContainerDynamicResources with the
  KubeletPodResourcesDynamicResources gate; the DRA manager's claim info is the claim's allocation, and a
  container's claim with a request gets only that request's devices: KEP-4381 ``resources.claims[].request``).
"""

import json
import os
import threading
import time
import urllib.parse
from concurrent import futures

import grpc
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

import standin_admission as adm

SERVICE = "v1.PodResourcesLister"
SOCKET_DIR, SOCKET_NAME = "pod-resources", "kubelet.sock"
QPS, BURST = 100.0, 10

_T = descriptor_pb2.FieldDescriptorProto
# message -> [(field, number, type, repeated, message type)], as api.proto declares them.
MESSAGES = {
    "AllocatableResourcesRequest": [],
    "AllocatableResourcesResponse": [("devices", 1, _T.TYPE_MESSAGE, True, "ContainerDevices"), ("cpu_ids", 2, _T.TYPE_INT64, True, None),
                                     ("memory", 3, _T.TYPE_MESSAGE, True, "ContainerMemory")],
    "ListPodResourcesRequest": [],
    "ListPodResourcesResponse": [("pod_resources", 1, _T.TYPE_MESSAGE, True, "PodResources")],
    "PodResources": [("name", 1, _T.TYPE_STRING, False, None), ("namespace", 2, _T.TYPE_STRING, False, None),
                     ("containers", 3, _T.TYPE_MESSAGE, True, "ContainerResources"), ("cpu_ids", 4, _T.TYPE_INT64, True, None),
                     ("memory", 5, _T.TYPE_MESSAGE, True, "ContainerMemory")],
    "ContainerResources": [("name", 1, _T.TYPE_STRING, False, None), ("devices", 2, _T.TYPE_MESSAGE, True, "ContainerDevices"),
                           ("cpu_ids", 3, _T.TYPE_INT64, True, None), ("memory", 4, _T.TYPE_MESSAGE, True, "ContainerMemory"),
                           ("dynamic_resources", 5, _T.TYPE_MESSAGE, True, "DynamicResource")],
    "ContainerMemory": [("memory_type", 1, _T.TYPE_STRING, False, None), ("size", 2, _T.TYPE_UINT64, False, None),
                        ("topology", 3, _T.TYPE_MESSAGE, False, "TopologyInfo")],
    "ContainerDevices": [("resource_name", 1, _T.TYPE_STRING, False, None), ("device_ids", 2, _T.TYPE_STRING, True, None),
                         ("topology", 3, _T.TYPE_MESSAGE, False, "TopologyInfo")],
    "TopologyInfo": [("nodes", 1, _T.TYPE_MESSAGE, True, "NUMANode")],
    "NUMANode": [("ID", 1, _T.TYPE_INT64, False, None)],
    "DynamicResource": [("claim_name", 2, _T.TYPE_STRING, False, None), ("claim_namespace", 3, _T.TYPE_STRING, False, None),
                        ("claim_resources", 4, _T.TYPE_MESSAGE, True, "ClaimResource")],
    "ClaimResource": [("cdi_devices", 1, _T.TYPE_MESSAGE, True, "CDIDevice"), ("driver_name", 2, _T.TYPE_STRING, False, None),
                      ("pool_name", 3, _T.TYPE_STRING, False, None), ("device_name", 4, _T.TYPE_STRING, False, None)],
    "CDIDevice": [("name", 1, _T.TYPE_STRING, False, None)],
    "GetPodResourcesRequest": [("pod_name", 1, _T.TYPE_STRING, False, None), ("pod_namespace", 2, _T.TYPE_STRING, False, None)],
    "GetPodResourcesResponse": [("pod_resources", 1, _T.TYPE_MESSAGE, False, "PodResources")],
}
METHODS = {"List": ("ListPodResourcesRequest", "ListPodResourcesResponse"),
           "GetAllocatableResources": ("AllocatableResourcesRequest", "AllocatableResourcesResponse"),
           "Get": ("GetPodResourcesRequest", "GetPodResourcesResponse")}


def file_descriptor():
    """api.proto as a FileDescriptorProto (proto3, package v1; ClaimResource.share_id, optional, is left out: nothing here sets it)."""
    proto = descriptor_pb2.FileDescriptorProto(name="standin/podresources/v1/api.proto", package="v1", syntax="proto3")
    for name, fields in MESSAGES.items():
        message = proto.message_type.add(name=name)
        for field, number, kind, repeated, type_name in fields:
            entry = message.field.add(name=field, number=number, type=kind, json_name=field,
                                      label=_T.LABEL_REPEATED if repeated else _T.LABEL_OPTIONAL)
            if type_name:
                entry.type_name = ".v1." + type_name
    service = proto.service.add(name="PodResourcesLister")
    for method, (request, response) in METHODS.items():
        service.method.add(name=method, input_type=".v1." + request, output_type=".v1." + response)
    return proto


def message_classes():
    """{name: class}, built in a private pool on any protobuf from 3.12 to 7.x."""
    pool = descriptor_pool.DescriptorPool()
    pool.Add(file_descriptor())
    get_class = getattr(message_factory, "GetMessageClass", None)
    if get_class is None:
        factory = message_factory.MessageFactory(pool)
        get_class = factory.GetPrototype
    return {name: get_class(pool.FindMessageTypeByName("v1." + name)) for name in MESSAGES}


def socket_path(root_dir):
    return os.path.join(root_dir, SOCKET_DIR, SOCKET_NAME)


class RateLimiter(object):
    """A token bucket (golang.org/x/time/rate as ratelimit.go uses it): QPS tokens a second, BURST at most."""

    def __init__(self, qps=QPS, burst=BURST):
        self.qps, self.burst, self.tokens, self.at, self.lock = qps, burst, float(burst), time.monotonic(), threading.Lock()

    def allow(self):
        with self.lock:
            now = time.monotonic()
            self.tokens = min(self.burst, self.tokens + (now - self.at) * self.qps)
            self.at = now
            if self.tokens < 1:
                return False
            self.tokens -= 1
            return True


class PodResourcesServer(object):
    """The v1 server over one stand-in (its cpu/memory states, machine, file pods and API pods under its lock)."""

    def __init__(self, kubelet, pods, log=None):
        self.kubelet, self.pods, self.log = kubelet, pods, log or (lambda *args, **kv: None)
        self.classes, self.limiter, self.server = message_classes(), RateLimiter(), None

    # -- providers ---------------------------------------------------------------------------
    def _memory(self, blocks):
        memory = self.classes["ContainerMemory"]
        return [memory(memory_type=b["type"], size=int(b["size"]), topology={"nodes": [{"ID": int(n)} for n in b["numaAffinity"]]})
                for b in blocks or []]

    def _topology(self, nodes):
        return {"nodes": [{"ID": int(n)} for n in nodes]}

    def registered(self):
        """{resource: [(id, NUMA node or None)]} of the registrations that name their devices (``ids``, ``numaNodes``)."""
        folder = os.path.join(self.kubelet.args.root_dir, "device-plugins")
        if not getattr(self.kubelet.args, "device_plugins", False) or not os.path.isdir(folder):
            return {}
        found = {}
        for name in sorted(os.listdir(folder)):
            try:
                with open(os.path.join(folder, name), encoding="utf-8") as stream:
                    entry = json.load(stream) if name.endswith(".json") else {}
                ids, nodes = [str(i) for i in entry.get("ids") or []], list(entry.get("numaNodes") or [])
            except (OSError, ValueError, TypeError, AttributeError):
                continue
            if ids:
                found[str(entry["resourceName"])] = [(i, nodes[k] if k < len(nodes) else None) for k, i in enumerate(ids)]
        return found

    def device_assignments(self, pods):
        """{(pod uid, container): [(resource, [(id, node)])]}: each container's limits of a named resource, the next free devices."""
        free, out = {k: list(v) for k, v in self.registered().items()}, {}
        for pod in pods:
            spec = pod.get("spec") or {}
            for container in [c for c in spec.get("initContainers") or [] if adm.is_restartable(c)] + list(spec.get("containers") or []):
                limits = (container.get("resources") or {}).get("limits") or {}
                for resource in sorted(r for r in limits if r in free):
                    count = int(str(limits[resource]))
                    taken, free[resource] = free[resource][:count], free[resource][count:]
                    out.setdefault((pod["metadata"]["uid"], container["name"]), []).append((resource, taken))
        return out

    def _claim(self, namespace, name):
        path = "/apis/resource.k8s.io/v1/namespaces/%s/resourceclaims/%s" % (urllib.parse.quote(namespace), urllib.parse.quote(name))
        code, body = self.kubelet.request("GET", path)
        return json.loads(body) if code == 200 else None

    def _dynamic(self, pod, container):
        """The container's DynamicResources from its claims' allocations in the API (none without an API server)."""
        if not getattr(self.kubelet.args, "api_server", None):
            return []
        spec, namespace = pod.get("spec") or {}, pod["metadata"].get("namespace", "default")
        by_name = {c.get("name"): c for c in spec.get("resourceClaims") or []}
        recorded = {s.get("name"): s.get("resourceClaimName") for s in (pod.get("status") or {}).get("resourceClaimStatuses") or []}
        out = []
        for ref in (container.get("resources") or {}).get("claims") or []:
            entry = by_name.get(ref.get("name")) or {}
            claim_name = entry.get("resourceClaimName") or recorded.get(ref.get("name"))
            claim = self._claim(namespace, claim_name) if claim_name else None
            if claim is None:
                continue
            results = ((((claim.get("status") or {}).get("allocation") or {}).get("devices") or {}).get("results")) or []
            resources = [self.classes["ClaimResource"](driver_name=r["driver"], pool_name=r["pool"], device_name=r["device"])
                         for r in results if not ref.get("request") or r.get("request") == ref["request"]]
            out.append(self.classes["DynamicResource"](claim_name=claim_name, claim_namespace=namespace, claim_resources=resources))
        return out

    def _container(self, pod, container, pod_level, devices=()):
        uid, name = pod["metadata"]["uid"], container["name"]
        cpus = self.kubelet.cpu.entries.get(uid, {}).get(name) or set()
        blocks = (self.kubelet.memory.entries.get(uid) or {}).get(name) or []
        if pod_level:  # a container with no exclusive share of its own runs on the pod's shared pool and reports none
            cpus = cpus if adm.guaranteed_cpus(pod, container) else set()
            blocks = blocks if adm.container_memory_requests(pod, container) else []
        groups = [self.classes["ContainerDevices"](resource_name=resource, device_ids=[i], topology=self._topology([] if n is None else [n]))
                  for resource, taken in devices for i, n in taken]
        return self.classes["ContainerResources"](name=name, cpu_ids=sorted(cpus), memory=self._memory(blocks), devices=groups,
                                                  dynamic_resources=self._dynamic(pod, container))

    def pod_resources(self, pod, assigned=None):
        uid, spec = pod["metadata"]["uid"], pod.get("spec") or {}
        assigned = self.device_assignments(self.active_pods()) if assigned is None else assigned
        pod_cpus = self.kubelet.cpu.pod_entries.get(uid) or set()
        pod_blocks = self.kubelet.memory.pod_entries.get(uid) or []
        pod_level = bool(pod_cpus or pod_blocks)
        containers = [c for c in spec.get("initContainers") or [] if adm.is_restartable(c)] + list(spec.get("containers") or [])
        return self.classes["PodResources"](name=pod["metadata"]["name"], namespace=pod["metadata"].get("namespace", "default"),
                                            containers=[self._container(pod, c, pod_level, assigned.get((uid, c["name"]), ())) for c in containers],
                                            cpu_ids=sorted(pod_cpus), memory=self._memory(pod_blocks))

    def active_pods(self):
        return [p for p in self.pods() if ((p.get("status") or {}).get("phase")) not in ("Failed", "Succeeded")]

    # -- methods -----------------------------------------------------------------------------
    def list(self, request, context):
        with self.kubelet.lock:
            active = self.active_pods()
            assigned = self.device_assignments(active)
            return self.classes["ListPodResourcesResponse"](pod_resources=[self.pod_resources(p, assigned) for p in active])

    def get(self, request, context):
        with self.kubelet.lock:
            for pod in self.pods():
                if pod["metadata"]["name"] == request.pod_name and pod["metadata"].get("namespace", "default") == request.pod_namespace:
                    return self.classes["GetPodResourcesResponse"](pod_resources=self.pod_resources(pod))
        context.abort(grpc.StatusCode.UNKNOWN, "pod %s in namespace %s not found" % (request.pod_name, request.pod_namespace))
        return None

    def allocatable(self, request, context):
        cpu, memory = self.kubelet.cpu, self.kubelet.memory
        with self.kubelet.lock:
            cpus = sorted(set(self.kubelet.machine.online) - cpu.reserved) if cpu.policy == "static" else []
            blocks = []
            if memory.policy == "Static":
                for nid in sorted(memory.state):
                    for kind, table in sorted((memory.state[nid].get("memoryMap") or {}).items()):
                        if int(table.get("allocatable", 0)):
                            blocks.append({"type": kind, "size": int(table["allocatable"]), "numaAffinity": [nid]})
            devices = [self.classes["ContainerDevices"](resource_name=r, device_ids=[i], topology=self._topology([] if n is None else [n]))
                       for r, named in sorted(self.registered().items()) for i, n in named]
            return self.classes["AllocatableResourcesResponse"](cpu_ids=cpus, memory=self._memory(blocks), devices=devices)

    def _limited(self, method):
        def call(request, context):
            if not self.limiter.allow():
                context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED, "rejected by rate limit")
            return method(request, context)
        return call

    # -- serving -----------------------------------------------------------------------------
    def start(self, path):
        """Listen on the unix socket ``path`` (a stale file removed first, the directory made)."""
        os.makedirs(os.path.dirname(path), exist_ok=True)
        if os.path.lexists(path):
            os.unlink(path)
        handlers = {}
        for method, function in (("List", self.list), ("GetAllocatableResources", self.allocatable), ("Get", self.get)):
            request, response = METHODS[method]
            handlers[method] = grpc.unary_unary_rpc_method_handler(self._limited(function), request_deserializer=self.classes[request].FromString,
                                                                   response_serializer=self.classes[response].SerializeToString)
        self.server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
        self.server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(SERVICE, handlers),))
        if not self.server.add_insecure_port("unix:" + path):
            raise OSError("cannot listen on unix:%s" % path)
        self.server.start()
        self.log("I", "Starting to serve the podresources API", endpoint="unix:" + path)
        return self.server

    def stop(self):
        if self.server is not None:
            self.server.stop(0)
