# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The node's write-once baseline: its kubelet files as they were before the collection first changed them.

Import the submodules explicitly; this file holds only this map.

- ``file``: The write-once baseline: a node file as it was before this collection first changed it.
- ``manifest``: The baseline's manifest: the shape every entry must have, and where an entry's copy may be.
- ``store``: The node's baseline: its kubelet files as they were on first contact, kept once, never rewritten.
"""
