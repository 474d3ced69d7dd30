#!/usr/bin/python
# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
---
module: device_path_info
short_description: Read a node's device path from the Kubernetes API and compare what it advertises with the host
version_added: 0.1.0
author: GPU Smith (@gpusmith)
extends_documentation_fragment:
  - gpusmith.numa_gate.kube_api
  - gpusmith.numa_gate.kube_api.node
  - gpusmith.numa_gate.controller
  - gpusmith.numa_gate.controller.read_only
description:
  - Reads, from the controller through the API server, what places devices on one node - the NVIDIA or AMD GPU device
    plugin's pod on it, a DRA driver's kubelet plugin pod and the node's C(ResourceSlice)s (C(resource.k8s.io/v1)), the SR-IOV
    network device plugin's pod and its ConfigMap - and compares what they advertise with the host's locality oracle
    (built from O(topology), the facts of M(gpusmith.numa_gate.topology_facts)). Returns the findings and the versions
    of the plugins, so that a record can ask for revalidation when one of them changes.
  - "The NVIDIA device plugin: its image and version, and the settings NVIDIA documents for CPU Manager
    interoperability and device specs - C(PASS_DEVICE_SPECS), C(DEVICE_LIST_STRATEGY), C(DEVICE_ID_STRATEGY),
    C(MIG_STRATEGY), C(FAIL_ON_INIT_ERROR), C(NVIDIA_DRIVER_ROOT), C(CONFIG_FILE) - each from its flag, its environment
    variable or the config file (the Helm chart's ConfigMap mounted as C(available-configs), the key chosen by the node
    label C(nvidia.com/device-plugin.config) or C(DEFAULT_CONFIG)), in NVIDIA's order of precedence. C(PASS_DEVICE_SPECS)
    false, or true without a privileged container, is a finding."
  - "The AMD device plugin (ROCm/k8s-device-plugin, a pod with container C(amdgpu-dp-cntr), C(amdgpu-dp-cntr-health) or
    C(amd-gpu-dp-cntr)): its image and version and its flags C(-resource_naming_strategy) (C(single), C(mixed)) and
    C(-pulse), each with its source; it always passes device specs, so CPU Manager interoperability agrees. Its resources
    are C(amd.com/gpu) and the partition names (C(amd.com/cpx_nps4)); it names a GPU by its PCI address and a partition
    C(amdgpu_xcp_<n>), and passes sysfs' -1 through as NUMA node -1: that is a finding (C(device_numa_unaligned)), since
    the kubelet cannot align such a device under C(single-numa-node); a device name of neither form is C(device_name).
    A partition's ID names no GPU: its node agrees only where every GPU of the host is on that node."
  - The DRA path - each device of the node's ResourceSlices with its NUMA node (C(resource.kubernetes.io/numaNode), or
    the driver's C(numa) or C(numaNode)), PCIe root, UUID and PCI address (C(resource.kubernetes.io/pciBusID), or the
    driver's C(pciAddr) as AMD's C(gpu.amd.com) publishes it; a partition by its C(parentPciAddr)) - matched with the
    host's GPUs and NICs by UUID or PCI address.
  - The SR-IOV path - each resource of the plugin's config (its prefix and C(resourceName)), C(excludeTopology), and
    the count the node advertises in C(status.allocatable).
  - A device advertised with no NUMA node is never agreement (a finding, C(unknown)); a NUMA node that differs from
    the host's is a finding (C(disagree)) naming the device, the advertised and the host's node. A device plugin gives
    its NUMA nodes to the kubelet, not to the API, so they are compared only when O(allocatable) is given; otherwise
    that is a finding too.
  - At most 1 + 3 x 5 pod lists + 3 x 4 x (1 + 4) object reads + 1 slice list, all GETs; a list the server cut
    (C(continue)) is a finding, never silently partial.
options:
  topology:
    description:
      - The node's topology facts (schema v1, the C(topology) of M(gpusmith.numa_gate.topology_facts)); the locality
        oracle is built from them. One of O(topology) and O(oracle) is required.
    type: dict
  oracle:
    description:
      - The node's locality oracle (the C(gpusmith.numa_gate.locality_oracle) filter's result), instead of O(topology).
    type: dict
  allocatable:
    description:
      - The kubelet's PodResources C(GetAllocatableResources) (the C(allocatable) of M(gpusmith.numa_gate.pod_resources_info)
        run on the node); its C(devices) carry the NUMA nodes each device plugin advertised with every device.
      - Not given, each device plugin found has one C(unknown) C(device_numa) finding.
    type: dict
  selectors:
    description:
      - Label selectors, per plugin role, that find the plugin pods on the node (each a list of at most 5; all listed with
        C(fieldSelector=spec.nodeName=<node>)). Roles not given keep their defaults.
      - C(gpu_device_plugin) (default V(app.kubernetes.io/name=nvidia-device-plugin), V(name=nvidia-device-plugin-ds),
        V(app=nvidia-device-plugin-daemonset), and AMD's V(name=amdgpu-dp-ds), V(name=amd-gpu-dp-ds)), C(dra_kubelet_plugin) (default
        V(nvidia-dra-driver-gpu-component=kubelet-plugin)), C(sriov_device_plugin) (default V(app=sriovdp)).
      - An empty list reads no pod for that role.
    type: dict
    default: {}
seealso:
  - module: gpusmith.numa_gate.pod_resources_info
  - module: gpusmith.numa_gate.topology_facts
notes:
  - A finding is C({check, result, subject, message, expected, observed, sources}) with C(result) one of C(agree),
    C(disagree), C(unknown), as the placement findings are; the acceptance record takes the whole result as its
    C(device_path) input, and its verdict defers on any C(disagree) or C(unknown) and asks for revalidation when a
    version differs from the accepted record's.
  - "Checks: C(gpu_plugin_cpu_manager), C(plugin_running), C(plugin_version), C(plugin_rollout) (the pod's image differs
    from its DaemonSet's template), C(gpu_plugin_settings) (an AMD naming strategy the plugin refuses), C(device_numa)
    (device plugins, through O(allocatable)), C(device_numa_unaligned) (advertised on node -1), C(device_name) (an AMD
    device ID of no known form), C(dra_device_numa),
    C(dra_device_identity), C(dra_device_published), C(nic_topology_advertised) (C(excludeTopology)),
    C(nic_resource_advertised), C(sriov_config), C(gpu_path) (a host with GPUs and no plugin or driver found),
    C(api_list_complete)."
"""

EXAMPLES = r"""
- name: Read the node's device path and compare it with the host
  gpusmith.numa_gate.device_path_info:
    kubeconfig: "{{ numa_gate_kubeconfig }}"
    node: "{{ numa_gate_node_name | default(inventory_hostname) }}"
    topology: "{{ __numa_gate_facts.topology }}"
    allocatable: "{{ __numa_gate_pod_resources.allocatable }}"
  register: __numa_gate_device_path

- name: The GPU Operator's device plugin only, and no SR-IOV plugin
  gpusmith.numa_gate.device_path_info:
    node: gpu-node-01
    oracle: "{{ __numa_gate_facts.topology | gpusmith.numa_gate.locality_oracle }}"
    selectors:
      gpu_device_plugin: [app=nvidia-device-plugin-daemonset]
      sriov_device_plugin: []
"""

RETURN = r"""
node:
  description: The node's name.
  returned: always
  type: str
  sample: gpu-node-01
findings:
  description: Every finding of the device path, in the order read (plugins, ResourceSlices, SR-IOV, the GPU path).
  returned: success
  type: list
  elements: dict
  sample:
    - check: dra_device_numa
      result: disagree
      subject: gpu.nvidia.com device gpu-node-01/gpu-0
      message: >-
        gpu.nvidia.com device gpu-node-01/gpu-0 (GPU-0a1b2c3d-0000-0000-0000-000000000000, 0000:17:00.0) is advertised on NUMA
        node 1 (ResourceSlice gpu-node-01-gpu.nvidia.com-x7k2p, resource.kubernetes.io/numaNode), the host puts it on NUMA node 0 (sysfs)
      expected: 0
      observed: 1
      sources: {expected: "the host's topology facts (locality oracle)", observed: ResourceSlice gpu-node-01-gpu.nvidia.com-x7k2p}
summary:
  description: How many findings agree, disagree and are unknown.
  returned: success
  type: dict
  sample: {agree: 3, disagree: 1, unknown: 2}
versions:
  description:
    - The version of each plugin found - C(gpu_device_plugin), C(dra_kubelet_plugin), C(sriov_device_plugin) (a second pod of a
      role is keyed with its name) - its image tag, with the digest the kubelet runs when it reports one; null when the image has
      neither tag nor digest.
  returned: success
  type: dict
  sample: {gpu_device_plugin: v0.18.0, sriov_device_plugin: v3.9.0}
plugins:
  description:
    - Per role, each plugin pod read - C(pod), C(owner), C(phase), C(container), C(image), C(image_id), C(version),
      C(privileged); a GPU plugin's C(vendor) (C(nvidia) or C(amd)) and C(settings) (each C({value, source})), NVIDIA's
      C(config_source); the SR-IOV plugin's
      C(resource_prefix), C(resources), C(advertised) and C(config_source).
  returned: success
  type: dict
slice_devices:
  description:
    - Each device of the node's ResourceSlices - C(driver), C(pool), C(slice), C(name), C(uuid), C(pci_address),
      C(parent_pci_address), C(pcie_root),
      C(numa_node), C(numa_nodes), C(numa_attribute), C(driver_version).
  returned: success
  type: list
  elements: dict
selectors:
  description: The label selectors used, per role.
  returned: success
  type: dict
notes:
  description: What could not be read and why (for example a server without C(resource.k8s.io/v1)).
  returned: success
  type: list
  elements: str
requests:
  description: How many API requests it made.
  returned: success
  type: int
  sample: 7
"""


from ansible.module_utils.basic import AnsibleModule

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._device_path import specs

# The action's (plugins/action/device_path_info.py), declared once in plugins/module_utils/_device_path/specs.py.
ARGUMENT_SPEC = specs.DEVICE_PATH_INFO


def main():
    """This module runs as an action plugin on the controller; run on a host, it only says so."""
    module = AnsibleModule(argument_spec=ARGUMENT_SPEC, supports_check_mode=True, **specs.DEVICE_PATH_INFO_RULES)
    module.fail_json(msg="gpusmith.numa_gate.device_path_info runs as an action plugin on the controller; this module file only holds its documentation")


if __name__ == "__main__":
    main()
