# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A device plugin's pod on this node, as the API returns it, reduced to what the device path records (pure).

Public: `describe`, `image_version`, `main_container`, `rollout`, `plugin_findings`, `POD`.

What is read, and from where in the core v1 Pod: ``spec.containers[]`` ``image``, ``command`` and
``args`` (a plugin's flags may sit in either), ``env[]`` (a ``valueFrom`` entry's value is not in the
pod: it is recorded as not read, never guessed), ``securityContext.privileged``; ``spec.volumes[]``
``configMap.name`` (the ConfigMap a plugin reads its configuration from); ``status.containerStatuses[]``
``imageID`` (the digest the kubelet really runs); the controller ``ownerReference``.

The version of a plugin is its image's tag, read by the reference grammar of the container image
distribution spec (distribution/reference reference.go: ``name [":" tag] ["@" digest]``, the tag after
the last ``:`` of the last path component, so a registry port is never a tag); an image with a digest
and no tag is versioned by its digest; one with neither has no version (a mutable default tag).
"""

from __future__ import annotations

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import shape_check as S
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._device_path.common import DevicePathError, finding

_TEXT = S.Nullable(S.STR)
_ENV = S.Fields("an environment variable", {"name": S.STR}, {"value": _TEXT, "valueFrom": S.Nullable(S.MAPPING)})
_CONTAINER = S.Fields("a container", {"name": S.STR}, {
    "image": _TEXT, "command": S.Nullable(S.ListOf(S.STR)), "args": S.Nullable(S.ListOf(S.STR)), "env": S.Nullable(S.ListOf(_ENV)),
    "securityContext": S.Nullable(S.Fields("a security context", {}, {"privileged": S.Nullable(S.BOOL)}))})
_VOLUME = S.Fields("a volume", {"name": S.STR}, {"configMap": S.Nullable(S.Fields("a configMap volume", {}, {"name": _TEXT}))})
_OWNER = S.Fields("an ownerReference", {"kind": S.STR, "name": S.STR}, {"uid": _TEXT, "controller": S.Nullable(S.BOOL)})
POD = S.Fields("a Pod", {"metadata": S.Fields("a Pod's metadata", {"name": S.STR}, {
    "namespace": _TEXT, "labels": S.Nullable(S.MapOf(S.STR)), "ownerReferences": S.Nullable(S.ListOf(_OWNER))}),
    "spec": S.Fields("a Pod's spec", {"containers": S.ListOf(_CONTAINER)}, {"nodeName": _TEXT, "volumes": S.Nullable(S.ListOf(_VOLUME))})},
    {"status": S.Nullable(S.Fields("a Pod's status", {}, {
        "phase": _TEXT, "containerStatuses": S.Nullable(S.ListOf(S.Fields("a container status", {"name": S.STR}, {"imageID": _TEXT})))}))})


def image_version(image):
    """The tag of an image reference, else its digest, else None (see the module docstring)."""
    if not isinstance(image, str) or not image.strip():
        return None
    name, dummy, digest = image.strip().partition("@")
    last = name.rsplit("/", 1)[-1]
    tag = last.rsplit(":", 1)[1] if ":" in last else ""
    return tag or digest or None


def _env(entries):
    values, unread = {}, []
    for entry in entries or []:
        if entry.get("valueFrom") is not None and entry.get("value") is None:
            unread.append(entry["name"])
            values[entry["name"]] = None
        else:
            values[entry["name"]] = entry.get("value") or ""
    return values, unread


def _container(container, image_ids):
    env, unread = _env(container.get("env"))
    return {"name": container["name"], "image": container.get("image"), "version": image_version(container.get("image")),
            "image_id": image_ids.get(container["name"]) or None, "env": env, "env_not_read": sorted(unread),
            "args": list(container.get("command") or []) + list(container.get("args") or []),
            "privileged": bool((container.get("securityContext") or {}).get("privileged"))}


def describe(pod, where="pod"):
    """{"pod", "namespace", "name", "node", "phase", "owner", "containers", "config_maps"} of one API Pod (checked first).

    ``config_maps`` maps each configMap volume's name to the ConfigMap it mounts.
    """
    pod = S.check(pod, POD, where, DevicePathError)
    meta, spec, status = pod["metadata"], pod["spec"], pod.get("status") or {}
    image_ids = {s["name"]: s.get("imageID") for s in status.get("containerStatuses") or []}
    owner = next(({"kind": r["kind"], "name": r["name"], "uid": r.get("uid")} for r in meta.get("ownerReferences") or [] if r.get("controller")), None)
    namespace = meta.get("namespace") or "default"
    return {"pod": "%s/%s" % (namespace, meta["name"]), "namespace": namespace, "name": meta["name"], "node": spec.get("nodeName"),
            "phase": status.get("phase"), "owner": owner, "containers": [_container(c, image_ids) for c in spec["containers"]],
            "config_maps": {v["name"]: v["configMap"]["name"] for v in spec.get("volumes") or [] if (v.get("configMap") or {}).get("name")}}


def main_container(described, names=()):
    """The plugin's own container: the first whose name is in ``names``, else the pod's first container."""
    for container in described["containers"]:
        if container["name"] in names:
            return container
    return described["containers"][0] if described["containers"] else None


def rollout(described, daemonset):
    """{container: (template image, pod image)} for each container whose image differs from its DaemonSet's template (a rollout not done)."""
    if not isinstance(daemonset, dict):
        return {}
    template = (((daemonset.get("spec") or {}).get("template") or {}).get("spec") or {}).get("containers")
    if not isinstance(template, list):
        raise DevicePathError("DaemonSet %s: spec.template.spec.containers must be a list, got %r"
                              % ((daemonset.get("metadata") or {}).get("name"), type(template).__name__))
    wanted = {c.get("name"): c.get("image") for c in template if isinstance(c, dict)}
    return {c["name"]: (wanted[c["name"]], c["image"]) for c in described["containers"] if c["name"] in wanted and wanted[c["name"]] != c["image"]}


def plugin_findings(subject, described, container, rollout_found):
    """What any plugin pod shows by itself: not running, a version that cannot be named, a rollout not done on this node."""
    out = []
    if described["phase"] != "Running":
        out.append(finding("plugin_running", "unknown", subject, "%s is %s, not Running: what it advertises now is unknown"
                           % (subject, described["phase"] or "in no phase"), "Running", described["phase"], {"observed": "the pod's status.phase"}))
    if container is None:
        out.append(finding("plugin_version", "unknown", subject, "%s has no container: the plugin's version is unknown" % subject,
                           None, None, {"observed": "the pod's spec.containers"}))
    elif container["version"] is None:
        out.append(finding("plugin_version", "unknown", subject, "%s: image %r has no tag or digest: the plugin's version is unknown"
                           % (subject, container["image"]), None, container["image"], {"observed": "the pod's image"}))
    for name, (wanted, running) in sorted((rollout_found or {}).items()):
        out.append(finding("plugin_rollout", "disagree", subject, "%s: container %s runs %s but its DaemonSet's template names %s: "
                           "a rollout is not done on this node" % (subject, name, running, wanted), wanted, running,
                           {"expected": "the DaemonSet's pod template", "observed": "the pod on this node"}))
    return out
