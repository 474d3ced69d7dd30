# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The kubelet's configuration: its files and fields, how they merge, its unit's flags, the secrets it carries.

Import the submodules explicitly; this file holds only this map.

- ``documents``: Load one kubelet configuration file (YAML or JSON) the way the kubelet's decoder would.
- ``fields``: The KubeletConfiguration fields (kubelet.config.k8s.io/v1beta1) and their Go types.
- ``info``: A node's kubelet configuration as it is, read once: what kubelet_config_info returns.
- ``inventory``: The files that make up a kubelet's configuration and state on a node.
- ``layout``: Where a node's kubelet configuration files are, and reading them as the kubelet would.
- ``merge``: The kubelet's effective configuration: the main file plus its drop-ins.
- ``secrets``: Keep credentials a kubelet configuration carries out of results, diffs and messages.
- ``unit``: How the kubelet is started on a node: its command line, its ``--config`` and ``--config-dir``, its version.
"""
