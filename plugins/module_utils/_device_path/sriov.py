# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The SR-IOV network device plugin: its resources, whether each advertises NUMA, what the node advertises (pure).

Public: `parse_config`, `config_for_node`, `resource_prefix`, `config_path`, `advertised`, `findings`, `DEFAULT_PREFIX`,
`DEFAULT_CONFIG_FILE`, `DEFAULT_CONTAINER`.

Read from k8snetworkplumbingwg/sriov-network-device-plugin at 40b6f50 (2026-06):
- the config is JSON, ``{"resourceList": [{"resourceName", "resourcePrefix", "deviceType",
  "excludeTopology", "selectors", "additionalInfo"}]}`` (pkg/types/types.go ResourceConfig; README
  "Configurations": ``resourcePrefix`` defaults to the CLI's, ``deviceType`` to ``netDevice``,
  ``excludeTopology`` "Exclude advertising of device's NUMA topology", default false);
- with ``excludeTopology`` the device is advertised with NUMA node -1, i.e. no topology
  (pkg/devices/host.go: ``nodeNum := -1; if !rc.ExcludeTopology { nodeNum = utils.GetDevNode(...) }``);
- CLI flags ``-resource-prefix`` (default ``intel.com``) and ``-config-file`` (default
  ``/etc/pcidp/config.json``); the upstream DaemonSet mounts ConfigMap ``sriovdp-config`` key
  ``config.json`` at ``/etc/pcidp`` (deployments/sriovdp-daemonset.yaml, deployments/configMap.yaml);
- the node then advertises ``<prefix>/<resourceName>`` in ``status.allocatable`` (README "Example
  deployments": ``"intel.com/sriov_net_A": "8"``), the count the kubelet's device manager sets.

The ConfigMap key read is the ``-config-file`` path's last part (``$(NODE_NAME)`` replaced by the node,
as the kubelet expands a container's ``$(VAR)`` from its env), else the node's name, else
``config.json``.
"""

from __future__ import annotations

import json

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._device_path.common import DevicePathError, finding

DEFAULT_PREFIX = "intel.com"
DEFAULT_CONFIG_FILE = "/etc/pcidp/config.json"
DEFAULT_CONTAINER = ("kube-sriovdp", "sriov-device-plugin")
MAX_CONFIG_BYTES = 1024 * 1024


def _flag(args, name, default):
    found = default
    for index, arg in enumerate(args):
        for prefix in ("--" + name, "-" + name):
            if arg == prefix and index + 1 < len(args):
                found = args[index + 1]
            elif arg.startswith(prefix + "="):
                found = arg[len(prefix) + 1:]
    return found


def resource_prefix(container):
    """The plugin's ``-resource-prefix`` (default `DEFAULT_PREFIX`)."""
    return _flag(container["args"], "resource-prefix", DEFAULT_PREFIX)


def config_path(container):
    """The plugin's ``-config-file`` (default `DEFAULT_CONFIG_FILE`)."""
    return _flag(container["args"], "config-file", DEFAULT_CONFIG_FILE)


def config_for_node(data, container, node):
    """(key, text) of the plugin's config in a ConfigMap's ``data`` (see the module docstring), or (None, None)."""
    data = data if isinstance(data, dict) else {}
    wanted = config_path(container).rstrip("/").rsplit("/", 1)[-1].replace("$(NODE_NAME)", node)
    for key in (wanted, node, "config.json"):
        if key in data:
            return key, data[key]
    return None, None


def parse_config(text, where, prefix=DEFAULT_PREFIX):
    """The resources of a config.json: [{"resource", "resource_name", "resource_prefix", "device_type", "exclude_topology", "selectors"}]."""
    if not isinstance(text, str):
        raise DevicePathError("%s: the SR-IOV device plugin config must be JSON text, got %s" % (where, type(text).__name__))
    if len(text.encode("utf-8")) > MAX_CONFIG_BYTES:
        raise DevicePathError("%s: the SR-IOV device plugin config is larger than %d bytes; not read" % (where, MAX_CONFIG_BYTES))
    try:
        config = json.loads(text)
    except ValueError as exc:
        raise DevicePathError("%s: the SR-IOV device plugin config is not JSON: %s" % (where, exc)) from exc
    if not isinstance(config, dict) or not isinstance(config.get("resourceList"), list):
        raise DevicePathError("%s: the SR-IOV device plugin config must be an object with a resourceList list" % where)
    out = []
    for index, entry in enumerate(config["resourceList"]):
        name = entry.get("resourceName") if isinstance(entry, dict) else None
        if not isinstance(name, str) or not name:
            raise DevicePathError("%s: resourceList[%d] has no resourceName (a string): every resource pool names one" % (where, index))
        exclude = entry.get("excludeTopology", False)
        if not isinstance(exclude, bool):
            raise DevicePathError("%s: resourceList[%d] (%s): excludeTopology must be true or false, got %r" % (where, index, name, exclude))
        own = entry.get("resourcePrefix") or prefix
        out.append({"resource": "%s/%s" % (own, name), "resource_name": name, "resource_prefix": own,
                    "device_type": entry.get("deviceType") or "netDevice", "exclude_topology": exclude, "selectors": entry.get("selectors")})
    return out


def advertised(node, names):
    """{resource: {"capacity", "allocatable"}} the Node's status shows for each name (None where it shows none)."""
    status = (node or {}).get("status") or {}
    capacity, allocatable = status.get("capacity") or {}, status.get("allocatable") or {}
    return {name: {"capacity": capacity.get(name), "allocatable": allocatable.get(name)} for name in names}


def findings(resources, shown, where):
    """Per resource: excludeTopology (disagree when true), and what the node advertises (``shown``: `advertised`'s)."""
    out = []
    sources = {"expected": "the SR-IOV device plugin's config (%s)" % where, "observed": "the Node's status.allocatable"}
    for resource in resources:
        name = resource["resource"]
        subject = "sriov resource %s" % name
        if resource["exclude_topology"]:
            out.append(finding("nic_topology_advertised", "disagree", subject,
                               "%s (%s): excludeTopology is true, so the plugin advertises its devices with no NUMA node: the kubelet's "
                               "Topology Manager cannot align them with the pod's CPUs and memory" % (subject, where), False, True,
                               {"expected": "topology advertised", "observed": where}))
        count = (shown.get(name) or {}).get("allocatable")
        if count is None:
            out.append(finding("nic_resource_advertised", "unknown", subject, "%s is configured (%s) but the node does not advertise it "
                               "(status.allocatable has no %s)" % (subject, where, name), "advertised", None, sources))
        elif str(count) == "0":
            out.append(finding("nic_resource_advertised", "disagree", subject, "%s is configured (%s) but the node advertises 0 of it"
                               % (subject, where), "more than 0", "0", sources))
        else:
            out.append(finding("nic_resource_advertised", "agree", subject, "%s: the node advertises %s" % (subject, count),
                               "more than 0", str(count), sources))
    return out
