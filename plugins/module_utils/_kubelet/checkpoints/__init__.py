# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The kubelet's CPU and Memory Manager checkpoints: formats, checksums, and whether the kubelet would refuse them.

Import the submodules explicitly; this file holds only this map.

- ``checks``: Would the kubelet refuse to start over these checkpoints under a target configuration?
- ``checksum``: The kubelet's checkpoint checksums, recomputed from a decoded JSON checkpoint.
- ``fields``: Field types and CPU sets of a checkpoint, checked before anything reads a value out of it.
- ``files``: The two checkpoint files on a node: where they are, what they say, which the kubelet would refuse.
- ``go_types``: The Go structs of the kubelet's CPU and Memory Manager checkpoints, for their checksums.
- ``policy_change``: The kubelet's CPU and Memory Manager checkpoint files, as far as a policy change needs them.
- ``read``: Read a ``cpu_manager_state`` or ``memory_manager_state`` file the way the 1.37 kubelet does.
"""
