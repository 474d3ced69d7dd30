# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Floor: AMD's own model, as its driver and tools write it: the KFD topology, what amd-smi and rocm-smi print.

Import the submodules explicitly; this file holds only this map.

- ``amd_smi``: Parsers for what amd-smi prints: ``static`` and ``list``, as JSON or as its indented text.
- ``kfd``: The KFD topology of AMD GPUs: sys/class/kfd/kfd/topology/nodes/*/{properties,gpu_id,io_links}.
- ``rocm_smi``: Parsers for what rocm-smi prints: ``--showhw``, its ``GPU[n] : <field>: <value>`` lines and ``--showtopo``'s NUMA section.
"""
