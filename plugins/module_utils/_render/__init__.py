# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The render step: the change to the kubelet's files (drop-in or main file), validated merged, written.

Import the submodules explicitly; this file holds only this map.

- ``files``: The kubelet's configuration files on a node, and the change this collection makes to them.
- ``preview``: Our drop-in rendered on the controller from a reading, as kubelet_config renders it in check mode.
- ``specs``: The kubelet_render action's argument spec, and kubelet_config's that it passes on, declared once.
"""
