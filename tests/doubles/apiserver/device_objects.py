# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Seeding a node's device path into the API server double: plugin DaemonSets and their pods, ConfigMaps,
ResourceSlices and the extended resources a Node advertises. A TEST DOUBLE's seeding, not a real component.

What each object stands for, as the real components write it:
- a device plugin's DaemonSet and its pod on the node (apps/v1 DaemonSet; the pod carries a controller
  ownerReference to it, k8s.io/kubernetes pkg/controller/daemon); the containers are given whole (image,
  env, args, securityContext), as in NVIDIA/k8s-device-plugin deployments/static/*.yml or
  k8snetworkplumbingwg/sriov-network-device-plugin deployments/sriovdp-daemonset.yaml;
- a ConfigMap (core v1 ``data``: string to string), e.g. the SR-IOV plugin's ``sriovdp-config`` with
  ``config.json`` (deployments/configMap.yaml there);
- a ResourceClaim (resource.k8s.io/v1: ``spec.devices.requests`` and, once allocated, ``status.allocation.devices.results``
  [{request, driver, pool, device}]), as a user creates it and the scheduler allocates it;
- a ResourceSlice (resource.k8s.io/v1 ResourceSliceSpec: ``driver``, ``pool`` {name, generation,
  resourceSliceCount}, ``nodeName``, ``devices`` [{name, attributes: {qualified name: {int|bool|string|version|ints: ...}}}]),
  as a DRA driver's kubelet plugin publishes it (k8s.io/api resource/v1 types.go);
- the Node's ``status.capacity`` / ``status.allocatable`` extended resources, which the kubelet's device
  manager sets from the device plugins' ListAndWatch (a count per resource name, as a string quantity).
"""

from apiserver import objects


def plugin_daemonset(name, namespace, labels, containers, volumes=None):
    """An apps/v1 DaemonSet whose pod template has ``containers`` (and ``volumes``)."""
    workload = objects.workload("DaemonSet", name, namespace, labels)
    workload["spec"]["template"]["spec"] = {"containers": [dict(c) for c in containers], "volumes": list(volumes or [])}
    return workload


def plugin_pod(name, namespace, node, now, labels, containers, owner_uid, owner_name, volumes=None, image_ids=None):
    """The DaemonSet's pod on ``node``: the given containers, Running and Ready, owned by the DaemonSet."""
    pod = objects.pod(name, namespace, now, node_name=node, labels=labels)
    pod["spec"]["containers"] = [dict(c) for c in containers]
    if volumes:
        pod["spec"]["volumes"] = list(volumes)
    image_ids = image_ids or {}
    pod["status"]["containerStatuses"] = [
        {"name": c["name"], "ready": True, "restartCount": 0, "started": True, "image": c.get("image", ""),
         "imageID": image_ids.get(c["name"], ""), "containerID": "containerd://%d" % index, "state": {"running": {"startedAt": now}}}
        for index, c in enumerate(containers)]
    pod["status"]["qosClass"] = "Burstable"
    pod["metadata"]["ownerReferences"] = [objects.owner_reference("DaemonSet", owner_name, owner_uid)]
    return pod


def configmap(name, namespace, data):
    """A core v1 ConfigMap with string ``data``."""
    return {"kind": "ConfigMap", "apiVersion": "v1", "metadata": {"name": name, "namespace": namespace}, "data": dict(data)}


def resource_slice(name, node, driver, devices, pool=None):
    """A resource.k8s.io/v1 ResourceSlice of ``node``'s pool (named after the node unless ``pool``), one slice in it."""
    return {"kind": "ResourceSlice", "apiVersion": "resource.k8s.io/v1", "metadata": {"name": name},
            "spec": {"driver": driver, "nodeName": node, "pool": {"name": pool or node, "generation": 1, "resourceSliceCount": 1},
                     "devices": [dict(d) for d in devices]}}


def resource_claim(name, namespace, results):
    """A resource.k8s.io/v1 ResourceClaim allocated to ``results`` [(request, driver, pool, device)], as the scheduler's
    DRA plugin writes ``status.allocation.devices.results`` (k8s.io/api resource/v1 DeviceRequestAllocationResult)."""
    requests = sorted(set(request for request, _driver, _pool, _device in results))
    return {"kind": "ResourceClaim", "apiVersion": "resource.k8s.io/v1", "metadata": {"name": name, "namespace": namespace},
            "spec": {"devices": {"requests": [{"name": r, "exactly": {"deviceClassName": "gpu.nvidia.com"}} for r in requests]}},
            "status": {"allocation": {"devices": {"results": [{"request": r, "driver": d, "pool": p, "device": n} for r, d, p, n in results]}}}}


def add_plugin(double, name, namespace, node, labels, containers, volumes=None, image_ids=None, template_containers=None):
    """Create the DaemonSet (its template from ``template_containers``, else ``containers``) and its pod on ``node``."""
    store = double.store
    daemonset = store.create("daemonsets", plugin_daemonset(name, namespace, labels, template_containers or containers, volumes))
    pod = plugin_pod("%s-%s" % (name, node), namespace, node, daemonset["metadata"]["creationTimestamp"], labels, containers,
                     daemonset["metadata"]["uid"], name, volumes, image_ids)
    return daemonset, store.create("pods", pod)


def set_node_resources(double, node, resources):
    """Advertise extended resources on the Node (capacity and allocatable both), as the kubelet's device manager does."""
    with double.store.cond:
        obj = double.store.get("nodes", None, node)
        for field in ("capacity", "allocatable"):
            obj["status"].setdefault(field, {}).update({key: str(value) for key, value in resources.items()})
        return double.store.update("nodes", obj, check_version=False)
