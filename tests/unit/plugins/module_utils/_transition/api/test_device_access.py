# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""GPU device access under the static CPU manager: the node's NVIDIA device plugin pod judged (issue 28, part 2).

The containers below are the shapes GPU-NODE-FACTS.md section 3 reads from the plugin's sources: the GPU Operator's
DaemonSet (privileged, PASS_DEVICE_SPECS=true, DEVICE_LIST_STRATEGY=envvar; with cdi.enabled, cdi-annotations,cdi-cri)
and the standalone Helm chart's defaults (no compatWithCPUManager: the plugin's defaults, not privileged).
"""

import pytest

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._transition.api import device_access

STATIC = {"cpuManagerPolicy": "static"}
NODE = {"metadata": {"name": "gpu-1"}, "status": {"allocatable": {"nvidia.com/gpu": "8"}, "nodeInfo": {"containerRuntimeVersion": "containerd://2.1.4"}}}
OPERATOR = {"name": "nvidia-device-plugin", "image": "nvcr.io/nvidia/k8s-device-plugin:v0.20.0", "securityContext": {"privileged": True},
            "env": [{"name": "PASS_DEVICE_SPECS", "value": "true"}, {"name": "DEVICE_LIST_STRATEGY", "value": "envvar"},
                    {"name": "DEVICE_ID_STRATEGY", "value": "uuid"}]}
HELM_DEFAULTS = {"name": "nvidia-device-plugin-ctr", "image": "nvcr.io/nvidia/k8s-device-plugin:v0.20.0", "env": []}
FIX = ("GPU containers lose device access about 10 s after they start under the static CPU manager (\"Failed to initialize NVML: Unknown "
       "Error\"); set PASS_DEVICE_SPECS=true on a privileged container (the Helm chart's compatWithCPUManager: true) or a CDI device-list "
       "strategy (DEVICE_LIST_STRATEGY=cdi-cri; the GPU Operator's cdi.enabled), or override with kubelet_transition_gpu_device_access_override: true")


def plugin_pod(container, name="nvidia-device-plugin-daemonset-7x2kq"):
    return {"metadata": {"name": name, "namespace": "gpu-operator"}, "spec": {"containers": [container]}}


def test_the_gpu_operators_plugin_is_safe_by_pass_device_specs_on_a_privileged_container():
    # The node's binaries' versions are recorded as given, beside the API's containerRuntimeVersion; they change no verdict.
    versions = {"containerd": "2.1.4", "cri-o": None, "runc": "1.3.0"}
    found = device_access.judge([plugin_pod(OPERATOR)], NODE, STATIC, runtime_versions=versions)
    assert found == {"plugin": "gpu-operator/nvidia-device-plugin-daemonset-7x2kq (container nvidia-device-plugin)",
                     "settings": {"pass_device_specs": "true", "device_list_strategy": "envvar", "privileged": True, "config_file": None},
                     "safe": True, "why": "PASS_DEVICE_SPECS is true (PASS_DEVICE_SPECS) on a privileged container",
                     "container_runtime": "containerd://2.1.4", "runtime_versions": versions}
    assert device_access.judge([plugin_pod(OPERATOR)], NODE, STATIC) == dict(found, runtime_versions={})


def test_a_cdi_strategy_is_safe_whatever_pass_device_specs_says():
    cdi = dict(HELM_DEFAULTS, env=[{"name": "DEVICE_LIST_STRATEGY", "value": "cdi-annotations,cdi-cri"}])
    found = device_access.judge([plugin_pod(cdi)], NODE, STATIC)
    assert found["why"] == "every device-list strategy is CDI (cdi-annotations,cdi-cri from DEVICE_LIST_STRATEGY)"


def test_the_helm_charts_defaults_refuse_naming_the_setting_and_the_override_makes_it_pass():
    with pytest.raises(device_access.DeviceAccessError) as caught:
        device_access.judge([plugin_pod(HELM_DEFAULTS, "nvdp-nvidia-device-plugin-abcde")], NODE, STATIC)
    assert str(caught.value) == (
        "enabling the static CPU manager: the GPU device plugin gpu-operator/nvdp-nvidia-device-plugin-abcde (container nvidia-device-plugin-ctr) "
        "runs without CPU-manager compatibility: DEVICE_LIST_STRATEGY is envvar (the plugin's default), PASS_DEVICE_SPECS is false (the "
        "plugin's default), the container is not privileged; " + FIX)
    found = device_access.judge([plugin_pod(HELM_DEFAULTS)], NODE, STATIC, override=True)
    assert (found["safe"], found["why"].startswith("the GPU device plugin ")) == (False, True)


def test_a_flag_wins_over_the_environment_and_pass_device_specs_needs_privileged():
    flagged = dict(OPERATOR, args=["--pass-device-specs=false", "--device-list-strategy", "envvar"])
    with pytest.raises(device_access.DeviceAccessError) as caught:
        device_access.judge([plugin_pod(flagged)], NODE, STATIC)
    assert "DEVICE_LIST_STRATEGY is envvar (--device-list-strategy), PASS_DEVICE_SPECS is false (--pass-device-specs), the container is " \
           "privileged;" in str(caught.value)
    unprivileged = dict(OPERATOR, securityContext={})
    with pytest.raises(device_access.DeviceAccessError) as caught:
        device_access.judge([plugin_pod(unprivileged)], NODE, STATIC)
    assert "PASS_DEVICE_SPECS is true (PASS_DEVICE_SPECS), the container is not privileged;" in str(caught.value)
    bare = dict(HELM_DEFAULTS, args=["--pass-device-specs"], securityContext={"privileged": True})
    assert device_access.judge([plugin_pod(bare)], NODE, STATIC)["safe"] is True


def test_a_setting_left_to_the_config_file_is_unknown_and_refused():
    configured = dict(HELM_DEFAULTS, args=["--config-file=/config/config.yaml"], securityContext={"privileged": True})
    with pytest.raises(device_access.DeviceAccessError) as caught:
        device_access.judge([plugin_pod(configured)], NODE, STATIC)
    assert ("DEVICE_LIST_STRATEGY is unknown (its config file /config/config.yaml (not read)), PASS_DEVICE_SPECS is unknown (its config file "
            "/config/config.yaml (not read)), the container is privileged;") in str(caught.value)


def test_gpus_without_a_plugin_pod_are_unknown_and_no_gpus_no_plugin_is_nothing_to_judge():
    with pytest.raises(device_access.DeviceAccessError) as caught:
        device_access.judge([], NODE, STATIC)
    assert str(caught.value) == (
        "enabling the static CPU manager: gpu-1 has nvidia.com/gpu but no pod of the NVIDIA device plugin (an image .../k8s-device-plugin or a "
        "container nvidia-device-plugin*): how it hands out GPUs cannot be told; " + FIX)
    plain = {"metadata": {"name": "cpu-1"}, "status": {"allocatable": {"cpu": "8"}}}
    assert device_access.judge([], plain, STATIC) == {"plugin": None, "settings": None, "safe": None, "why": None, "container_runtime": None,
                                                      "runtime_versions": {}}
    # A plugin that has not registered since the kubelet's start leaves 0 allocatable: no GPU a container could lose.
    none_left = {"metadata": {"name": "gpu-2"}, "status": {"allocatable": {"nvidia.com/gpu": "0"}}}
    assert device_access.judge([], none_left, STATIC)["safe"] is None


def test_only_the_static_cpu_manager_is_judged():
    assert device_access.judge([plugin_pod(HELM_DEFAULTS)], NODE, {"cpuManagerPolicy": "none"})["safe"] is None
    assert device_access.judge([plugin_pod(HELM_DEFAULTS)], NODE, {})["safe"] is None
