# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The record step: the acceptance record of a node, its verdict, and the pages people look at.

Import the submodules explicitly; this file holds only this map.

- ``errors``: `RecordError`.
- ``verdict``: `decide`, `VERDICTS`, `WATCHED`, `POLICY_KEYS`, `CRITERIA`, `evidence_keys` (adopt / restrict / defer / revalidate
  with reasons, pure).
- ``shapes``: the inputs', the evidence's and a record's shapes (`input_keys`, `inputs_shape`, `evidence_shape`, `SOURCE_SHAPES`).
- ``configdiff``: `diff` (the kubelet configuration against the baseline, key by key).
- ``record``: `build`, `SCHEMA_VERSION`, `input_keys`, `cpu_roles` (the acceptance record, JSON-ready; its evidence inputs are the
  sources of `_evidence.sources.SOURCES`, iterated).
- ``escape``: `html_text`, `html_attr`, `md_text` (every value on a page goes through one of these).
- ``svg``: `drawing`, `layout` (the node drawing: NUMA nodes, cores, CPUs by role, memory, GPUs, NICs, the canary).
- ``sections``: `sections` (the record as rows, shared by both pages).
- ``service_table``: `sections`, `service` (the service comparison as rows: summary, a table per latency metric, the runs).
- ``service_svg``: `drawing`, `drawings` (per latency metric, the cumulative distributions, one line per repetition and side).
- ``markdown``: `render` (acceptance.md).  ``html``: `page`, `fleet` (acceptance.html, the fleet's index.html).
"""
