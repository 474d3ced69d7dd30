# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The AMD GPU device plugin on this node: its settings, its resource names and device IDs, and findings (pure).

Public: `settings`, `findings`, `device_kind`, `SETTINGS`, `RESOURCES`, `DEFAULT_CONTAINER`, `COMPUTE_PARTITIONS`, `MEMORY_PARTITIONS`.

Read from ROCm/k8s-device-plugin at ed76468 (2026-08):

- flags (cmd/k8s-device-plugin/main.go, Go's flag package, one or two dashes): ``-resource_naming_strategy``
  ``single`` (default) or ``mixed``, any other value and the plugin exits (ParseStrategy); ``-pulse``, seconds between
  health polls, 0 (default) for none. No environment variable or config file. The static manifest
  (k8s-ds-amdgpu-dp.yaml) passes no args, container ``amdgpu-dp-cntr``, pod label ``name=amdgpu-dp-ds``; the Helm chart
  (helm/amd-gpu, chart ``amd-gpu``) names them ``amd-gpu-dp-cntr`` and ``name=amd-gpu-dp-ds``;
- resources: namespace ``amd.com`` (internal/pkg/plugin GetResourceNamespace); ``gpu`` with ``single``; with ``mixed``
  one per ``<compute>_<memory>`` partition type in lower case, ``cpx_nps4`` (main.go getResourceList,
  internal/pkg/amdgpu UniquePartitionConfigCount), ``gpu`` where the GPUs have no partition files;
- device IDs (internal/pkg/amdgpu GetAMDGPUs): a GPU by its PCI address (its entry under
  /sys/module/amdgpu/drivers/pci:amdgpu), a partition beyond a GPU's first by its platform device
  ``amdgpu_xcp_<n>``; each device's topology is the PCI device's sysfs ``numa_node`` with -1 passed through
  (plugin.go ListAndWatch: NVIDIA's plugin leaves the topology out instead); a partition takes the node of the GPU on
  its PCI slot and is left out where that is -1. The ID does not say which GPU a partition is part of;
- CPU Manager: Allocate always returns device specs (``/dev/kfd``, ``/dev/dri/card<n>``, ``/dev/dri/renderD<n>``)
  (plugin.go Allocate), what NVIDIA's ``PASS_DEVICE_SPECS`` turns on: there is no option to get wrong.
"""

from __future__ import annotations

import re

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import pci as _pci
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._device_path import pods
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._device_path.common import DevicePathError, finding, flag_text

DEFAULT_CONTAINER = ("amdgpu-dp-cntr", "amdgpu-dp-cntr-health", "amd-gpu-dp-cntr")
COMPUTE_PARTITIONS = ("spx", "dpx", "tpx", "qpx", "cpx")
MEMORY_PARTITIONS = ("nps1", "nps2", "nps4", "nps8")
# amd.com/gpu, or amd.com/<compute>_<memory> (the compute partition names a prefix each)
RESOURCES = ("amd.com/gpu",) + tuple("amd.com/%s_*" % mode for mode in COMPUTE_PARTITIONS)
# name, flag, choices (None: an integer), default
SETTINGS = (
    ("resource_naming_strategy", "resource_naming_strategy", ("single", "mixed"), "single"),
    ("pulse", "pulse", None, 0),
)
_PARTITION_ID = re.compile(r"^amdgpu_xcp_[0-9]+$")
_SOURCE = "ROCm/k8s-device-plugin internal/pkg/plugin/plugin.go Allocate"


def device_kind(device_id):
    """``gpu`` for a PCI address, ``partition`` for ``amdgpu_xcp_<n>``, None for a name the plugin does not give."""
    if _pci.is_address(device_id):
        return "gpu"
    if _PARTITION_ID.match(device_id):
        return "partition"
    return None


def _integer(text):
    try:
        return int(text, 0)  # Go's flag.IntVar: strconv.ParseInt(s, 0, 64)
    except ValueError:
        return None


def settings(container):
    """{setting: {"value", "source"}} for the plugin's container (`pods.describe`'s): each flag, else its default."""
    if not isinstance(container, dict):
        raise DevicePathError("the AMD device plugin container must be a mapping (pods.describe), got %s" % type(container).__name__)
    found = {}
    for name, flag, choices, default in SETTINGS:
        text = flag_text(container["args"], flag)
        if text is None:
            found[name] = {"value": default, "source": "default"}
            continue
        value = (text if text in choices else None) if choices else _integer(text)
        found[name] = {"value": value, "source": "flag -%s=%s%s" % (flag, text, "" if value is not None else " (unreadable)")}
    return found


def findings(described, container, found, rollout=None):
    """The plugin's findings: CPU Manager interoperability (by design), a naming strategy the plugin refuses, then `pods.plugin_findings`."""
    subject = "amd-gpu-device-plugin %s" % described["pod"]
    out = [finding("gpu_plugin_cpu_manager", "agree", subject, "%s: AMD's device plugin always passes device specs (/dev/kfd, "
                   "/dev/dri/card<n>, /dev/dri/renderD<n>) with an allocation, what CPU Manager interoperability needs; it has no "
                   "option for it" % subject, "device specs", "device specs", {"expected": _SOURCE, "observed": "the plugin's pod on this node"})]
    strategy = found["resource_naming_strategy"]
    if strategy["value"] is None:
        out.append(finding("gpu_plugin_settings", "disagree", subject, "%s: %s: the plugin takes only single or mixed and exits on another "
                           "value (cmd/k8s-device-plugin ParseStrategy)" % (subject, strategy["source"]), "single or mixed", strategy["source"],
                           {"expected": "ROCm/k8s-device-plugin cmd/k8s-device-plugin/main.go", "observed": "the plugin's pod on this node"}))
    return out + pods.plugin_findings(subject, described, container, rollout)
