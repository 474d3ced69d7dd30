# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The stack as observed: each version with where and when it was read; not found is not found, a failed read its error."""

from __future__ import annotations

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._stack import observe

AT = "2026-12-04T10:00:00Z"
NODE = {"metadata": {"labels": {"example.com/pod-managers": "canary"}},
        "status": {"nodeInfo": {"kubeletVersion": "v1.37.1", "containerRuntimeVersion": "containerd://2.1.4", "kernelVersion": "6.8.0-45-generic",
                                "osImage": "Ubuntu 24.04.1 LTS"}}}
METRICS = ('# TYPE kubernetes_feature_enabled gauge\nkubernetes_feature_enabled{name="PodLevelResources",stage="BETA"} 1\n'
           'kubernetes_feature_enabled{name="InPlacePodVerticalScaling",stage=""} 0\n')


def workload(kind, namespace, name, image, labels=None):
    return {"kind": kind, "metadata": {"namespace": namespace, "name": name, "labels": labels or {}},
            "spec": {"template": {"spec": {"containers": [{"name": "c", "image": image}]}}}}


def test_found_not_found_and_failed():
    answers = {"version": {"gitVersion": "v1.37.1"}, "metrics": METRICS, "node": NODE, "workloads": [
        workload("Deployment", "nvidia-network-operator", "network-operator", "nvcr.io/nvidia/cloud-native/network-operator:v26.7.0"),
        workload("DaemonSet", "gpu-operator", "nvidia-device-plugin-daemonset", "nvcr.io/nvidia/k8s-device-plugin@sha256:abc",
                 {"app.kubernetes.io/version": "v0.18.0"}),
        workload("Deployment", "gpu-operator", "gpu-operator", "registry.local:5000/nvidia/gpu-operator@sha256:def")]}
    seen = observe.observe(answers, AT)
    assert seen["versions"] == {"control_plane": "v1.37.1", "kubelet": "v1.37.1", "container_runtime": "containerd://2.1.4",
                                "kernel": "6.8.0-45-generic", "node_image": "Ubuntu 24.04.1 LTS", "gpu_operator": None,
                                "network_operator": "v26.7.0", "device_plugin": "v0.18.0"}
    by = dict((e["component"], e) for e in seen["observed"])
    assert by["network_operator"] == {"component": "network_operator", "version": "v26.7.0", "state": "found", "read_at": AT, "error": None,
                                      "source": "Deployment nvidia-network-operator/network-operator, image "
                                                "nvcr.io/nvidia/cloud-native/network-operator:v26.7.0"}
    assert by["gpu_operator"]["state"] == "found" and by["gpu_operator"]["version"] is None
    assert by["sriov_device_plugin"] == {"component": "sriov_device_plugin", "version": None, "state": "not found", "read_at": AT, "error": None,
                                         "source": "Deployments and DaemonSets (apps/v1, all namespaces)"}
    assert by["control_plane"]["source"] == "GET /version (gitVersion)"
    assert by["kubelet"]["source"] == "the Node's status.nodeInfo.kubeletVersion"
    assert seen["control_plane_gates"] == {"PodLevelResources": True, "InPlacePodVerticalScaling": False}
    assert seen["labels"] == {"example.com/pod-managers": "canary"}


def test_a_failed_read_is_its_error_and_unknown_never_absent():
    seen = observe.observe({"version": {"error": "GET /version: HTTP 503"}, "metrics": {"error": "GET /metrics: HTTP 403 Forbidden"},
                            "node": {"error": "GET /api/v1/nodes/gpu-1: HTTP 404 NotFound"}, "workloads": {"error": "HTTP 403"}}, AT)
    assert seen["versions"] == dict.fromkeys(observe.COMPONENTS)
    assert {e["state"] for e in seen["observed"]} == {"read failed"}
    assert seen["observed"][0]["error"] == "GET /version: HTTP 503"
    assert (seen["control_plane_gates"], seen["control_plane_gates_error"]) == (None, "GET /metrics: HTTP 403 Forbidden")
    assert (seen["labels"], seen["node_error"]) == (None, "GET /api/v1/nodes/gpu-1: HTTP 404 NotFound")


def test_without_workloads_only_the_cluster_and_the_node():
    seen = observe.observe({"version": {"gitVersion": "v1.37.1"}, "metrics": "", "node": NODE}, AT)
    assert [e["component"] for e in seen["observed"]] == ["control_plane", "kubelet", "container_runtime", "kernel", "node_image"]
    assert seen["control_plane_gates"] == {}


SYSFS, SMI = observe.DRIVER_READS[0][1], observe.DRIVER_READS[1][1]


def test_the_driver_from_sysfs_else_nvidia_smi_dated():
    found = observe.driver({"read_at": AT, "sysfs": {"content": "NTgwLjgyLjA3Cg==", "changed": False}, "nvidia_smi": {"skipped": True}})
    assert found == {"component": "driver", "version": "580.82.07", "state": "found", "source": SYSFS, "read_at": AT, "error": None}
    smi = observe.driver({"read_at": AT, "sysfs": {"msg": "file not found: /sys/module/nvidia/version"},
                          "nvidia_smi": {"rc": 0, "stdout": "580.95.05\n580.95.05", "stderr": ""}})
    assert (smi["version"], smi["state"], smi["source"]) == ("580.95.05", "found", SMI)


def test_no_driver_is_not_found_a_failed_read_its_error_no_read_none():
    absent = observe.driver({"read_at": AT, "sysfs": {"msg": "file not found: /sys/module/nvidia/version"},
                             "nvidia_smi": {"rc": 2, "msg": "[Errno 2] No such file or directory: b'nvidia-smi'"}})
    assert absent == {"component": "driver", "version": None, "state": "not found", "source": SYSFS + "; " + SMI, "read_at": AT, "error": None}
    failed = observe.driver({"read_at": AT, "sysfs": {"msg": "file not found: /sys/module/nvidia/version"},
                             "nvidia_smi": {"rc": 9, "stdout": "", "stderr": "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver."}})
    assert (failed["state"], failed["source"], failed["error"]) == (
        "read failed", SYSFS + "; " + SMI, SMI + ": NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.")
    assert observe.driver({"read_at": AT, "sysfs": {"skipped": True}, "nvidia_smi": None}) is None
    assert observe.driver(None) is None


def test_each_list_read_on_its_own_a_failed_one_hides_nothing_the_other_found():
    plugin = workload("DaemonSet", "kube-system", "nvidia-device-plugin", "nvcr.io/nvidia/k8s-device-plugin:v0.17.1")
    seen = observe.observe({"version": {"gitVersion": "v1.37.1"}, "metrics": "", "node": NODE,
                            "deployments": {"error": "deployments.apps is forbidden"}, "daemonsets": [plugin]}, AT)
    by = dict((e["component"], e) for e in seen["observed"])
    assert by["device_plugin"] == {"component": "device_plugin", "version": "v0.17.1", "state": "found", "read_at": AT, "error": None,
                                   "source": "DaemonSet kube-system/nvidia-device-plugin, image nvcr.io/nvidia/k8s-device-plugin:v0.17.1"}
    # Not among the DaemonSets, and the Deployments could not be read: unknown, naming that list and its error.
    assert by["network_operator"] == {"component": "network_operator", "version": None, "state": "read failed", "read_at": AT,
                                      "source": "Deployments (apps/v1, all namespaces)", "error": "deployments.apps is forbidden"}
    both = observe.observe({"version": {}, "metrics": "", "node": NODE, "deployments": {"error": "a"}, "daemonsets": {"error": "b"}}, AT)
    assert [(e["source"], e["error"]) for e in both["observed"] if e["component"] == "dra_driver"] == [
        ("Deployments (apps/v1, all namespaces); DaemonSets (apps/v1, all namespaces)",
         "Deployments (apps/v1, all namespaces): a; DaemonSets (apps/v1, all namespaces): b")]
    none = observe.observe({"version": {}, "metrics": "", "node": NODE, "deployments": [], "daemonsets": []}, AT)
    assert {e["state"] for e in none["observed"] if e["component"] in dict(observe.IMAGES)} == {"not found"}


AMDGPU = observe.DRIVER_READS[2][1]


def test_amd_driver_from_its_module_else_the_in_kernel_driver_never_the_kernel_release():
    # amdgpu's version file holds what AMD's DKMS driver wrote (the MI210 capture's 6.19.4).
    dkms = observe.driver({"read_at": AT, "sysfs": {"skipped": True}, "nvidia_smi": None, "amdgpu_sysfs": {"content": "Ni4xOS40Cg=="}})
    assert dkms == {"component": "driver", "version": "6.19.4", "state": "found", "source": AMDGPU, "read_at": AT, "error": None}
    in_kernel = observe.driver({"read_at": AT, "amdgpu_sysfs": {"msg": "file not found: /sys/module/amdgpu/version", "failed": True}})
    assert in_kernel == {"component": "driver", "version": "in-kernel", "state": "found", "read_at": AT, "error": None,
                         "source": "the node's /sys/module/amdgpu/version is absent: the in-kernel amdgpu driver, which has no version of "
                                   "its own (the kernel's release names it, in the kernel entry)"}
    denied = observe.driver({"read_at": AT, "amdgpu_sysfs": {"msg": "Permission denied: /sys/module/amdgpu/version", "failed": True}})
    assert (denied["version"], denied["state"], denied["error"]) == (None, "read failed", AMDGPU + ": Permission denied: /sys/module/amdgpu/version")


def test_amd_operator_plugin_and_dra_images_found_by_their_own_names():
    lists = [workload("DaemonSet", "kube-amd-gpu", "amd-gpu-device-plugin", "docker.io/rocm/k8s-device-plugin:1.31.0.7"),
             workload("DaemonSet", "kube-amd-gpu", "amd-dra", "docker.io/rocm/k8s-gpu-dra-driver:v0.1.0"),
             workload("Deployment", "kube-amd-gpu", "amd-gpu-operator", "docker.io/rocm/amd-gpu-operator:v1.4.0")]
    seen = observe.observe({"version": {"gitVersion": "v1.37.1"}, "metrics": "", "node": NODE, "workloads": lists}, AT)
    assert dict((k, seen["versions"].get(k)) for k in ("gpu_operator", "device_plugin", "dra_driver")) == {
        "gpu_operator": "v1.4.0", "device_plugin": "1.31.0.7", "dra_driver": "v0.1.0"}
    assert [e["source"] for e in seen["observed"] if e["component"] == "dra_driver"] == [
        "DaemonSet kube-amd-gpu/amd-dra, image docker.io/rocm/k8s-gpu-dra-driver:v0.1.0"]
