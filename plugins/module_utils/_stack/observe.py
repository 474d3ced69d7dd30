# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The stack as observed: each version with where it was read and when, from the API's answers (pure).

Public: `observe`, `driver`, `feature_gates`, `COMPONENTS`, `IMAGES`, `DRIVER_READS`, `IN_KERNEL`.

`observe(answers, read_at)` takes what the stack_info action read (each answer a value, or ``{"error": text}``
when its read failed) and returns ``{"read_at", "versions", "observed", "control_plane_gates", "labels"}``:

- ``observed``: one entry per component ``{component, version, state, source, read_at, error}``, ``state``
  ``found`` (the version may still be null: found, version unknown), ``not found`` or ``read failed`` (with the
  error): the control plane (``/version`` gitVersion), the kubelet, the container runtime, the kernel and the node
  image (the Node's ``status.nodeInfo``), and, when workloads were read, each of `IMAGES` found among the
  Deployments' and DaemonSets' containers (the image's tag, else the workload's ``app.kubernetes.io/version`` label);
  one not found is ``read failed`` when a list could not be read (the list named, its error), else ``not found``;
- ``versions``: the record's map, ``{component: version}`` for each component found (null: found, version unknown);
  a component not found has no key (not installed), one whose read failed is null (unknown, never absent);
- ``control_plane_gates``: ``{gate: bool}`` from kube-apiserver's ``kubernetes_feature_enabled`` series
  (component-base metrics, since 1.26), or None when ``/metrics`` could not be read;
- ``labels``: the Node's labels (None when the Node could not be read).

`driver(reads)` is the GPU driver's entry, in the same form, from what the acceptance_record role read on the node
(``{"read_at", "sysfs": the slurp's result, "nvidia_smi": the command's result, "amdgpu_sysfs": the slurp of amdgpu's
version}``, each None or skipped when not run): the first read that gave a version; an absent amdgpu version file is the
in-kernel driver (version `IN_KERNEL`, found); ``not found`` when every read that ran found no driver; ``read failed``
with the errors otherwise; None when no read ran.
"""

from __future__ import annotations

import base64
import binascii
import re

# (record key, Node status.nodeInfo field)
NODE_INFO = (("kubelet", "kubeletVersion"), ("container_runtime", "containerRuntimeVersion"), ("kernel", "kernelVersion"),
             ("node_image", "osImage"))
# (record key, the image repository's last path elements that name it: NVIDIA's, then AMD's). AMD's device plugin image
# is rocm/k8s-device-plugin, its operator rocm/amd-gpu-operator and its DRA driver rocm/k8s-gpu-dra-driver
# (ROCm/k8s-device-plugin, ROCm/gpu-operator, ROCm/k8s-gpu-dra-driver env.mk): the entry's source names the image.
IMAGES = (("gpu_operator", ("gpu-operator", "amd-gpu-operator")), ("network_operator", ("network-operator",)),
          ("device_plugin", ("k8s-device-plugin",)), ("dra_driver", ("k8s-dra-driver-gpu", "k8s-gpu-dra-driver")),
          ("sriov_device_plugin", ("sriov-network-device-plugin",)))
COMPONENTS = ("control_plane",) + tuple(key for key, _field in NODE_INFO) + tuple(key for key, _name in IMAGES)
# (key of the reads, where it was read), in the order they are tried: NVIDIA's module, nvidia-smi, AMD's module.
DRIVER_READS = (("sysfs", "the node's /sys/module/nvidia/version (sysfs)"),
                ("nvidia_smi", "nvidia-smi --query-gpu=driver_version --format=csv,noheader on the node"),
                ("amdgpu_sysfs", "the node's /sys/module/amdgpu/version (sysfs)"))
# amdgpu's module version file is written only by AMD's DKMS (out-of-tree) driver: the in-kernel amdgpu has none. That
# driver is named as such, never given the kernel's release as its version (the kernel is its own entry).
IN_KERNEL = "in-kernel"
_IN_KERNEL_SOURCE = ("the node's /sys/module/amdgpu/version is absent: the in-kernel amdgpu driver, which has no version of its own "
                     "(the kernel's release names it, in the kernel entry)")
_ABSENT = ("file not found", "no such file", "not found", "command not found")
_SERIES = re.compile(r'^kubernetes_feature_enabled\{([^}]*)\}\s+(\S+)')
_LABEL = re.compile(r'(\w+)="((?:[^"\\]|\\.)*)"')


def feature_gates(text):
    """{gate: bool} from a component's /metrics text (``kubernetes_feature_enabled{name=...} 0|1``)."""
    found = {}
    for line in str(text or "").splitlines():
        match = _SERIES.match(line.strip())
        if match:
            labels = dict(_LABEL.findall(match.group(1)))
            if "name" in labels and match.group(2) in ("0", "1"):
                found[labels["name"]] = match.group(2) == "1"
    return found


def _failed(answer):
    return isinstance(answer, dict) and set(answer) == {"error"}


def _entry(component, version, state, source, read_at, error=None):
    return {"component": component, "version": version, "state": state, "source": source, "read_at": read_at, "error": error}


def _image(image):
    """(repository's last element, tag or None) of an image reference; a digest is no version."""
    image = str(image or "").split("@", 1)[0]
    name, _sep, tag = image.rpartition(":") if ":" in image.rsplit("/", 1)[-1] else (image, "", "")
    return name.rsplit("/", 1)[-1], tag or None


_LISTS = "Deployments and DaemonSets (apps/v1, all namespaces)"


def _workload_entries(lists, read_at):
    """One entry per image of `IMAGES` from ``lists`` ({what: items or {"error": text}}): found in a list that answered; else
    read failed when a list failed (its error: it may be there); else not found."""
    failed = [(what, answer["error"]) for what, answer in lists.items() if _failed(answer)]
    found = {}
    for _what, answer in lists.items():
        for item in [] if _failed(answer) else answer or []:
            meta = item.get("metadata") or {}
            where = "%s %s/%s" % (item.get("kind") or "workload", meta.get("namespace"), meta.get("name"))
            label = (meta.get("labels") or {}).get("app.kubernetes.io/version")
            for container in (((item.get("spec") or {}).get("template") or {}).get("spec") or {}).get("containers") or []:
                name, tag = _image(container.get("image"))
                for key, wanted in IMAGES:
                    if name in wanted and key not in found:
                        found[key] = _entry(key, tag or label, "found", "%s, image %s" % (where, container.get("image")), read_at)
    source = "; ".join(what for what, _error in failed) or _LISTS
    error = "; ".join(error if len(failed) == 1 else "%s: %s" % (what, error) for what, error in failed) or None
    return [found.get(key) or _entry(key, None, "read failed" if failed else "not found", source, read_at, error) for key, _name in IMAGES]


def observe(answers, read_at):
    """See the module docstring; ``answers`` has ``version``, ``metrics``, ``node`` and, when read, ``deployments`` and ``daemonsets``
    (each a list, or its error), or ``workloads`` (both lists in one)."""
    entries = []
    version = answers.get("version")
    if _failed(version):
        entries.append(_entry("control_plane", None, "read failed", "GET /version", read_at, version["error"]))
    else:
        entries.append(_entry("control_plane", (version or {}).get("gitVersion"), "found", "GET /version (gitVersion)", read_at))
    node = answers.get("node")
    info = ((node or {}).get("status") or {}).get("nodeInfo") or {} if not _failed(node) else {}
    for key, field in NODE_INFO:
        source = "the Node's status.nodeInfo.%s" % field
        if _failed(node):
            entries.append(_entry(key, None, "read failed", source, read_at, node["error"]))
        else:
            entries.append(_entry(key, info.get(field) or None, "found", source, read_at))
    if "deployments" in answers or "daemonsets" in answers:  # each list read on its own: one that fails hides nothing the other found
        entries += _workload_entries({"Deployments (apps/v1, all namespaces)": answers.get("deployments") or [],
                                      "DaemonSets (apps/v1, all namespaces)": answers.get("daemonsets") or []}, read_at)
    elif "workloads" in answers:
        entries += _workload_entries({_LISTS: answers["workloads"]}, read_at)
    metrics = answers.get("metrics")
    versions = dict((e["component"], e["version"]) for e in entries if e["state"] != "not found")
    return {"read_at": read_at, "versions": versions, "observed": entries,
            "control_plane_gates": None if metrics is None or _failed(metrics) else feature_gates(metrics),
            "control_plane_gates_error": metrics["error"] if _failed(metrics) else None,
            "labels": None if _failed(node) or node is None else dict((node.get("metadata") or {}).get("labels") or {}),
            "node_error": node["error"] if _failed(node) else None}


def _driver_read(key, result):
    """(version, absent, error) of one read's task result."""
    if key in ("sysfs", "amdgpu_sysfs"):
        if result.get("content"):
            try:
                return base64.b64decode(result["content"]).decode("utf-8", "replace").strip() or None, False, None
            except (binascii.Error, ValueError) as exc:
                return None, False, "the file's content is not base64 (%s)" % exc
        message = str(result.get("msg") or "no content")
        return None, any(word in message.lower() for word in _ABSENT), message
    if result.get("rc") == 0 and str(result.get("stdout") or "").strip():
        return str(result["stdout"]).strip().splitlines()[0].strip(), False, None
    message = str(result.get("stderr") or result.get("msg") or "exit status %s" % result.get("rc")).strip()
    return None, result.get("rc") == 127 or any(word in message.lower() for word in _ABSENT), message


def driver(reads):
    """The GPU driver's entry from the node's reads (see the module docstring), or None when no read ran."""
    reads = reads or {}
    read_at, absent, errors = reads.get("read_at"), [], []
    for key, source in DRIVER_READS:
        result = reads.get(key)
        if not isinstance(result, dict) or result.get("skipped"):
            continue
        version, missing, error = _driver_read(key, result)
        if version is not None:
            return _entry("driver", version, "found", source, read_at)
        if missing and key == "amdgpu_sysfs":
            return _entry("driver", IN_KERNEL, "found", _IN_KERNEL_SOURCE, read_at)
        if missing:
            absent.append(source)
        else:
            errors.append("%s: %s" % (source, error))
    if errors:
        return _entry("driver", None, "read failed", "; ".join(source for key, source in DRIVER_READS if reads.get(key)
                                                               and not reads[key].get("skipped")), read_at, "; ".join(errors))
    if absent:
        return _entry("driver", None, "not found", "; ".join(absent), read_at)
    return None
