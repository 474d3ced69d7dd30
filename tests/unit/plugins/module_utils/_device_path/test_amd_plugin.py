# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The AMD device plugin's settings from its container as ROCm/k8s-device-plugin's DaemonSets write it, its device IDs, its findings (pure)."""

from __future__ import annotations

import pytest

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._device_path import amd_plugin, pods
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._device_path.common import DevicePathError
from ansible_collections.gpusmith.numa_gate.tests.unit.plugins.module_utils._device_path import device_path_cases as C

POD = "kube-system/amdgpu-device-plugin-daemonset-x2k9v"


def _amd(container, phase="Running"):
    described = pods.describe(C.pod("amdgpu-device-plugin-daemonset-x2k9v", [container], phase=phase, owner="amdgpu-device-plugin-daemonset",
                                    labels={"name": "amdgpu-dp-ds"}))
    return described, pods.main_container(described, amd_plugin.DEFAULT_CONTAINER)


def _container(container):
    return _amd(container)[1]


def test_the_static_manifest_passes_no_args_so_every_setting_is_its_default():
    # k8s-ds-amdgpu-dp.yaml: container amdgpu-dp-cntr, privileged, no command or args.
    container = _container(C.amd_container())
    assert amd_plugin.settings(container) == {"resource_naming_strategy": {"value": "single", "source": "default"},
                                              "pulse": {"value": 0, "source": "default"}}


def test_the_health_manifest_args_set_pulse_and_keep_the_single_naming_strategy():
    # k8s-ds-amdgpu-dp-health.yaml: command ./k8s-device-plugin, args -logtostderr=true -stderrthreshold=INFO -pulse=10.
    container = _container(C.amd_container(command=["./k8s-device-plugin"], args=["-logtostderr=true", "-stderrthreshold=INFO", "-pulse=10"],
                                           name="amdgpu-dp-cntr-health"))
    assert container["name"] == "amdgpu-dp-cntr-health"
    assert amd_plugin.settings(container) == {"resource_naming_strategy": {"value": "single", "source": "default"},
                                              "pulse": {"value": 10, "source": "flag -pulse=10"}}


def test_mixed_naming_as_its_configuration_guide_writes_it_and_a_value_the_plugin_refuses_is_unreadable():
    container = _container(C.amd_container(args=["--resource_naming_strategy=mixed", "-pulse", "0x1e"]))
    assert amd_plugin.settings(container) == {"resource_naming_strategy": {"value": "mixed", "source": "flag -resource_naming_strategy=mixed"},
                                              "pulse": {"value": 30, "source": "flag -pulse=0x1e"}}
    container = _container(C.amd_container(args=["-resource_naming_strategy", "Mixed", "-pulse=ten"]))
    assert amd_plugin.settings(container) == {
        "resource_naming_strategy": {"value": None, "source": "flag -resource_naming_strategy=Mixed (unreadable)"},
        "pulse": {"value": None, "source": "flag -pulse=ten (unreadable)"}}
    with pytest.raises(DevicePathError, match=r"^the AMD device plugin container must be a mapping \(pods.describe\), got NoneType$"):
        amd_plugin.settings(None)


@pytest.mark.parametrize("device_id, kind", [
    ("0000:19:00.0", "gpu"), ("0001:0b:00.0", "gpu"), ("amdgpu_xcp_0", "partition"), ("amdgpu_xcp_62", "partition"),
    ("amdgpu_xcp_", None), ("amdgpu_xcp_1a", None), ("renderD130", None), ("card1", None), ("GPU-0a1b2c3d", None)])
def test_device_ids_are_a_pci_address_or_a_partition_platform_device(device_id, kind):
    assert amd_plugin.device_kind(device_id) == kind


def test_the_plugin_always_passes_device_specs_and_a_refused_strategy_is_a_finding_with_the_pod_findings():
    described, container = _amd(C.amd_container(args=["-resource_naming_strategy=both"], image="registry.example/rocm/k8s-device-plugin"),
                                phase="Pending")
    found = amd_plugin.settings(container)
    shown = [(f["check"], f["result"], f["subject"], f["message"], f["expected"], f["observed"]) for f in amd_plugin.findings(described, container, found)]
    assert shown == [
        ("gpu_plugin_cpu_manager", "agree", "amd-gpu-device-plugin " + POD,
         "amd-gpu-device-plugin %s: AMD's device plugin always passes device specs (/dev/kfd, /dev/dri/card<n>, /dev/dri/renderD<n>) with an "
         "allocation, what CPU Manager interoperability needs; it has no option for it" % POD, "device specs", "device specs"),
        ("gpu_plugin_settings", "disagree", "amd-gpu-device-plugin " + POD,
         "amd-gpu-device-plugin %s: flag -resource_naming_strategy=both (unreadable): the plugin takes only single or mixed and exits on another "
         "value (cmd/k8s-device-plugin ParseStrategy)" % POD, "single or mixed", "flag -resource_naming_strategy=both (unreadable)"),
        ("plugin_running", "unknown", "amd-gpu-device-plugin " + POD,
         "amd-gpu-device-plugin %s is Pending, not Running: what it advertises now is unknown" % POD, "Running", "Pending"),
        ("plugin_version", "unknown", "amd-gpu-device-plugin " + POD,
         "amd-gpu-device-plugin %s: image 'registry.example/rocm/k8s-device-plugin' has no tag or digest: the plugin's version is unknown" % POD,
         None, "registry.example/rocm/k8s-device-plugin")]
