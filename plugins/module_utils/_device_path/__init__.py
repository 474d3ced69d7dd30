# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The device path step: how the cluster advertises devices (device plugins, DRA ResourceSlices, SR-IOV) against the host.

Import the submodules explicitly; this file holds only this map.

- ``amd_plugin``: The AMD GPU device plugin on this node: its settings, its resource names and device IDs, and findings (pure).
- ``common``: What every part of the device path shares: the error it raises and the shape of a finding.
- ``compare``: The device path against the host: what the plugins and DRA drivers advertise, compared with the locality oracle (pure).
- ``devices``: Device IDs from the kubelet mapped to the facts' GPUs and NICs (through the locality oracle).
- ``dra_claims``: A pod's DRA devices joined to their ResourceClaim's allocation and their ResourceSlice device, and judged (pure).
- ``nvidia_plugin``: The NVIDIA device plugin on this node: its settings that matter for CPU Manager interoperability, and findings (pure).
- ``pods``: A device plugin's pod on this node, as the API returns it, reduced to what the device path records (pure).
- ``read``: Reading one node's device path from the Kubernetes API, bounded, then comparing it (`compare`).
- ``resource_slices``: This node's ResourceSlices (resource.k8s.io/v1): each device's NUMA node, PCIe root, UUID and PCI address (pure).
- ``specs``: The device_path_info action's argument spec, declared once: the action and its module file both import it.
- ``sriov``: The SR-IOV network device plugin: its resources, whether each advertises NUMA, what the node advertises (pure).
"""
