# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filter: locality_oracle."""

from __future__ import annotations

from ansible.errors import AnsibleFilterError

from ansible_collections.gpusmith.numa_gate.plugins.module_utils import _locality


def locality_oracle(topology):
    """Map each GPU and NIC in topology facts to its NUMA node and CPUs, with sources."""
    try:
        return _locality.build(topology)
    except _locality.LocalityError as err:
        raise AnsibleFilterError(str(err)) from err


class FilterModule:
    """The locality oracle filter."""

    def filters(self):
        return {"locality_oracle": locality_oracle}
