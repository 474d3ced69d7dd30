# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The warnings a gather collects: `Notes`, passed to every reader as an argument.

Public: `Notes` (``add``, ``fold``, ``warnings``).
"""

from __future__ import annotations

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import cpulist as _cpulist


class Notes:
    """Warnings in the order found, each once; repeated per-CPU problems are folded into one."""

    def __init__(self):
        self._items = []
        self._folded = {}

    def add(self, message):
        if message and message not in self._items:
            self._items.append(message)

    def fold(self, what, cpu):
        """Collect ``what`` for many CPUs; reported once, at the end, as '<what> for cpus <cpulist>'."""
        self._folded.setdefault(what, set()).add(cpu)

    def warnings(self):
        """The warnings, folded ones last (in the order first seen)."""
        for what, cpus in self._folded.items():
            self.add("%s for cpus %s" % (what, _cpulist.format(cpus)))
        self._folded = {}
        return list(self._items)
