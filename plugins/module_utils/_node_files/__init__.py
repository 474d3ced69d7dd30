# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Floor: how the collection writes on a node: atomic replacement, byte-for-byte backups, confinement to its folders, locks.

Import the submodules explicitly; this file holds only this map.

- ``baseline/``: The node's write-once baseline: its kubelet files as they were before the collection first changed them.
- ``atomic``: Replace a node file atomically, never through a symlink.
- ``backups``: Byte-for-byte backups of node files, private to the collection, and putting them back.
- ``confine``: Where the collection's state lies on a node, and the one set of checks before it is read or written.
- ``locks``: An exclusive lock on a file of the collection's state, held for a bounded time.
"""
