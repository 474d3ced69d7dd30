# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filters: cpulist_parse, cpulist_format, cpulist_union, cpulist_difference (docs in plugins/filter/<name>.yml)."""

from __future__ import annotations

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import cpulist as _cpulist
from ansible_collections.gpusmith.numa_gate.plugins.plugin_utils.filters import adapt


def cpulist_parse(text):
    """'0-3,8' -> [0, 1, 2, 3, 8]."""
    return adapt("cpulist_parse", _cpulist.parse, text)


def cpulist_format(cpus):
    """[0, 1, 2, 3, 8] -> '0-3,8'."""
    return adapt("cpulist_format", lambda: _cpulist.format(_cpulist.check_ids(cpus)))


def cpulist_union(first, *others):
    """CPUs in any of the cpulists, as a canonical cpulist."""
    return adapt("cpulist_union", _cpulist.union, first, *others)


def cpulist_difference(first, *others):
    """CPUs in the first cpulist and in none of the others."""
    return adapt("cpulist_difference", _cpulist.difference, first, *others)


class FilterModule(object):
    """The cpulist filters."""

    def filters(self):
        return {
            "cpulist_parse": cpulist_parse,
            "cpulist_format": cpulist_format,
            "cpulist_union": cpulist_union,
            "cpulist_difference": cpulist_difference,
        }
