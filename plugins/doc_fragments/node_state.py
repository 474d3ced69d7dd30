# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations


class ModuleDocFragment:
    """Where the node-side state modules read and write: the node's file system and the collection's state folder."""

    DOCUMENTATION = r"""
options:
  root:
    description: Where the node's file system is; V(/) on a node, a copy of it in tests. Paths never leave it.
    type: path
    default: /
  state_dir:
    description: The collection's state folder on the node.
    type: path
    default: /var/lib/numa-gate
"""
