# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filter: locality_oracle (docs in plugins/filter/locality_oracle.yml)."""

from __future__ import annotations

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._plan import locality
from ansible_collections.gpusmith.numa_gate.plugins.plugin_utils.filters import adapt


def locality_oracle(topology):
    """Map each GPU and NIC in topology facts to its NUMA node and CPUs, with sources."""
    return adapt("locality_oracle", locality.build, topology)


class FilterModule(object):
    """The locality oracle filter."""

    def filters(self):
        return {"locality_oracle": locality_oracle}
