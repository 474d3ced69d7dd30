# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The ``service_objectives`` source: baseline against canary under the same load, measured (pure).

Public: `compose`.

When the service_comparison role ran here (``service_comparison_ran``), its ``service_comparison_result``
(null in check mode: nothing measured); otherwise the comparison given by the operator
(``service_comparison_given``: the service_comparison filter's result, or null). The verdict checks
its shape: a typed-in ``{held: true}`` is refused there.
"""

from __future__ import annotations


def compose(reads):
    if reads.get("service_comparison_ran"):
        return reads.get("service_comparison_result")
    return reads.get("service_comparison_given")
