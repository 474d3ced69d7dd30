# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""GPU device access under the static CPU manager: does the node's NVIDIA device plugin run so that it survives it?

Public: `judge`, `settings`, `DeviceAccessError`, `OVERRIDE`.

With ``cpuManagerPolicy: static`` the kubelet's reconcile loop updates container cgroups every
``cpuManagerReconcilePeriod``; runc then re-applies the device cgroup from the OCI spec, and the devices
the NVIDIA hook injected are not in it: GPU containers lose access ("Failed to initialize NVML: Unknown
Error") about 10 s after they start (kubernetes#77073, k8s-device-plugin#145; GPU-NODE-FACTS.md section 3).
The plugin's own README: ``PASS_DEVICE_SPECS`` "exists for the sole purpose of allowing the device plugin to
interoperate with the CPUManager" and needs elevated privileges (Helm ``compatWithCPUManager`` sets both);
it is ignored when every device-list strategy is CDI (``internal/plugin/server.go``
``getAllocateResponse``), which is the general fix. So the plugin is safe when every strategy of
``DEVICE_LIST_STRATEGY`` is ``cdi-annotations`` or ``cdi-cri``, or when ``PASS_DEVICE_SPECS`` is true and
the container is privileged. Precedence as the plugin's ``NewConfig``: a flag, then the environment, then
its config file, which is not read here: a setting left to a config file is unknown, and unknown is
refused like a wrong one (the override exists).

The plugin is read from the node's own pod of it (a copy of its DaemonSet's template, with what the GPU
Operator's ClusterPolicy put there): a container whose image is ``.../k8s-device-plugin`` or whose name
starts with ``nvidia-device-plugin``.
"""

from __future__ import annotations

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base.errors import NumaGateError
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._transition.api import filters

OVERRIDE = "kubelet_transition_gpu_device_access_override"
_CDI = ("cdi-annotations", "cdi-cri")
_TRUE = ("true", "1", "t", "yes")
_NVML = "GPU containers lose device access about 10 s after they start under the static CPU manager (\"Failed to initialize NVML: Unknown Error\")"
_FIX = ("set PASS_DEVICE_SPECS=true on a privileged container (the Helm chart's compatWithCPUManager: true) or a CDI device-list strategy "
        "(DEVICE_LIST_STRATEGY=cdi-cri; the GPU Operator's cdi.enabled), or override with %s: true" % OVERRIDE)


class DeviceAccessError(NumaGateError):
    """The device plugin would leave GPU containers without device access, or how it runs cannot be told."""


def _plugin_container(pod):
    for container in (pod.get("spec") or {}).get("containers") or []:
        image = (container.get("image") or "").split("@")[0].rsplit(":", 1)[0]
        if image.endswith("/k8s-device-plugin") or (container.get("name") or "").startswith("nvidia-device-plugin"):
            return container
    return None


def _flag(args, name):
    """The value of ``--name`` or ``--name=value`` in ``args`` (a bare boolean flag is "true"), else None."""
    value = None
    for index, arg in enumerate(args):
        if arg == "--" + name:
            following = args[index + 1] if index + 1 < len(args) else ""
            value = following if following and not following.startswith("-") and name != "pass-device-specs" else "true"
        elif arg.startswith("--%s=" % name):
            value = arg.split("=", 1)[1]
    return value


def settings(container):
    """``{pass_device_specs, device_list_strategy, privileged, config_file}`` as the container runs, each with where it came from."""
    args = [str(a) for a in list(container.get("command") or [])[1:] + list(container.get("args") or [])]
    env = {e.get("name"): e.get("value") for e in container.get("env") or [] if "value" in e}
    config_file = _flag(args, "config-file") or env.get("CONFIG_FILE")

    def read(flag, variable, default):
        if _flag(args, flag) is not None:
            return _flag(args, flag), "--%s" % flag
        if variable in env:
            return env[variable], variable
        if config_file:
            return None, "its config file %s (not read)" % config_file
        return default, "the plugin's default"

    security = container.get("securityContext") or {}
    return {"pass_device_specs": read("pass-device-specs", "PASS_DEVICE_SPECS", "false"),
            "device_list_strategy": read("device-list-strategy", "DEVICE_LIST_STRATEGY", "envvar"),
            "privileged": bool(security.get("privileged")), "config_file": config_file}


def judge(pods, node, config, override=False, runtime_versions=None):
    """Whether GPU containers keep device access under ``config`` (the target KubeletConfiguration) on ``node``.

    Returns ``{plugin, settings, safe, why, container_runtime, runtime_versions}`` (``runtime_versions``: the node's binaries'
    own, read on the node (node/runtime_versions.py), recorded as given: no plugin document ties the verdict to a version);
    raises `DeviceAccessError` naming the setting to change unless ``override``. Nothing to judge (``safe`` None) when the
    target's CPU manager is not static, or the node has
    neither a device plugin pod nor any ``nvidia.com/gpu`` allocatable.
    """
    runtime = ((node.get("status") or {}).get("nodeInfo") or {}).get("containerRuntimeVersion")
    found = {"plugin": None, "settings": None, "safe": None, "why": None, "container_runtime": runtime,
             "runtime_versions": runtime_versions or {}}
    if config.get("cpuManagerPolicy", "none") != "static":
        return found
    plugin = next(((p, c) for p in sorted(pods, key=filters.pod_name) for c in [_plugin_container(p)] if c is not None), None)
    gpus = str(((node.get("status") or {}).get("allocatable") or {}).get("nvidia.com/gpu", "0")).strip() not in ("0", "")
    name = node["metadata"]["name"]
    if plugin is None:
        if not gpus:
            return found
        why = "%s has nvidia.com/gpu but no pod of the NVIDIA device plugin (an image .../k8s-device-plugin or a container nvidia-device-plugin*)" \
              ": how it hands out GPUs cannot be told" % name
        return _verdict(found, False, why, override)
    pod, container = plugin
    found["plugin"] = "%s (container %s)" % (filters.pod_name(pod), container.get("name"))
    seen = settings(container)
    found["settings"] = {"pass_device_specs": seen["pass_device_specs"][0], "device_list_strategy": seen["device_list_strategy"][0],
                         "privileged": seen["privileged"], "config_file": seen["config_file"]}
    strategy, strategy_from = seen["device_list_strategy"]
    passes, passes_from = seen["pass_device_specs"]
    if strategy is not None and all(s.strip() in _CDI for s in strategy.split(",") if s.strip()):
        found.update(safe=True, why="every device-list strategy is CDI (%s from %s)" % (strategy, strategy_from))
        return found
    if passes is not None and passes.lower() in _TRUE and seen["privileged"]:
        found.update(safe=True, why="PASS_DEVICE_SPECS is %s (%s) on a privileged container" % (passes, passes_from))
        return found
    parts = ["DEVICE_LIST_STRATEGY is %s (%s)" % (strategy if strategy is not None else "unknown", strategy_from),
             "PASS_DEVICE_SPECS is %s (%s)" % (passes if passes is not None else "unknown", passes_from),
             "the container is %sprivileged" % ("" if seen["privileged"] else "not ")]
    why = "the GPU device plugin %s runs without CPU-manager compatibility: %s" % (found["plugin"], ", ".join(parts))
    return _verdict(found, False, why, override)


def _verdict(found, safe, why, override):
    found.update(safe=safe, why=why)
    if not override:
        raise DeviceAccessError("enabling the static CPU manager: %s; %s; %s" % (why, _NVML, _FIX), **found)
    return found
