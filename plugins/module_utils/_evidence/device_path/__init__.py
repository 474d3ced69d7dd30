# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The device path of one node, read from the Kubernetes API and compared with the host (pure, but for ``read``).

Import the submodules explicitly; this file holds only this map.

- ``common``: `DevicePathError`, `finding`, `RESULTS` (one finding's shape, the one error class).
- ``pods``: `describe`, `image_version`, `main_container` (a plugin's pod on the node: images, versions, env, args, owner).
- ``nvidia_plugin``: `settings`, `findings`, `DEFAULT_CONTAINER` (the NVIDIA device plugin's CPU Manager interoperability settings).
- ``resource_slices``: `devices`, `NUMA_ATTRIBUTES` (this node's ResourceSlice devices: NUMA, PCIe root, UUID, PCI address).
- ``sriov``: `parse_config`, `config_for_node`, `resource_prefix`, `advertised`, `findings` (the SR-IOV network device plugin).
- ``compare``: `compare`, `versions` (all of it against the locality oracle: the finding set and the versions to watch).
- ``read``: `read` (the bounded API reads, through any client with ``request(method, path, query=...)``).
"""
