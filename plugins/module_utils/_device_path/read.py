# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Reading one node's device path from the Kubernetes API, bounded, then comparing it (`compare`).

Public: `read`, `DEFAULT_SELECTORS`, `MAX_SELECTORS`, `MAX_PODS`, `MAX_CONFIG_MAPS`, `LIST_LIMIT`.

``api`` is any client with ``request(method, path, query=None)`` that returns the API's JSON as a dict
and raises an error carrying ``code`` (the HTTP status) on an error answer, as `_kube_api.api.Api`
does; this module imports no client. The reads, all GETs, at most
``1 + 3 * MAX_SELECTORS + 3 * MAX_PODS * (1 + MAX_CONFIG_MAPS) + 1``:

1. the Node (``/api/v1/nodes/<node>``): its labels and the extended resources it advertises;
2. per plugin role and label selector, the pods on the node (``/api/v1/pods?fieldSelector=spec.nodeName=<node>
   &labelSelector=<selector>&limit=LIST_LIMIT``); a role finds at most `MAX_PODS` pods;
3. per pod, its controlling DaemonSet (``/apis/apps/v1/namespaces/<ns>/daemonsets/<name>``, 404 is none) to see
   a rollout not done on this node, and the ConfigMaps its volumes mount that the plugin reads (NVIDIA: the
   ``available-configs`` volume of the Helm chart, only when ``CONFIG_FILE`` is set; SR-IOV: every configMap
   volume, at most `MAX_CONFIG_MAPS`);
4. the node's ResourceSlices (``/apis/resource.k8s.io/v1/resourceslices?fieldSelector=spec.nodeName=<node>``);
   a 404 means the server does not serve resource.k8s.io/v1 (before 1.34): no DRA, said in ``notes``.

A list that the server cut (``metadata.continue`` set) is a finding, never silently partial. Default
selectors, from each project's manifests: NVIDIA's Helm chart (``app.kubernetes.io/name=nvidia-device-plugin``),
its static manifests (``name=nvidia-device-plugin-ds``), the GPU Operator (``app=nvidia-device-plugin-daemonset``,
assets/state-device-plugin/0500_daemonset.yaml); AMD's static manifest (``name=amdgpu-dp-ds``) and Helm chart
(``name=amd-gpu-dp-ds``) (ROCm/k8s-device-plugin k8s-ds-amdgpu-dp.yaml, helm/amd-gpu). A GPU plugin pod is AMD's when a
container has AMD's name (`amd_plugin.DEFAULT_CONTAINER`), else NVIDIA's; NVIDIA's DRA driver chart
(``nvidia-dra-driver-gpu-component=kubelet-plugin``, templates/kubeletplugin.yaml); the SR-IOV plugin's
DaemonSet (``app=sriovdp``, deployments/sriovdp-daemonset.yaml).
"""

from __future__ import annotations

import urllib.parse

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import k8s_names as _k8s_names
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import shape_check as S
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kube_api import answers as _kube_answers
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._device_path import amd_plugin, compare, nvidia_plugin, pods
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._device_path import resource_slices, sriov
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._device_path.common import DevicePathError, finding

ROLES = ("gpu_device_plugin", "dra_kubelet_plugin", "sriov_device_plugin")
# A listed pod is read by its metadata first; the rest of it is checked where it is described (`pods.describe`).
_POD = S.Fields("a pod", {"metadata": S.Fields("a pod's metadata", {}, {"name": S.STR, "namespace": S.STR})})
DEFAULT_SELECTORS = {
    "gpu_device_plugin": ["app.kubernetes.io/name=nvidia-device-plugin", "name=nvidia-device-plugin-ds", "app=nvidia-device-plugin-daemonset",
                          "name=amdgpu-dp-ds", "name=amd-gpu-dp-ds"],
    "dra_kubelet_plugin": ["nvidia-dra-driver-gpu-component=kubelet-plugin"],
    "sriov_device_plugin": ["app=sriovdp"],
}
DRA_CONTAINERS = ("gpus", "plugin", "compute-domains")
NVIDIA_CONFIG_VOLUME = "available-configs"
MAX_SELECTORS = 5
MAX_PODS = 4
MAX_CONFIG_MAPS = 4
LIST_LIMIT = 500


def _quote(part):
    return urllib.parse.quote(str(part), safe="")


class _Reader(object):
    """The API calls, counted, and the list-was-cut findings."""

    def __init__(self, api):
        self.api = api
        self.count = 0
        self.findings = []

    def get(self, path, query=None, missing_ok=False):
        self.count += 1
        try:
            return self.api.request("GET", path, query=query)
        except Exception as exc:  # pylint: disable=broad-exception-caught  # the client's error family; only a 404 is an answer
            if missing_ok and getattr(exc, "code", None) == 404:
                return None
            raise

    def items(self, path, query, what):
        answer = self.get(path, query, missing_ok=path.startswith("/apis/resource.k8s.io/"))
        if answer is None:
            return None
        items = answer.get("items") if isinstance(answer, dict) else None
        if not isinstance(items, list):
            raise DevicePathError("GET %s: the answer has no items list (%s)" % (path, what))
        if (answer.get("metadata") or {}).get("continue"):
            self.findings.append(finding("api_list_complete", "unknown", what, "GET %s?%s: the server returned %d items and more remain "
                                         "(metadata.continue): only those were read" % (path, urllib.parse.urlencode(query), len(items)),
                                         "the whole list", len(items), {"observed": "the API's list"}))
        return items


def _selectors(selectors):
    chosen = dict(DEFAULT_SELECTORS)
    for role, value in (selectors or {}).items():
        if role not in ROLES:
            raise DevicePathError("selectors: unknown plugin role %r (known: %s)" % (role, ", ".join(ROLES)))
        value = [value] if isinstance(value, str) else value
        if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value) or len(value) > MAX_SELECTORS:
            raise DevicePathError("selectors.%s must be a list of 0 to %d non-empty label selectors, got %r" % (role, MAX_SELECTORS, value))
        chosen[role] = list(value)
    return chosen


def _plugin_pods(reader, node, role, selectors):
    found = {}
    for selector in selectors:
        query = {"fieldSelector": "spec.nodeName=%s" % node, "labelSelector": selector, "limit": str(LIST_LIMIT)}
        for index, pod in enumerate(reader.items("/api/v1/pods", query, "%s pods (%s)" % (role, selector))):
            S.check(pod, _POD, "GET /api/v1/pods (%s pods, %s): items[%d]" % (role, selector, index), DevicePathError)
            key = (pod["metadata"].get("namespace"), pod["metadata"].get("name"))
            found.setdefault(key, pod)
    if len(found) > MAX_PODS:
        raise DevicePathError("%s: %d pods on node %s match %s; at most %d are read (narrow the selectors)"
                              % (role, len(found), node, ", ".join(selectors), MAX_PODS))
    return [found[key] for key in sorted(found, key=lambda k: (str(k[0]), str(k[1])))]


def _daemonset(reader, described):
    owner = described["owner"]
    if not owner or owner["kind"] != "DaemonSet":
        return None
    path = "/apis/apps/v1/namespaces/%s/daemonsets/%s" % (_quote(described["namespace"]), _quote(owner["name"]))
    return reader.get(path, missing_ok=True)


def _config_map(reader, namespace, name):
    path = "/api/v1/namespaces/%s/configmaps/%s" % (_quote(namespace), _quote(name))
    answer = reader.get(path, missing_ok=True)
    if answer is None:
        return None
    data = answer.get("data") if isinstance(answer, dict) else None
    if data is not None and (not isinstance(data, dict) or not all(isinstance(v, str) for v in data.values())):
        raise DevicePathError("ConfigMap %s/%s: data must map keys to strings" % (namespace, name))
    return data or {}


def _vendor(described):
    """``amd`` when a container has the AMD plugin's name, else ``nvidia``."""
    return "amd" if any(c["name"] in amd_plugin.DEFAULT_CONTAINER for c in described["containers"]) else "nvidia"


def _gpu_part(reader, described, container, node_labels, parse_yaml):
    config, source = None, None
    config_file = (nvidia_plugin.settings(container)["config_file"]["value"]) if container else ""
    name = described["config_maps"].get(NVIDIA_CONFIG_VOLUME)
    if config_file and name and parse_yaml is not None:
        data = _config_map(reader, described["namespace"], name)
        key, text = nvidia_plugin.config_choice(described, data, node_labels)
        if key is not None:
            source = "ConfigMap %s/%s key %s" % (described["namespace"], name, key)
            try:
                config = parse_yaml(text)
            except Exception as exc:  # pylint: disable=broad-exception-caught  # the caller's YAML parser raises its own errors
                raise DevicePathError("%s: the NVIDIA device plugin config is not YAML: %s" % (source, exc)) from exc
    found = nvidia_plugin.settings(container, config, source) if container else {}
    return {"settings": found, "config_source": source}, found


def _sriov_part(reader, described, container, node, node_obj):
    prefix = sriov.resource_prefix(container)
    for volume, name in sorted(described["config_maps"].items())[:MAX_CONFIG_MAPS]:
        data = _config_map(reader, described["namespace"], name)
        key, text = sriov.config_for_node(data, container, node)
        if key is None:
            continue
        where = "ConfigMap %s/%s key %s" % (described["namespace"], name, key)
        resources = sriov.parse_config(text, where, prefix)
        shown = sriov.advertised(node_obj, [r["resource"] for r in resources])
        return {"config_source": where, "resource_prefix": prefix, "resources": resources, "advertised": shown,
                "findings": sriov.findings(resources, shown, where)}
    subject = "sriov-network-device-plugin %s" % described["pod"]
    return {"config_source": None, "resource_prefix": prefix, "resources": [], "advertised": {},
            "findings": [finding("sriov_config", "unknown", subject, "%s: no ConfigMap its volumes mount (%s) holds its config (-config-file %s): "
                                 "its resources and excludeTopology are unknown" % (subject, ", ".join(sorted(described["config_maps"].values()))
                                                                                    or "none", sriov.config_path(container)),
                                 "a config", None, {"observed": "the pod's configMap volumes"})]}


def read(api, node, oracle, selectors=None, allocatable=None, parse_yaml=None):
    """The device path of ``node`` (see the module docstring): `compare.compare`'s result plus what was read."""
    _k8s_names.node_name(node)
    chosen = _selectors(selectors)
    reader = _Reader(api)
    node_obj = _kube_answers.node(reader.get("/api/v1/nodes/%s" % _quote(node)), "GET /api/v1/nodes/%s" % node)
    node_labels = ((node_obj or {}).get("metadata") or {}).get("labels") or {}
    parts = {role: [] for role in ROLES}
    for role in ROLES:
        for pod in _plugin_pods(reader, node, role, chosen[role]):
            described = pods.describe(pod, "%s pod" % role)
            vendor = _vendor(described) if role == "gpu_device_plugin" else None
            names = {"gpu_device_plugin": amd_plugin.DEFAULT_CONTAINER if vendor == "amd" else nvidia_plugin.DEFAULT_CONTAINER,
                     "dra_kubelet_plugin": DRA_CONTAINERS, "sriov_device_plugin": sriov.DEFAULT_CONTAINER}[role]
            container = pods.main_container(described, names)
            rolled = pods.rollout(described, _daemonset(reader, described))
            part = {"pod": described, "container": container}
            if vendor == "amd":
                found = amd_plugin.settings(container) if container else {}
                part.update(vendor="amd", settings=found, findings=amd_plugin.findings(described, container, found, rolled) if container else
                            pods.plugin_findings("amd-gpu-device-plugin %s" % described["pod"], described, None, rolled))
            elif role == "gpu_device_plugin":
                part["vendor"] = "nvidia"
                extra, found = _gpu_part(reader, described, container, node_labels, parse_yaml)
                part.update(extra, findings=nvidia_plugin.findings(described, container, found, rolled) if container else
                            pods.plugin_findings("nvidia-device-plugin %s" % described["pod"], described, None, rolled))
            elif role == "sriov_device_plugin":
                part.update(_sriov_part(reader, described, container, node, node_obj) if container else {"resources": [], "findings": []})
                part["findings"] = pods.plugin_findings("sriov-network-device-plugin %s" % described["pod"], described, container, rolled) + part["findings"]
            else:
                part["findings"] = pods.plugin_findings("dra-kubelet-plugin %s" % described["pod"], described, container, rolled)
            parts[role].append(part)
    notes = []
    query = {"fieldSelector": "spec.nodeName=%s" % node, "limit": str(LIST_LIMIT)}
    slices = reader.items("/apis/resource.k8s.io/v1/resourceslices", query, "ResourceSlices of %s" % node)
    if slices is None:
        notes.append("the API server does not serve resource.k8s.io/v1 ResourceSlices (404): no DRA driver is read")
    parts["slice_devices"] = resource_slices.devices(slices or [], node)
    result = compare.compare(oracle, parts, allocatable)
    result["findings"] = reader.findings + result["findings"]
    result["summary"] = {r: sum(1 for f in result["findings"] if f["result"] == r) for r in ("agree", "disagree", "unknown")}
    result.update(node=node, selectors=chosen, notes=notes, requests=reader.count, slice_devices=parts["slice_devices"],
                  plugins={role: [_shown(part) for part in parts[role]] for role in ROLES})
    return result


def _shown(part):
    """A plugin part as the result shows it: the pod, its main container's image and version, settings, config, resources."""
    container = part.get("container") or {}
    shown = {"pod": part["pod"]["pod"], "owner": part["pod"]["owner"], "phase": part["pod"]["phase"], "container": container.get("name"),
             "image": container.get("image"), "image_id": container.get("image_id"), "version": container.get("version"),
             "privileged": container.get("privileged")}
    for key in ("vendor", "settings", "config_source", "resource_prefix", "resources", "advertised"):
        if key in part:
            shown[key] = part[key]
    return shown
