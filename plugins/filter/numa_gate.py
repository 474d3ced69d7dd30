# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Controller-side filters: the reservation planner, cpulists and quantities.

Thin wrappers over module_utils; each filter's documentation is in
plugins/filter/<filter_name>.yml. Any bad input becomes an AnsibleFilterError
carrying the module_utils message (it names the value and the rule).
"""

from __future__ import annotations

from decimal import DecimalException

from ansible.errors import AnsibleFilterError

from ansible_collections.gpusmith.numa_gate.plugins.module_utils import _cpulist
from ansible_collections.gpusmith.numa_gate.plugins.module_utils import _quantity
from ansible_collections.gpusmith.numa_gate.plugins.module_utils import _reservation


def _wrap(name, func, *args, **kwargs):
    try:
        return func(*args, **kwargs)
    except (ValueError, DecimalException) as exc:
        # ValueError and its subclasses (PlanError, CpuListError, QuantityError); decimal's errors are ArithmeticErrors.
        raise AnsibleFilterError("%s: %s" % (name, exc))


def reservation_plan(topology, policy=None, base_config=None):
    """Plan kubelet CPU and memory reservations from numa_gate_topology facts, over the node's kubelet configuration."""
    return _wrap("reservation_plan", _reservation.reservation_plan, topology, policy, base_config)


def cpulist_parse(text):
    """'0-3,8' -> [0, 1, 2, 3, 8]."""
    return _wrap("cpulist_parse", _cpulist.parse, text)


def _cpu_ids(name, cpus):
    if isinstance(cpus, (str, bytes, dict)) or not hasattr(cpus, "__iter__"):
        raise AnsibleFilterError("%s: %r is a %s, expected a list of CPU ids" % (name, cpus, type(cpus).__name__))
    result = []
    for cpu in cpus:
        if isinstance(cpu, bool) or not isinstance(cpu, (int, str)) or (isinstance(cpu, str) and not cpu.strip().isdigit()):
            raise AnsibleFilterError("%s: %r in %r is not a CPU id (a whole number >= 0)" % (name, cpu, cpus))
        value = int(cpu)
        if value < 0 or value >= _cpulist.MAX_CPU_ID:
            raise AnsibleFilterError("%s: CPU id %d in %r is outside 0-%d" % (name, value, cpus, _cpulist.MAX_CPU_ID - 1))
        result.append(value)
    return result


def cpulist_format(cpus):
    """[0, 1, 2, 3, 8] -> '0-3,8'."""
    return _wrap("cpulist_format", _cpulist.format, _cpu_ids("cpulist_format", cpus))


def cpulist_union(first, *others):
    """CPUs in any of the cpulists, as a canonical cpulist."""
    return _wrap("cpulist_union", _cpulist.union, first, *others)


def cpulist_difference(first, *others):
    """CPUs in the first cpulist and in none of the others."""
    return _wrap("cpulist_difference", _cpulist.difference, first, *others)


def quantity_to_bytes(value):
    """'1Gi' -> 1073741824 (fractions of a byte round up, as the kubelet does)."""
    return _wrap("quantity_to_bytes", _quantity.to_bytes, value)


def bytes_to_quantity(count):
    """1073741824 -> '1Gi' (the shortest exact binary quantity)."""
    return _wrap("bytes_to_quantity", _quantity.from_bytes, count)


class FilterModule(object):
    """gpusmith.numa_gate filters."""

    def filters(self):
        return {
            "reservation_plan": reservation_plan,
            "cpulist_parse": cpulist_parse,
            "cpulist_format": cpulist_format,
            "cpulist_union": cpulist_union,
            "cpulist_difference": cpulist_difference,
            "quantity_to_bytes": quantity_to_bytes,
            "bytes_to_quantity": bytes_to_quantity,
        }
