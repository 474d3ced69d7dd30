# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Pods from the API for the kubelet STAND-IN (tests only; not the kubelet): admit, allocate, report status, release.

The kubelet's pod config source lists and watches the pods bound to its node
(pkg/kubelet/config/apiserver.go: fieldSelector spec.nodeName=<node>); this polls that list every
second. A new pod goes through the admit handlers (pkg/kubelet/kubelet.go HandlePodAdditions ->
canAdmitPod): here only the resource managers' handler at pod scope with pod-level resources
(cm/topologymanager scope_pod.go Admit: the providers' pod hints merged by the policy, then
AllocatePod of the CPU manager and the memory manager with the best hint; see standin_admission).
Admitted: the assignments go to the checkpoints and the pod status is set through the API as the
status manager does (pkg/kubelet/status/status_manager.go: PATCH of pods/<name>/status; phase Running,
conditions PodReadyToStartContainers, Initialized, ContainersReady, Ready, PodScheduled, container
statuses with containerIDs, qosClass). Refused: phase Failed, reason and "Pod was rejected: "
message, and a Warning event of the reason (kubelet.go rejectPod). A pod with a deletionTimestamp has its resources released
(RemoveContainer for each container) and is then deleted with grace period 0 and a UID
precondition (status_manager.go syncPod once the pod is terminated); one that vanished is released.
Pods with pod-level resources are the only ones aligned; others get the per-container exclusive CPUs
of the file-based pods (no topology check): container-scope alignment is not modelled.
"""

import datetime
import hashlib
import json
import urllib.parse

import standin_admission as adm

POLL_S = 1.0


def fmt(cpus):
    """A cpuset as cpuset.CPUSet String prints it."""
    out, run = [], []
    for cpu in sorted(cpus) + [None]:
        if run and cpu is not None and cpu == run[-1] + 1:
            run.append(cpu)
            continue
        if run:
            out.append(str(run[0]) if len(run) == 1 else "%d-%d" % (run[0], run[-1]))
        run = [cpu] if cpu is not None else []
    return ",".join(out)


def now():
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def container_id(uid, name):
    """A 64-hex container ID, as containerd's would look (cgroup cri-containerd-<id>.scope)."""
    return hashlib.sha256(("%s/%s" % (uid, name)).encode()).hexdigest()


def _condition(kind, status="True", reason=None, message=None):
    cond = {"type": kind, "status": status, "lastProbeTime": None, "lastTransitionTime": now()}
    if reason:
        cond["reason"] = reason
    if message:
        cond["message"] = message
    return cond


def running_status(pod, node_ip, qos):
    """The status a started pod has (kubelet_pods.go generateAPIPodStatus, with every container running and ready)."""
    uid, spec, started = pod["metadata"]["uid"], pod.get("spec") or {}, now()

    def statuses(containers):
        return [{"name": c["name"], "image": c.get("image", ""), "imageID": "", "containerID": "containerd://" + container_id(uid, c["name"]),
                 "ready": True, "started": True, "restartCount": 0, "state": {"running": {"startedAt": started}}} for c in containers]

    status = {"phase": "Running", "qosClass": qos, "hostIP": node_ip, "hostIPs": [{"ip": node_ip}], "startTime": started,
              "conditions": [_condition(k) for k in ("PodReadyToStartContainers", "Initialized", "Ready", "ContainersReady", "PodScheduled")],
              "containerStatuses": statuses(spec.get("containers") or [])}
    if spec.get("initContainers"):
        status["initContainerStatuses"] = statuses(spec["initContainers"])
    return status


def rejected_status(reason, message, qos):
    """kubelet.go rejectPod."""
    return {"phase": "Failed", "reason": reason, "message": "Pod was rejected: " + message, "qosClass": qos}


class PodAdmitter(object):
    """Admits the API's pods for one stand-in (its cpu/memory states, machine, config and API client)."""

    def __init__(self, kubelet, log=None):
        self.kubelet, self.log = kubelet, log or (lambda *args, **kv: None)
        self.admitted, self.refused = set(), set()
        self.pods = {}  # uid -> the admitted pod objects (the PodResources API lists them)
        self.counts = {}

    def count(self, name, **labels):
        key = (name, tuple(sorted(labels.items())))
        self.counts[key] = self.counts.get(key, 0) + 1

    # -- allocation --------------------------------------------------------------------------
    def _aligned(self):
        config = self.kubelet.config
        gates = config.get("featureGates") or {}
        return (config.get("topologyManagerScope") == "pod" and gates.get("PodLevelResourceManagers") is True
                and gates.get("PodLevelResources", True) is not False)

    def admit(self, pod):
        """(status) after admission and allocation of one new pod."""
        cpu, memory, machine = self.kubelet.cpu, self.kubelet.memory, self.kubelet.machine
        uid, qos = pod["metadata"]["uid"], adm.pod_qos(pod)
        self.pods[uid] = pod
        if not (self._aligned() and adm.is_pod_level(pod)):
            self._per_container(pod)
            return running_status(pod, self.kubelet.args.node_ip, qos)
        node_cpus = {nid: set(node["cpus"]) for nid, node in machine.nodes.items()}
        static_cpu, static_mem = cpu.policy == "static", memory.policy == "Static"
        request = adm.pod_guaranteed_cpus(pod) if static_cpu else 0
        mem_requests = adm.pod_memory_requests(pod) if static_mem and qos == "Guaranteed" else {}
        providers = []
        if request:
            empty = adm.validate_pod_scope_cpus(pod)
            providers.append({"cpu": [] if empty else adm.cpu_hints(node_cpus, cpu.default - cpu.reserved, request)})
        else:
            providers.append(None)
        providers.append(dict(adm.memory_hints(memory.state, mem_requests)) if mem_requests else None)
        if self.kubelet.config.get("topologyManagerPolicy") == "single-numa-node":
            affinity, admit = adm.merge_single_numa_node(machine.nodes, providers)
        else:
            affinity, admit = None, True
        if not admit:
            self.count("kubelet_topology_manager_admission_errors_total")
            self.pods.pop(uid, None)
            return rejected_status(*adm.topology_rejection(pod, self.kubelet.config.get("topologyManagerScope")), qos)
        if request:
            self._cpu_bubble(pod, request, affinity, node_cpus)
        if mem_requests:
            self._memory_bubble(pod, mem_requests, affinity if affinity else {min(machine.nodes)})
        cpu.save()
        memory.save()
        self.admitted.add(uid)
        return running_status(pod, self.kubelet.args.node_ip, qos)

    def _per_container(self, pod):
        cpu, uid = self.kubelet.cpu, pod["metadata"]["uid"]
        for container in pod["spec"].get("containers") or []:
            count = adm.guaranteed_cpus(pod, container)
            if count:
                cpu.allocate(uid, container["name"], count)
        cpu.save()
        self.admitted.add(uid)

    def _cpu_bubble(self, pod, request, affinity, node_cpus):
        """policy_static.go AllocatePod: the pod's CPUs, then each exclusive container's, the rest shared."""
        cpu, uid = self.kubelet.cpu, pod["metadata"]["uid"]
        cores = list(self.kubelet.machine.cores.values())
        available = cpu.default - cpu.reserved
        aligned = available & set().union(*(node_cpus[n] for n in affinity)) if affinity else set()
        bubble = adm.take_by_topology(cores, aligned, min(request, len(aligned))) or set()
        bubble |= adm.take_by_topology(cores, available - bubble, request - len(bubble)) or set()
        cpu.default -= bubble
        cpu.pod_entries[uid] = set(bubble)
        exclusive, sidecars = {}, set()
        for container in pod["spec"].get("initContainers") or []:
            count = adm.guaranteed_cpus(pod, container)
            if count:
                cpu.pinning_requests += 1
                exclusive[container["name"]] = adm.take_by_topology(cores, bubble - sidecars, count)
                if adm.is_restartable(container):
                    sidecars |= exclusive[container["name"]]
            elif not adm.is_restartable(container):
                exclusive[container["name"]] = bubble - sidecars
        shared = bubble - sidecars
        for container in pod["spec"].get("containers") or []:
            count = adm.guaranteed_cpus(pod, container)
            if count:
                cpu.pinning_requests += 1
                exclusive[container["name"]] = adm.take_by_topology(cores, shared, count)
                shared = shared - exclusive[container["name"]]
                self.count("resource_manager_container_assignments", resource_name="cpu", assignment_type="pod_exclusive")
        # policy_static.go logs the same at V(4): "Partitioned pod-level CPU allocation"
        self.log("I", "Partitioned pod-level CPU allocation", pod="%s/%s" % (pod["metadata"].get("namespace"), pod["metadata"]["name"]), podUID=uid,
                 podCPUs=fmt(bubble), exclusiveCPUs=",".join("%s=%s" % (n, fmt(c)) for n, c in sorted(exclusive.items())), podSharedPool=fmt(shared))
        entries = cpu.entries.setdefault(uid, {})
        for container in (pod["spec"].get("initContainers") or []) + (pod["spec"].get("containers") or []):
            entries[container["name"]] = set(exclusive.get(container["name"], shared))
            if container["name"] not in exclusive:
                self.count("resource_manager_container_assignments", resource_name="cpu", assignment_type="pod_shared")
            self.count("resource_manager_allocations_total", resource_name="cpu", source="pod")
        cpu.dirty = True

    def _memory_bubble(self, pod, requests, affinity):
        """memorymanager policy_static.go AllocatePod and updateMachineState."""
        memory, uid, nodes = self.kubelet.memory, pod["metadata"]["uid"], sorted(affinity)
        memory.pinning_requests += 1
        exclusive, sidecar = {}, {}
        for container in pod["spec"].get("initContainers") or []:
            reqs = adm.container_memory_requests(pod, container)
            if not reqs:
                if not adm.is_restartable(container):
                    exclusive[container["name"]] = [{"numaAffinity": nodes, "type": k, "size": v - sidecar.get(k, 0)} for k, v in sorted(requests.items())]
                continue
            exclusive[container["name"]] = [{"numaAffinity": nodes, "type": k, "size": v} for k, v in sorted(reqs.items()) if v > 0]
            if adm.is_restartable(container):
                for kind, size in reqs.items():
                    sidecar[kind] = sidecar.get(kind, 0) + size
        pool = {kind: size - sidecar.get(kind, 0) for kind, size in requests.items()}
        for container in pod["spec"].get("containers") or []:
            reqs = adm.container_memory_requests(pod, container)
            if reqs:
                memory.pinning_requests += 1
                exclusive[container["name"]] = [{"numaAffinity": nodes, "type": k, "size": v} for k, v in sorted(reqs.items()) if v > 0]
                for kind, size in reqs.items():
                    pool[kind] = pool.get(kind, 0) - size
        shared = [{"numaAffinity": nodes, "type": k, "size": v} for k, v in sorted(pool.items()) if v > 0]
        memory.pod_entries[uid] = [{"numaAffinity": nodes, "type": k, "size": v} for k, v in sorted(requests.items())]
        for kind, size in sorted(requests.items()):
            left = size
            for nid in nodes:
                node = memory.state[nid]
                node["numberOfAssignments"] += 1
                node["cells"] = list(nodes)
                table = node["memoryMap"].get(kind)
                if not left or table is None or table["free"] <= 0:
                    continue
                taken = min(left, table["free"])
                table["reserved"] += taken
                table["free"] -= taken
                left -= taken
        entries = memory.entries.setdefault(uid, {})
        for container in (pod["spec"].get("initContainers") or []) + (pod["spec"].get("containers") or []):
            entries[container["name"]] = exclusive.get(container["name"], shared)
            self.count("resource_manager_allocations_total", resource_name="memory", source="pod")
        memory.dirty = True

    def release(self, uid):
        self.kubelet.cpu.release(uid)
        self.kubelet.memory.release(uid)
        self.kubelet.cpu.save()
        self.kubelet.memory.save()
        self.admitted.discard(uid)
        self.refused.discard(uid)
        self.pods.pop(uid, None)

    # -- the API ------------------------------------------------------------------------------
    def list_pods(self):
        selector = urllib.parse.quote("spec.nodeName=%s" % self.kubelet.node_name)
        code, body = self.kubelet.request("GET", "/api/v1/pods?fieldSelector=%s" % selector)
        if code != 200:
            raise OSError("listing the node's pods: HTTP %d %s" % (code, body[:200]))
        return json.loads(body).get("items") or []

    def put_status(self, pod, status):
        path = "/api/v1/namespaces/%s/pods/%s/status" % (pod["metadata"].get("namespace", "default"), pod["metadata"]["name"])
        return self.kubelet.request("PATCH", path, {"status": status}, "application/merge-patch+json")[0]

    def post_event(self, pod, reason, message):
        """kubelet.go rejectPod: a Warning event with the reason and the message without its "Pod was rejected: " prefix."""
        meta, stamp = pod["metadata"], now()
        namespace = meta.get("namespace", "default")
        event = {"apiVersion": "v1", "kind": "Event", "metadata": {"name": "%s.%s" % (meta["name"], meta["uid"][:8]), "namespace": namespace},
                 "involvedObject": {"kind": "Pod", "apiVersion": "v1", "namespace": namespace, "name": meta["name"], "uid": meta["uid"]},
                 "reason": reason, "message": message, "type": "Warning", "count": 1, "firstTimestamp": stamp, "lastTimestamp": stamp,
                 "source": {"component": "kubelet", "host": self.kubelet.node_name}}
        return self.kubelet.request("POST", "/api/v1/namespaces/%s/events" % namespace, event)[0]

    def delete_now(self, pod):
        path = "/api/v1/namespaces/%s/pods/%s" % (pod["metadata"].get("namespace", "default"), pod["metadata"]["name"])
        body = {"kind": "DeleteOptions", "apiVersion": "v1", "gracePeriodSeconds": 0, "preconditions": {"uid": pod["metadata"]["uid"]}}
        return self.kubelet.request("DELETE", path, body)[0]

    def known(self, pod):
        """A pod this process did not admit but whose assignments the checkpoints hold (a restart): adopt it."""
        uid = pod["metadata"]["uid"]
        return uid in self.kubelet.cpu.entries or uid in self.kubelet.cpu.pod_entries or uid in self.kubelet.memory.entries

    def sync(self):
        """One pass: release the gone and the deleted, admit the new."""
        pods = self.list_pods()
        present = {p["metadata"]["uid"] for p in pods}
        for uid in sorted((self.admitted | self.refused) - present):
            self.release(uid)
        for pod in pods:
            uid = pod["metadata"]["uid"]
            phase = (pod.get("status") or {}).get("phase")
            if pod["metadata"].get("deletionTimestamp"):
                if uid in self.admitted or self.known(pod):
                    self.release(uid)
                self.delete_now(pod)
                continue
            if uid in self.admitted or uid in self.refused or phase in ("Failed", "Succeeded"):
                continue
            if phase == "Running" and self.known(pod):
                self.admitted.add(uid)
                self.pods[uid] = pod
                continue
            status = self.admit(pod)
            if status["phase"] == "Failed":
                self.refused.add(uid)
                self.post_event(pod, status["reason"], status["message"][len("Pod was rejected: "):])
            self.put_status(pod, status)

    def metrics(self, extra=None):
        """The counted families as the kubelet's registry exposes them: one block per family under its TYPE line.

        Every series here only grows, so each family is a counter (component-base/metrics NewCounterVec; the 1.37
        docs list resource_manager_container_assignments as a counter kept without its _total suffix, on
        promlint's exceptionMetrics list). ``extra``: series of the stand-in itself, merged in their family.
        """
        counts = dict(self.counts)
        counts.update(extra or {})
        lines, family = [], None
        for (name, labels), value in sorted(counts.items()):
            if name != family:
                family = name
                lines.append("# TYPE %s counter\n" % name)
            text = ",".join('%s="%s"' % item for item in labels)
            lines.append("%s%s %d\n" % (name, "{%s}" % text if text else "", value))
        return "".join(lines)
