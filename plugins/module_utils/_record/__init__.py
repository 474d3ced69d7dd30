# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The record step: the acceptance record of a node, its verdict, and the pages people look at.

Import the submodules explicitly; this file holds only this map.

- ``pages/``: The record's pages: Markdown, HTML, the node drawing, and the escaping every value goes through (pure).
- ``configdiff``: The kubelet configuration against the baseline, key by key (pure).
- ``criteria``: The verdict's criteria: one row per criterion, the evidence it reads and how it decides (pure).
- ``errors``: The record step's one error.
- ``inputs``: The shapes of what the record step is given: its inputs, the verdict's evidence, a record handed to the renderers.
- ``record``: The acceptance record of one node (devices, locality, configuration, allocations, placement), assembled from the evidence (pure).
- ``service_slack``: The record's reservation slack, from the workload's CPU use measured in the service windows (pure).
- ``verdict``: The verdict of one node by the collection's decision criteria (pure).
"""
