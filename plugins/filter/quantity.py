# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filters: quantity_to_bytes, bytes_to_quantity (docs in plugins/filter/<name>.yml)."""

from __future__ import annotations

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import quantity as _quantity
from ansible_collections.gpusmith.numa_gate.plugins.plugin_utils.filters import adapt


def quantity_to_bytes(value):
    """'1Gi' -> 1073741824 (fractions of a byte round up, as the kubelet does)."""
    return adapt("quantity_to_bytes", _quantity.to_bytes, value)


def bytes_to_quantity(count):
    """1073741824 -> '1Gi' (the shortest exact binary quantity)."""
    return adapt("bytes_to_quantity", _quantity.from_bytes, count)


class FilterModule(object):
    """The quantity filters."""

    def filters(self):
        return {"quantity_to_bytes": quantity_to_bytes, "bytes_to_quantity": bytes_to_quantity}
