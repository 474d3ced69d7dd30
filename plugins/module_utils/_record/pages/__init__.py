# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The record's pages: Markdown, HTML, the node drawing, and the escaping every value goes through (pure).

Import the submodules explicitly; this file holds only this map.

- ``fleet``: index.html, the fleet: nodes grouped by verdict, reason and hardware shape, the pool's decision per shape (pure).
- ``html``: acceptance.html (one node): one self-contained page (pure); index.html, the fleet, is `pages.fleet`'s.
- ``markdown``: acceptance.md: the record as Markdown tables, every value escaped (`escape.md_text`) (pure).
- ``sections``: The record's sections as plain rows, the one reading that the Markdown and the HTML page share (pure).
- ``svg``: The node drawing (SVG, self-contained): NUMA nodes, their cores and CPUs by role, memory, GPUs and NICs, the canary (pure).
"""
