# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The transition's node side: the kubelet's systemd service, checkpoint removal, the runtime's versions.

Import the submodules explicitly; this file holds only this map.

- ``checkpoint_removal``: Which checkpoint files to take away before a kubelet restart, and taking them away safely.
- ``kubelet_service``: The kubelet's systemd service on the node: read its state, stop it and confirm it stopped, start it.
- ``runtime_versions``: The node's container runtime and runc versions, as the binaries on the node say them.
"""
