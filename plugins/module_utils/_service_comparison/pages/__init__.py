# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The service comparison's part of the pages: its table rows and drawings (pure).

Import the submodules explicitly; this file holds only this map.

- ``svg``: The service drawings (SVG, self-contained): per latency metric, each repetition's cumulative distribution, baseline and canary (pure).
- ``table``: The service comparison in the record: a summary, a table per latency metric, the runs, as plain rows (pure).
"""
