# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Floor: the kubelet's own model, as its source has it: its configuration, its validation rules, its checkpoints.

Import the submodules explicitly; this file holds only this map.

- ``checkpoints/``: The kubelet's CPU and Memory Manager checkpoints: formats, checksums, and whether the kubelet would refuse them.
- ``config/``: The kubelet's configuration: its files and fields, how they merge, its unit's flags, the secrets it carries.
- ``rules/``: The kubelet's validation rules for an effective configuration, in the kubelet's own words.
"""
