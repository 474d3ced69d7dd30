# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The double's discovery documents (the legacy, unaggregated form) and ``/version``.

Shapes as the real server serves them (k8s.io/apimachinery/pkg/apis/meta/v1 types.go:
``APIVersions`` at /api, ``APIGroupList`` at /apis, ``APIGroup`` at /apis/<group>,
``APIResourceList`` at /api/v1 and /apis/<group>/<version>; k8s.io/apimachinery/pkg/version
``Info`` at /version). The double answers ``application/json`` even when a client asks for
aggregated discovery (``application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList``):
client-go then falls back to the legacy documents, as it does with servers older than 1.26.
kubectl drain looks for ``pods/eviction`` with group ``policy`` and version ``v1`` in /api/v1
(k8s.io/kubectl pkg/drain/drain.go CheckEvictionSupport). ConfigMaps (core v1, short name ``cm``) and
ResourceSlices (``resource.k8s.io/v1``, cluster-scoped, no short name; GA in 1.34) are listed as a 1.37
server lists them, for reading a node's device path (device_objects.py). Jobs (``batch/v1``, no short name,
category ``all``: pkg/registry/batch/job/storage/storage.go implements CategoriesProvider, not ShortNamesProvider)
with their ``status`` subresource and ``pods/log`` (core v1) for a load generator's Job (jobs.py). A CRD a test installs
(``maintenance.nvidia.com/v1alpha1``, nodemaintenance.py) is in /apis and has its documents only from then on.
"""

_RW = ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"]


def _resource(name, singular, namespaced, kind, verbs, short=None, **extra):
    entry = {"name": name, "singularName": singular, "namespaced": namespaced, "kind": kind, "verbs": verbs}
    if short:
        entry["shortNames"] = short
    entry.update(extra)
    return entry


RESOURCE_LISTS = {
    "v1": [
        _resource("namespaces", "namespace", False, "Namespace", ["create", "delete", "get", "list", "patch", "update", "watch"], ["ns"]),
        _resource("nodes", "node", False, "Node", _RW, ["no"]),
        _resource("nodes/proxy", "", False, "NodeProxyOptions", ["create", "delete", "get", "patch", "update"]),
        _resource("nodes/status", "", False, "Node", ["get", "patch", "update"]),
        _resource("pods", "pod", True, "Pod", _RW, ["po"], categories=["all"]),
        _resource("pods/binding", "", True, "Binding", ["create"]),
        _resource("events", "event", True, "Event", _RW, ["ev"]),
        _resource("pods/eviction", "", True, "Eviction", ["create"], group="policy", version="v1"),
        _resource("pods/status", "", True, "Pod", ["get", "patch", "update"]),
        _resource("pods/log", "", True, "Pod", ["get"]),
        _resource("configmaps", "configmap", True, "ConfigMap", _RW, ["cm"]),
    ],
    "apps/v1": [
        _resource("daemonsets", "daemonset", True, "DaemonSet", _RW, ["ds"], categories=["all"]),
        _resource("replicasets", "replicaset", True, "ReplicaSet", _RW, ["rs"], categories=["all"]),
        _resource("deployments", "deployment", True, "Deployment", _RW, ["deploy"], categories=["all"]),
        _resource("statefulsets", "statefulset", True, "StatefulSet", _RW, ["sts"], categories=["all"]),
    ],
    "policy/v1": [
        _resource("poddisruptionbudgets", "poddisruptionbudget", True, "PodDisruptionBudget", _RW, ["pdb"]),
        _resource("poddisruptionbudgets/status", "", True, "PodDisruptionBudget", ["get", "patch", "update"]),
    ],
    "batch/v1": [
        _resource("jobs", "job", True, "Job", _RW, categories=["all"]),
        _resource("jobs/status", "", True, "Job", ["get", "patch", "update"]),
    ],
    "resource.k8s.io/v1": [
        _resource("resourceslices", "resourceslice", False, "ResourceSlice", _RW),
        # k8s.io/kubernetes pkg/registry/resource/resourceclaim: namespaced, with a status subresource.
        _resource("resourceclaims", "resourceclaim", True, "ResourceClaim", _RW),
        _resource("resourceclaims/status", "", True, "ResourceClaim", ["get", "patch", "update"]),
    ],
    # Node heartbeats and locks (leases.py).
    "coordination.k8s.io/v1": [
        _resource("leases", "lease", True, "Lease", _RW),
    ],
}
GROUPS = ("apps", "batch", "policy", "resource.k8s.io", "coordination.k8s.io")


def api_versions(host):
    """/api"""
    return {"kind": "APIVersions", "versions": ["v1"],
            "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0", "serverAddress": host}]}


def api_group(name, version_name="v1"):
    """/apis/<group>"""
    version = {"groupVersion": "%s/%s" % (name, version_name), "version": version_name}
    return {"kind": "APIGroup", "apiVersion": "v1", "name": name, "versions": [version], "preferredVersion": version}


def api_group_list(custom=None):
    """/apis; ``custom``: {group/version: resources} of the CRDs a test installed (nodemaintenance.py)."""
    groups = []
    for name, version_name in [(g, "v1") for g in GROUPS] + [tuple(gv.split("/")) for gv in sorted(custom or {})]:
        group = api_group(name, version_name)
        del group["kind"], group["apiVersion"]
        groups.append(group)
    return {"kind": "APIGroupList", "apiVersion": "v1", "groups": groups}


def served(custom=None):
    """{group/version: resources}: the built-in ones and the CRDs a test installed."""
    return dict(RESOURCE_LISTS, **(custom or {}))


def custom_group(custom, name):
    """The version of the installed CRD group ``name``, or None."""
    return next((gv.split("/")[1] for gv in custom or {} if gv.split("/")[0] == name), None)


def resource_list(group_version, custom=None):
    """/api/v1 or /apis/<group>/<version>; None for a group version the double does not serve."""
    lists = served(custom)
    if group_version not in lists:
        return None
    return {"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": group_version, "resources": lists[group_version]}


def version():
    """/version, as a 1.37.1 server reports it."""
    return {"major": "1", "minor": "37", "emulationMajor": "1", "emulationMinor": "37", "minCompatibilityMajor": "1",
            "minCompatibilityMinor": "36", "gitVersion": "v1.37.1", "gitCommit": "0000000000000000000000000000000000000000",
            "gitTreeState": "clean", "buildDate": "2026-11-01T00:00:00Z", "goVersion": "go1.25.3", "compiler": "gc",
            "platform": "linux/amd64"}


# kube-apiserver's gates of KEP-2837 and KEP-5526 as a 1.37 server has them by default (GPU-NODE-FACTS.md section 1:
# PodLevelResources beta and on since 1.34; PodLevelResourceManagers is the kubelet's only): {name: (stage, enabled)}.
FEATURE_GATES = {"PodLevelResources": ("BETA", True)}


def metrics(gates):
    """kube-apiserver's /metrics, its ``kubernetes_feature_enabled`` series only (component-base metrics/prometheus/feature,
    since 1.26: one gauge per gate, labels ``name`` and ``stage``, value 0 or 1), in the text exposition format."""
    lines = ["# HELP kubernetes_feature_enabled [BETA] This metric records the data about the stage and enablement of a k8s feature.",
             "# TYPE kubernetes_feature_enabled gauge"]
    lines += ['kubernetes_feature_enabled{name="%s",stage="%s"} %d' % (name, stage, 1 if on else 0) for name, (stage, on) in sorted(gates.items())]
    return "\n".join(lines) + "\n"
