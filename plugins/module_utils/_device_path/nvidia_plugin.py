# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The NVIDIA device plugin on this node: its settings that matter for CPU Manager interoperability, and findings (pure).

Public: `settings`, `config_choice`, `findings`, `SETTINGS`, `DEFAULT_CONTAINER`, `CONFIG_LABEL`.

Read from NVIDIA/k8s-device-plugin (README.md "Configuring the NVIDIA device plugin binary" and
cmd/nvidia-device-plugin/main.go at 1b826ac, 2026-08):

- each option is a flag, an environment variable or a config-file field, with the precedence "(1)
  command line flag, (2) environment variable, (3) configuration file"; the defaults are
  ``PASS_DEVICE_SPECS`` false, ``DEVICE_LIST_STRATEGY`` envvar (a comma-separated list: envvar,
  volume-mounts, cdi-annotations, cdi-cri), ``DEVICE_ID_STRATEGY`` uuid, ``MIG_STRATEGY`` none,
  ``FAIL_ON_INIT_ERROR`` true, ``NVIDIA_DRIVER_ROOT`` / (flag ``--driver-root``), ``CONFIG_FILE`` empty;
  in the file: ``flags.migStrategy``, ``flags.failOnInitError``, ``flags.nvidiaDriverRoot``,
  ``flags.plugin.passDeviceSpecs``, ``flags.plugin.deviceListStrategy``, ``flags.plugin.deviceIDStrategy``
  (api/config/v1/flags.go);
- ``PASS_DEVICE_SPECS``: "This option exists for the sole purpose of allowing the device plugin to
  interoperate with the ``CPUManager`` in Kubernetes. Setting this flag also requires one to deploy the
  daemonset with elevated privileges"; the Helm value ``compatWithCPUManager`` sets it and makes the
  container privileged; deployments/static/nvidia-device-plugin-compat-with-cpumanager.yml sets
  ``PASS_DEVICE_SPECS: "true"`` with ``privileged: true``;
- the Helm chart's config-manager sidecar picks the config file from the chart's ConfigMap by the
  node label ``nvidia.com/device-plugin.config``, else its ``DEFAULT_CONFIG``
  (deployments/helm/nvidia-device-plugin/templates/daemonset-device-plugin.yml).

Booleans parse as Go's strconv.ParseBool (urfave/cli): 1, t, T, TRUE, true, True and their false
forms; anything else is unreadable, never a default. A value the pod does not carry (an env
``valueFrom``, a config file not read) is unknown, and unknown is never agreement.
"""

from __future__ import annotations

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._device_path import pods
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._device_path.common import DevicePathError, finding, flag_text

DEFAULT_CONTAINER = ("nvidia-device-plugin-ctr", "nvidia-device-plugin")
CONFIG_LABEL = "nvidia.com/device-plugin.config"
# name, flag, env, config-file path under ``flags``, kind, default
SETTINGS = (
    ("pass_device_specs", "pass-device-specs", "PASS_DEVICE_SPECS", ("plugin", "passDeviceSpecs"), "bool", False),
    ("device_list_strategy", "device-list-strategy", "DEVICE_LIST_STRATEGY", ("plugin", "deviceListStrategy"), "list", ["envvar"]),
    ("device_id_strategy", "device-id-strategy", "DEVICE_ID_STRATEGY", ("plugin", "deviceIDStrategy"), "str", "uuid"),
    ("mig_strategy", "mig-strategy", "MIG_STRATEGY", ("migStrategy",), "str", "none"),
    ("fail_on_init_error", "fail-on-init-error", "FAIL_ON_INIT_ERROR", ("failOnInitError",), "bool", True),
    ("driver_root", "driver-root", "NVIDIA_DRIVER_ROOT", ("nvidiaDriverRoot",), "str", "/"),
    ("config_file", "config-file", "CONFIG_FILE", None, "str", ""),
)
_TRUE = ("1", "t", "T", "TRUE", "true", "True")
_FALSE = ("0", "f", "F", "FALSE", "false", "False")
_UNREAD = object()


def _parse(kind, text):
    """(value, readable) from a flag or env text."""
    if kind == "bool":
        if text in _TRUE:
            return True, True
        if text in _FALSE:
            return False, True
        return None, False
    if kind == "list":
        return [part.strip() for part in text.split(",") if part.strip()], True
    return text, True


def _from_file(config, path, kind):
    value = config.get("flags") if isinstance(config, dict) else None
    for key in path:
        if not isinstance(value, dict) or key not in value:
            return None
        value = value[key]
    if value is None:
        return None
    if kind == "bool" and not isinstance(value, bool):
        return _UNREAD
    if kind == "list":
        value = [value] if isinstance(value, str) else value
        return [str(v) for v in value] if isinstance(value, list) else _UNREAD
    return str(value) if kind == "str" else value


def settings(container, config=None, config_source=None):
    """{setting: {"value", "source"}} for the plugin container (`pods.describe`'s) and its config file.

    ``config`` is the parsed config file (a mapping with ``flags``), or None when it was not read;
    ``config_source`` says where it came from (``ConfigMap kube-system/x key y``).
    """
    if not isinstance(container, dict):
        raise DevicePathError("the NVIDIA device plugin container must be a mapping (pods.describe), got %s" % type(container).__name__)
    found = {}
    for name, flag, env, path, kind, default in SETTINGS:
        text = flag_text(container["args"], flag, kind == "bool")
        if text is not None:
            value, readable = _parse(kind, text)
            found[name] = {"value": value, "source": "flag --%s=%s%s" % (flag, text, "" if readable else " (unreadable)")}
            continue
        if env in container["env"]:
            if container["env"][env] is None:
                found[name] = {"value": None, "source": "env %s (valueFrom, not in the pod)" % env}
                continue
            value, readable = _parse(kind, container["env"][env])
            found[name] = {"value": value, "source": "env %s=%s%s" % (env, container["env"][env], "" if readable else " (unreadable)")}
            continue
        found[name] = {"value": default, "source": "default"}
        found[name]["path"] = path
    config_file = found["config_file"]["value"]
    for name, flag, env, path, kind, default in SETTINGS:
        entry = found[name]
        if entry.pop("path", None) is None or not config_file:
            continue
        if config is None:
            entry.update(value=None, source="config file %s (not read)" % config_file)
            continue
        value = _from_file(config, path, kind)
        where = "config file %s%s" % (config_file, " (%s)" % config_source if config_source else "")
        if value is _UNREAD:
            entry.update(value=None, source="%s: flags.%s is not a %s (unreadable)" % (where, ".".join(path), kind))
        elif value is not None:
            entry.update(value=value, source="%s: flags.%s" % (where, ".".join(path)))
    return found


def config_choice(described, data, node_labels):
    """(key, text) of the config file the Helm chart's config-manager picks from its ConfigMap ``data``, or (None, None).

    The node label `CONFIG_LABEL`, else the sidecar's ``DEFAULT_CONFIG``, else the only key there is.
    """
    data = data if isinstance(data, dict) else {}
    wanted = (node_labels or {}).get(CONFIG_LABEL)
    if wanted in data:
        return wanted, data[wanted]
    defaults = [c["env"].get("DEFAULT_CONFIG") for c in described["containers"] if c["env"].get("DEFAULT_CONFIG")]
    if defaults and defaults[0] in data:
        return defaults[0], data[defaults[0]]
    if len(data) == 1:
        key = next(iter(data))
        return key, data[key]
    return None, None


def findings(described, container, found, rollout=None):
    """The plugin's findings: CPU Manager interoperability, then what `pods.plugin_findings` sees (running, version, rollout)."""
    subject = "nvidia-device-plugin %s" % described["pod"]
    sources = {"expected": "NVIDIA k8s-device-plugin README (PASS_DEVICE_SPECS)", "observed": "the plugin's pod on this node"}
    specs = found["pass_device_specs"]
    said = "PASS_DEVICE_SPECS is %s (%s)" % ("unknown" if specs["value"] is None else str(specs["value"]).lower(), specs["source"])
    if specs["value"] is None:
        out = [finding("gpu_plugin_cpu_manager", "unknown", subject, "%s: %s; CPU Manager interoperability is unresolved" % (subject, said),
                       True, None, sources)]
    elif not specs["value"]:
        out = [finding("gpu_plugin_cpu_manager", "disagree", subject,
                       "%s: %s; NVIDIA documents this option as the way the plugin interoperates with the kubelet's CPU Manager "
                       "(static policy), which this node is being given" % (subject, said), True, False, sources)]
    elif not container["privileged"]:
        out = [finding("gpu_plugin_cpu_manager", "disagree", subject,
                       "%s: %s, but container %s is not privileged; NVIDIA documents that setting it requires the DaemonSet to run "
                       "with elevated privileges" % (subject, said, container["name"]), "privileged", "not privileged", sources)]
    else:
        out = [finding("gpu_plugin_cpu_manager", "agree", subject, "%s: %s and container %s is privileged, as NVIDIA documents for "
                       "CPU Manager interoperability" % (subject, said, container["name"]), True, True, sources)]
    return out + pods.plugin_findings(subject, described, container, rollout)
